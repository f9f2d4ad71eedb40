"""Scalar loop carries. `reversed_segments` carries a row offset `dst` down the segment loop, so the row tiles of
`x` land in `y` in reverse order; `kept_segments` packs every other segment of `x` into the front of `y`, its
offset advancing only in the arm that stores (a scalar phi of an `if` whose arm holds tile ops), and marks the
row tile after the last one packed; `cast_segments` does the same with its offset recast in both arms (a phi no
type names before the `if`: the arm that computes it tells)."""

import pypto.language as pl

ROWS = 128
COLS = 64
ROW_TILE = 16
SEGMENTS = ROWS // ROW_TILE


@pl.jit
def reversed_segments(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    dst = pl.cast(ROWS - ROW_TILE, pl.INDEX)
    for seg in pl.range(SEGMENTS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="reverse_segment"):
            rows = pl.tile.load(x, [seg * ROW_TILE, 0], [ROW_TILE, COLS])
            y[dst : dst + ROW_TILE, :] = pl.muls(rows, 2.0)
        dst = dst - ROW_TILE
    return y


@pl.jit
def kept_segments(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    dst = pl.cast(0, pl.INDEX)
    for seg in pl.range(SEGMENTS):
        if seg % 2 == 0:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="keep_segment"):
                rows = pl.tile.load(x, [seg * ROW_TILE, 0], [ROW_TILE, COLS])
                y[dst : dst + ROW_TILE, :] = pl.muls(rows, 2.0)
            dst = dst + ROW_TILE
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mark_end"):
        tail = pl.tile.load(x, [dst, 0], [ROW_TILE, COLS])
        y[dst : dst + ROW_TILE, :] = pl.adds(tail, 1.0)
    return y


@pl.jit
def cast_segments(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    dst = pl.cast(0, pl.INDEX)
    for seg in pl.range(SEGMENTS):
        if seg % 2 == 0:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="keep_segment"):
                rows = pl.tile.load(x, [seg * ROW_TILE, 0], [ROW_TILE, COLS])
                y[dst : dst + ROW_TILE, :] = pl.muls(rows, 2.0)
            dst = pl.cast(dst + ROW_TILE, pl.INDEX)
        else:
            dst = pl.cast(dst + seg % 2 - 1, pl.INDEX)
    return y
