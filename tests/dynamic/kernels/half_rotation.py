"""Concatenation of two Vec tiles along their columns (`pl.concat`): each row tile of `x` is rotated by half its
width, the negated second half first and the first half after it (a rotary embedding's `rotate_half`)."""

import pypto.language as pl

ROWS = 64
COLS = 128
HALF = COLS // 2
ROW_TILE = 16


@pl.jit
def half_rotation(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    for rb in pl.range(ROWS // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotate_half"):
            first = pl.tile.load(x, [r0, 0], [ROW_TILE, HALF])
            second = pl.tile.load(x, [r0, HALF], [ROW_TILE, HALF])
            y[r0 : r0 + ROW_TILE, :] = pl.concat(pl.neg(second), first)
    return y
