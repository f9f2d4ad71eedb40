"""A kernel that stores its result in its return statement (`return pl.store(...)`): the store is done, in the
simulated PTO and in the reference alike."""

import pypto.language as pl

ROWS = 8
COLS = 64


@pl.jit.incore
def halve_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    halved = pl.mul(rows, 0.5)
    return pl.store(halved, [0, 0], y)
