"""pypto-lib construct (issue 13, item 5; `deepseek_v4_flash_dspark/lm_head.py`): a cube projection whose accumulator crosses to the vector lanes with `pl.aiv_shard`
inside `pl.split_aiv` (the C->V edge), each lane pushing its row band to a peer's window.

The twin of `aiv_shard_push.py` whose K loop runs zero times (`D // K_TILE` is 0 at D = 128): the shard
takes an accumulator nothing wrote since its `pl.create_tensor`, a drain of undefined L0C (PV007)."""

import pypto.language as pl
import pypto.language.distributed as pld

T = 64
D = 128
N_OUT = 256
N_TILE = 128
K_TILE = 256
LANES = 2
SHARD_ROWS = T // LANES


@pl.jit
def shard_push_unwritten(x: pl.Tensor[[T, D], pl.BF16], w: pl.Tensor[[N_OUT, D], pl.BF16],
               window: pld.DistributedTensor[[T, N_OUT], pl.FP32], peer: pl.Scalar[pl.INT32]):
    with pl.spmd(N_OUT // N_TILE, name_hint="proj_push", optimizations=[pl.cross_core_slot(slot_num=2)]) as _tid:
        nb = pl.tile.get_block_idx()
        n0 = nb * N_TILE
        acc = pl.create_tensor([T, N_TILE], dtype=pl.FP32)
        for kb in pl.range(D // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[n0 : n0 + N_TILE, k0 : k0 + K_TILE], b_trans=True,
                                init_cond=(kb == 0))
        for aiv_id in pl.split_aiv(LANES, mode=pl.SplitMode.UP_DOWN):
            shard = pl.aiv_shard(acc)
            r0 = aiv_id * SHARD_ROWS
            pld.tensor.remote_store(shard, window, peer, [r0, n0])
    return window
