"""Scalar casts of a kernel's run-time count: `pl.cast(num_rows, pl.INDEX)`, clamped by `pl.min` to leave
the last row tile alone, bounds the row loop, and a literal cast (`pl.cast(2, pl.FP32)`) is the scale every
row is multiplied by."""

import pypto.language as pl

ROWS = 256
COLS = 64
ROW_TILE = 16


@pl.jit
def counted_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    num_rows: pl.Scalar[pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    requested_rows = pl.cast(num_rows, pl.INDEX)
    last_tile = pl.tensor.dim(x, 0) - ROW_TILE
    active_rows = pl.min(last_tile, requested_rows)
    scale = pl.cast(2, pl.FP32)
    for rb in pl.range(active_rows // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_rows"):
            rows = pl.tile.load(x, [r0, 0], [ROW_TILE, COLS])
            y[r0 : r0 + ROW_TILE, :] = pl.mul(rows, scale)
    return y
