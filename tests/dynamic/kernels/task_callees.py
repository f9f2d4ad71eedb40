"""Task ids through a helper that is not a kernel, in the shape of prefill_sparse_attn's `_sparse_attn_heads`: the
helper keeps the last task in a task-id array, passes it to each launch it calls as its dependency and picks it in
an `if` (a copy, an `if`'s phi, an array element: none has a value, and none is read as one).

``chained_bands`` copies ``x`` into ``y``, then ``_chain_bands`` doubles each band of ``y`` in place that ``count``
reaches, one launch of two blocks per band (``_double_band``, each block its half), each after the last.
The twin ``chained_bands_crossed`` calls ``_chain_bands_crossed``, whose ``_double_band_crossed`` writes each
block's half over the other block's (a wrong offset): what a block reads then depends on whether the other block
has run yet, which the simulation shows as a mismatch."""

import pypto.language as pl

ROWS = 32
COLS = 64
TILE = 8
HALF = TILE // 2
BANDS = ROWS // TILE


@pl.jit.inline
def _double_band(y: pl.Tensor[[ROWS, COLS], pl.FP32], band: pl.Scalar[pl.INDEX],
                 prior: pl.Scalar[pl.TASK_ID]) -> pl.Scalar[pl.TASK_ID]:
    with pl.spmd(2, name_hint="double_band", deps=[prior]) as band_tid:
        r0 = band * TILE + pl.tile.get_block_idx() * HALF
        rows = pl.load(y, [r0, 0], [HALF, COLS])
        doubled = pl.mul(rows, 2.0)
        y = pl.store(doubled, [r0, 0], y)
    return band_tid


@pl.jit.inline
def _double_band_crossed(y: pl.Tensor[[ROWS, COLS], pl.FP32], band: pl.Scalar[pl.INDEX],
                         prior: pl.Scalar[pl.TASK_ID]) -> pl.Scalar[pl.TASK_ID]:
    with pl.spmd(2, name_hint="double_band_crossed", deps=[prior]) as band_tid:
        blk = pl.tile.get_block_idx()
        rows = pl.load(y, [band * TILE + blk * HALF, 0], [HALF, COLS])
        doubled = pl.mul(rows, 2.0)
        y = pl.store(doubled, [band * TILE + (1 - blk) * HALF, 0], y)
    return band_tid


@pl.jit.inline
def _chain_bands(y: pl.Tensor[[ROWS, COLS], pl.FP32], count: pl.Scalar[pl.INDEX]):
    tids = pl.array.create(1, pl.TASK_ID)
    tids[0] = pl.system.task_dummy(deps=[])
    for band in pl.unroll(BANDS):
        prior = tids[0]
        tid = prior
        if band < count:
            tid = _double_band(y, band, prior)
        tids[0] = tid
    return y


@pl.jit.inline
def _chain_bands_crossed(y: pl.Tensor[[ROWS, COLS], pl.FP32], count: pl.Scalar[pl.INDEX]):
    tids = pl.array.create(1, pl.TASK_ID)
    tids[0] = pl.system.task_dummy(deps=[])
    for band in pl.unroll(BANDS):
        prior = tids[0]
        tid = prior
        if band < count:
            tid = _double_band_crossed(y, band, prior)
        tids[0] = tid
    return y


@pl.jit
def chained_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], count: pl.Scalar[pl.INDEX],
                  y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_in"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        y = pl.store(rows, [0, 0], y)
    y = _chain_bands(y, count)
    return y


@pl.jit
def chained_bands_crossed(x: pl.Tensor[[ROWS, COLS], pl.FP32], count: pl.Scalar[pl.INDEX],
                          y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_in"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        y = pl.store(rows, [0, 0], y)
    y = _chain_bands_crossed(y, count)
    return y
