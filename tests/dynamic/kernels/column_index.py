"""A column index made on the vector unit (`pl.arange`) and widened to FP32: each row of the activation is
shifted by its column's position (a position bias)."""

import pypto.language as pl

ROWS = 16
COLS = 64
FIRST = 3


@pl.jit
def position_bias(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="position_bias"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        positions = pl.arange(FIRST, [1, COLS], dtype=pl.INT32)
        bias = pl.cast(positions, target_type=pl.FP32)
        y[:, :] = pl.col_expand_add(acts, bias)
    return y
