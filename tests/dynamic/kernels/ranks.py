"""Kernels of several ranks (`pypto.language.distributed`): the simulation runs every rank over shared windows
(issue 14, item 2). Each is written for `N_RANKS` ranks: its loops over the peers run to `N_RANKS`.

``pair_sum`` is a two-rank all-reduce of two rows: each rank stages its rows in its `stage` window, signals its
peer, waits for the peer's signal, then adds the peer's rows (`remote_load`). ``scatter_rows`` puts one block of
rows to every rank (itself too, `pld.tensor.put`), signals each, waits for all, and reads back what it received.
``flag_exchange`` pushes its scaled rows into the peer's `inbox` (`remote_store`), raises a flag there
(`NotifyOp.Set`) and waits for its own flag to equal 1 (`WaitCmp.Eq`). The twins are wrong:
``pair_sum_no_wait`` reads its peer's rows without waiting for its signal (a race between the ranks),
``flag_exchange_never`` waits for a flag no rank raises (every rank waits: a deadlock).
``routed_put`` puts rows at offsets read from an index table (which another kernel fills): not simulated, and
it says why (``owned_sum``, last, reads an owner table: see its comment).
The tests mutate the lowered forms for the rest (a wrong peer, a wrong offset).
"""

import pypto.language as pl
import pypto.language.distributed as pld

N_RANKS = 2
ROWS = 2
COLS = 128
BLOCK = 4
WIDTH = 64


@pl.jit.incore
def pair_sum(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    mine = pl.load(x, [0, 0], [ROWS, COLS])
    stage = pl.store(mine, [0, 0], stage)
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.system.notify(ready, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    for other in pl.range(N_RANKS):
        if other != me:
            pld.system.wait(signal=ready, offsets=[other, 0], expected=1, cmp=pld.WaitCmp.Ge)
    total = pl.load(stage, [0, 0], [ROWS, COLS])
    for peer in pl.range(N_RANKS):
        if peer != me:
            theirs = pld.tile.remote_load(stage, peer=peer, offsets=[0, 0], shape=[ROWS, COLS])
            total = pl.add(total, theirs)
    return pl.store(total, [0, 0], y)


@pl.jit.incore
def pair_sum_no_wait(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    me: pl.Scalar[pl.INT32],
):
    mine = pl.load(x, [0, 0], [ROWS, COLS])
    stage = pl.store(mine, [0, 0], stage)
    total = pl.load(stage, [0, 0], [ROWS, COLS])
    for peer in pl.range(N_RANKS):
        if peer != me:
            theirs = pld.tile.remote_load(stage, peer=peer, offsets=[0, 0], shape=[ROWS, COLS])
            total = pl.add(total, theirs)
    return pl.store(total, [0, 0], y)


@pl.jit.incore
def scatter_rows(
    x: pl.Tensor[[N_RANKS * BLOCK, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[N_RANKS * BLOCK, WIDTH], pl.FP32]],
    inbox: pld.DistributedTensor[[N_RANKS * BLOCK, WIDTH], pl.FP32],
    arrived: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    # block `dst` of my rows goes to rank `dst`, into the rows it keeps for me
    for dst in pl.range(N_RANKS):
        pld.tensor.put(
            dst=inbox,
            peer=dst,
            src=x,
            dst_offsets=[me * BLOCK, 0],
            src_offsets=[dst * BLOCK, 0],
            shape=[BLOCK, WIDTH],
        )
    for dst in pl.range(N_RANKS):
        if dst == me:
            pass
        else:
            pld.system.notify(arrived, peer=dst, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(N_RANKS):
        if src != me:
            pld.system.wait(signal=arrived, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
    got = pl.load(inbox, [0, 0], [N_RANKS * BLOCK, WIDTH])
    return pl.store(got, [0, 0], y)


@pl.jit.incore
def flag_exchange(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    flag: pld.DistributedTensor[[1, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    scaled = pl.mul(rows, 3.0)
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.tile.remote_store(scaled, inbox, peer, [0, 0])
            pld.system.notify(flag, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
    pld.system.wait(signal=flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Eq)
    got = pl.load(inbox, [0, 0], [ROWS, COLS])
    return pl.store(got, [0, 0], y)


@pl.jit.incore
def flag_exchange_never(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    inbox: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    flag: pld.DistributedTensor[[1, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.tile.remote_store(rows, inbox, peer, [0, 0])
            pld.system.notify(flag, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.Set)
    pld.system.wait(signal=flag, offsets=[0, 0], expected=2, cmp=pld.WaitCmp.Eq)
    got = pl.load(inbox, [0, 0], [ROWS, COLS])
    return pl.store(got, [0, 0], y)


@pl.jit.incore
def routed_put(
    x: pl.Tensor[[BLOCK, WIDTH], pl.FP32],
    routes: pl.Tensor[[BLOCK], pl.INT32],
    y: pl.Out[pl.Tensor[[BLOCK, WIDTH], pl.FP32]],
    inbox: pld.DistributedTensor[[N_RANKS * BLOCK, WIDTH], pl.FP32],
    me: pl.Scalar[pl.INT32],
):
    rows = pl.load(x, [0, 0], [BLOCK, WIDTH])
    y = pl.store(rows, [0, 0], y)
    for dst in pl.range(N_RANKS):
        if dst != me:
            for row in pl.range(BLOCK):
                at = pl.cast(pl.read(routes, [row]), pl.INDEX)
                pld.tensor.put(dst=inbox, peer=dst, src=x, dst_offsets=[at, 0], src_offsets=[row, 0], shape=[1, WIDTH])


@pl.jit.incore
def owned_sum(
    owner: pl.Tensor[[N_RANKS], pl.INT32],
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    stage: pld.DistributedTensor[[ROWS, COLS], pl.FP32],
    ready: pld.DistributedTensor[[N_RANKS, 1], pl.INT32],
    me: pl.Scalar[pl.INT32],
):
    # as a context-parallel exchange does: the owner table (filled by another kernel, one entry per rank's stage)
    # says whose stage is remote, and only a remote owner is waited for
    mine = pl.load(x, [0, 0], [ROWS, COLS])
    stage = pl.store(mine, [0, 0], stage)
    for peer in pl.range(N_RANKS):
        if peer != me:
            pld.system.notify(ready, peer=peer, offsets=[me, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    total = pl.load(stage, [0, 0], [ROWS, COLS])
    for src in pl.range(N_RANKS):
        if src != me:
            holder = owner[src]
            if holder != me:
                pld.system.wait(signal=ready, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
            theirs = pld.tile.remote_load(stage, peer=src, offsets=[0, 0], shape=[ROWS, COLS])
            total = pl.add(total, theirs)
    return pl.store(total, [0, 0], y)
