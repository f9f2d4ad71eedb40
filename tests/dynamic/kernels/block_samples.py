"""Kernels whose launcher gives their block index and whose token count is a ``pl.dynamic`` size: the block
count is sampled with the sizes, enough blocks of ``ROW_TILE`` rows to cover the tokens (the last one partial).

``_gain_token_rows`` scales the ``ROW_TILE`` rows of its block, the ragged last block through a ``valid_shape``
load and store: it runs at ``TOKENS=16`` on 2 blocks and at ``TOKENS=20`` on 3 (a launcher's
``ceil(TOKENS / ROW_TILE)`` grid). ``_gain_token_halves`` reads its block's rows as two windows of different
heights (``ROW_TILE`` and ``HALF_TILE`` rows from the block index): which one a block spans is not said, so it
keeps the sample block count and the samples of a unit of one token, where its windows exceed the tokens: it
is not simulated, and says why.
"""

import pypto.language as pl

COLS = 128
ROW_TILE = 8
HALF_TILE = 4
TOKENS = pl.dynamic("TOKENS")


@pl.jit.inline
def _gain_token_rows(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Tensor[[TOKENS, COLS], pl.FP32]):
    r0 = pl.tile.get_block_idx() * ROW_TILE
    rows = pl.min(ROW_TILE, pl.tensor.dim(x, 0) - r0)
    band = pl.load(x, [r0, 0], [ROW_TILE, COLS], valid_shape=[rows, COLS], target_memory=pl.MemorySpace.Vec)
    gained = pl.mul(band, 3.0)
    kept = pl.set_validshape(gained, rows, COLS)
    pl.store(kept, [r0, 0], y)


@pl.jit.inline
def _gain_token_halves(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Tensor[[TOKENS, COLS], pl.FP32]):
    blk = pl.tile.get_block_idx()
    r0 = blk * ROW_TILE
    rows = pl.min(ROW_TILE, pl.tensor.dim(x, 0) - r0)
    band = pl.load(x, [r0, 0], [ROW_TILE, COLS], valid_shape=[rows, COLS], target_memory=pl.MemorySpace.Vec)
    head = pl.load(x, [blk * HALF_TILE, 0], [HALF_TILE, COLS], target_memory=pl.MemorySpace.Vec)
    gained = pl.mul(band, 3.0)
    kept = pl.set_validshape(gained, rows, COLS)
    pl.store(kept, [r0, 0], y)
