"""A kernel whose distributed ops are all in the functions it calls, as a prefill layer's MoE tail reaches
`dispatch` / `combine` through `moe`: the multi-rank run follows the calls.

``gathered_rows`` scales its rows into a staging tensor, then calls ``_share_rows`` (no tile op: not a kernel),
which puts the rows into every rank's `inbox`, itself included, at the rows kept for this rank, and calls
``_signal_peers`` and ``_wait_peers`` (two levels down) to raise each peer's `arrived` flag and wait for its own
ones; the kernel then reads back the whole inbox: every rank's scaled rows, in rank order. Each is written for
`N_RANKS` ranks (its loops over the peers run to `N_RANKS`), the rank in `my_rank`, which every call passes on.
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
ROWS = 8
COLS = 64


@pl.jit.inline
def _signal_peers(arrived: pld.DistributedTensor[[N_RANKS, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32]):
    for dst in pl.range(N_RANKS):
        if dst != my_rank:
            pld.system.notify(arrived, peer=dst, offsets=[my_rank, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    return arrived


@pl.jit.inline
def _wait_peers(arrived: pld.DistributedTensor[[N_RANKS, 1], pl.INT32], my_rank: pl.Scalar[pl.INT32]):
    for src in pl.range(N_RANKS):
        if src != my_rank:
            pld.system.wait(signal=arrived, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
    return arrived


@pl.jit.inline
def _share_rows(
    rows: pl.Tensor[[ROWS, COLS], pl.FP32],
    inbox: pld.DistributedTensor[[N_RANKS * ROWS, COLS], pl.FP32],
    arrived: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
    my_rank: pl.Scalar[pl.INT32],
):
    # my rows go to every rank (me too), into the rows each keeps for me
    for dst in pl.range(N_RANKS):
        pld.tensor.put(
            dst=inbox,
            peer=dst,
            src=rows,
            dst_offsets=[my_rank * ROWS, 0],
            src_offsets=[0, 0],
            shape=[ROWS, COLS],
        )
    _signal_peers(arrived, my_rank)
    _wait_peers(arrived, my_rank)
    return inbox


@pl.jit
def gathered_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    inbox: pld.DistributedTensor[[N_RANKS * ROWS, COLS], pl.FP32],
    arrived: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
    y: pl.Out[pl.Tensor[[N_RANKS * ROWS, COLS], pl.FP32]],
    my_rank: pl.Scalar[pl.INT32],
):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        scaled = pl.mul(rows, 2.0)
        staged = pl.store(scaled, [0, 0], staged)
    _share_rows(staged, inbox, arrived, my_rank)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather"):
        got = pl.load(inbox, [0, 0], [N_RANKS * ROWS, COLS])
        y = pl.store(got, [0, 0], y)
    return y
