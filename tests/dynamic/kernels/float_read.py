"""A float scalar read from GM (`pl.tensor.read` of an FP32 table) scales every row tile."""

import pypto.language as pl

ROWS = 32
COLS = 64
ROW_TILE = 16


@pl.jit
def scaled_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    gains: pl.Tensor[[4], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    gain = pl.tensor.read(gains, [0])
    for rb in pl.range(ROWS // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled_rows"):
            rows = pl.tile.load(x, [r0, 0], [ROW_TILE, COLS])
            y[r0 : r0 + ROW_TILE, :] = pl.mul(rows, gain)
    return y
