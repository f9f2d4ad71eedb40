"""Low-rank KV down-projection with split-K across SPMD blocks (int8, decode).

The 7168-wide reduction is cut into ``SPLIT_K`` slices; every block reduces its own
slice from a fresh accumulator and atomically adds the partial sum into a
zero-seeded INT32 output. ``kv_a_proj`` keys the seed on the block-local step index,
``kr_proj`` on the block-local offset ``kk`` (never on the global offset, which is zero
only in the first slice).
"""

import pypto.language as pl

from model_config import KV_LORA, MOE_HIDDEN, MOE_TOKENS

T = MOE_TOKENS
D = MOE_HIDDEN
N_TILE = 256
K_TILE = 512
SPLIT_K = 2
K_SLICE = D // SPLIT_K            # 3584 = 7 steps of 512
ROPE_N = 64
KR_SPLIT = 7
KR_SLICE = D // KR_SPLIT          # 1024 = 2 steps of 512


@pl.jit
def kv_a_proj(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    w_kv_a: pl.Tensor[[KV_LORA, D], pl.INT8],
    kv_i32: pl.Out[pl.Tensor[[T, KV_LORA], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kv_a_seed"):
        for n0 in pl.range(0, KV_LORA, N_TILE):
            kv_i32[:, n0 : n0 + N_TILE] = pl.full([T, N_TILE], dtype=pl.INT32, value=0)

    for blk in pl.spmd((KV_LORA // N_TILE) * SPLIT_K, name_hint="kv_a_mm"):
        n0 = (blk // SPLIT_K) * N_TILE
        k_base = (blk % SPLIT_K) * K_SLICE
        acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(K_SLICE // K_TILE, stage=2):
            k0 = k_base + kb * K_TILE
            xa = x_i8[:, k0 : k0 + K_TILE]
            wb = w_kv_a[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        kv_i32 = pl.assemble(kv_i32, acc, [0, n0], atomic=pl.AtomicType.Add)
    return kv_i32


@pl.jit
def kr_proj(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    w_kr: pl.Tensor[[ROPE_N, D], pl.INT8],
    kr_i32: pl.Out[pl.Tensor[[T, ROPE_N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kr_seed"):
        kr_i32[:, :] = pl.full([T, ROPE_N], dtype=pl.INT32, value=0)
    for ks in pl.parallel(KR_SPLIT):
        k_base = ks * KR_SLICE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="kr_mm"):
            acc = pl.create_tensor([T, ROPE_N], dtype=pl.INT32)
            for kb in pl.pipeline(KR_SLICE // K_TILE, stage=2):
                kk = kb * K_TILE
                k0 = k_base + kk
                xa = x_i8[:, k0 : k0 + K_TILE]
                wb = w_kr[:, k0 : k0 + K_TILE]
                if kk == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            kr_i32 = pl.assemble(kr_i32, acc, [0, 0], atomic=pl.AtomicType.Add)
    return kr_i32
