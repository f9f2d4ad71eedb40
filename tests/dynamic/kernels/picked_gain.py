"""One gain picked from a loaded row of gains (`pl.read` of a tile element) scales every activation."""

import pypto.language as pl

ROWS = 16
COLS = 64
PICK = 5


@pl.jit
def picked_gain(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    g: pl.Tensor[[2, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="picked_gain"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        gains = pl.tile.load(g, [0, 0], [2, COLS])
        gain = pl.tile.read(gains, [1, PICK])
        y[:, :] = pl.muls(acts, gain)
    return y


@pl.jit
def picked_bias(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    b: pl.Tensor[[COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="picked_bias"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        biases = pl.tile.load(b, [0], [COLS])
        bias = pl.tile.read(biases, [PICK])
        y[:, :] = pl.adds(acts, bias)
    return y
