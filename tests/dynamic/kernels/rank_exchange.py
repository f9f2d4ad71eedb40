"""A kernel whose call reaches another rank's window through an orchestration: ``staged_exchange`` scales its rows,
then calls ``exchange`` (no tile op of its own: not a kernel), which calls ``push_rows``, a kernel storing into a
peer's window (`pld.tile.remote_store`), as a prefill layer's MoE tail calls `moe`, which calls `dispatch`. The
calls are spliced and the multi-rank run reads the ops of ``push_rows`` as the kernel's: its peer is a parameter,
not a loop over the ranks, so the number of ranks is not known, and the skip names the op in ``push_rows``.
``table`` is a vocabulary's worth of rows the kernel reads one of: too large to simulate at its real size (it is
shrunk). ``relay``, which no function here calls, is the one `rank_exchange_caller.py` imports."""

import pypto.language as pl
import pypto.language.distributed as pld

ROWS = 16
COLS = 64
BAND = 8
VOCAB = 1 << 18


@pl.jit.inline
def push_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], window: pld.DistributedTensor[[ROWS, COLS], pl.FP32], peer: pl.Scalar[pl.INT32]
):
    with pl.spmd(ROWS // BAND, name_hint="push_rows"):
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        pld.tile.remote_store(band, window, peer, [r0, 0])
    return window


@pl.jit.inline
def exchange(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], window: pld.DistributedTensor[[ROWS, COLS], pl.FP32], peer: pl.Scalar[pl.INT32]
):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    staged = pl.assemble(staged, x, [0, 0])
    push_rows(staged, window, peer)
    return window


@pl.jit.inline
def relay(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], window: pld.DistributedTensor[[ROWS, COLS], pl.FP32], peer: pl.Scalar[pl.INT32]
):
    push_rows(x, window, peer)
    return window


@pl.jit
def staged_exchange(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    table: pl.Tensor[[VOCAB, COLS], pl.FP32],
    window: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    peer: pl.Scalar[pl.INT32],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        first = pl.load(table, [0, 0], [1, COLS])
        scaled = pl.col_expand_mul(rows, first)
        y = pl.store(scaled, [0, 0], y)
    exchange(y, window, peer)
    return y
