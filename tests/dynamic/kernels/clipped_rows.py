"""Row tiles over a `pl.dynamic` token count, pipelined two deep: each tile's rows are clipped by `pl.min`
at the end of the tokens, so a tile's valid shape names a scalar its own iteration computes. The pipeline
clones the body (twice in the main loop, once in the remainder arm); each clone's tiles must be typed by
that clone's row count."""

import pypto.language as pl

TOKENS = pl.dynamic("TOKENS")
COLS = 64
ROW_TILE = 8


@pl.jit
def clipped_abs(
    x: pl.Tensor[[TOKENS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, COLS], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="clipped"):
        for r0 in pl.pipeline(0, tokens, ROW_TILE, stage=2):
            rows = pl.min(ROW_TILE, tokens - r0)
            block = pl.load(x, [r0, 0], [ROW_TILE, COLS], valid_shape=[rows, COLS],
                            target_memory=pl.MemorySpace.Vec)
            magnitude = pl.abs(block)
            y[r0 : r0 + ROW_TILE, :] = pl.set_validshape(magnitude, rows, COLS)
    return y
