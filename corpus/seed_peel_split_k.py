"""Split-K projections in the peeled style (decode): each SPMD block owns one column
tile and one K slice, seeds its accumulator with the slice's first block, pipelines
the remaining blocks, and atomically adds the partial sum into a zero-seeded output.

``split_q`` has one chain per block; ``split_kv`` runs the key and value chains of a
block side by side on the same activation slices.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, KV_HIDDEN, Q_HIDDEN

N_TILE = 256
K_TILE = 256
Q_SPLIT = 4
Q_K_SLICE = HIDDEN // Q_SPLIT             # 512 = 2 blocks
Q_K_CHUNKS = Q_K_SLICE // K_TILE
KV_N_TILE = 64
KV_SPLIT = 2
KV_K_SLICE = HIDDEN // KV_SPLIT           # 1024 = 4 blocks
KV_K_CHUNKS = KV_K_SLICE // K_TILE


@pl.jit
def split_q(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    wq: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
    q: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="q_zero"):
        for z0 in pl.pipeline(0, Q_HIDDEN, N_TILE, stage=2):
            q = pl.assemble(q, pl.full([BATCH, N_TILE], dtype=pl.FP32, value=0.0), [0, z0])
    for blk in pl.spmd((Q_HIDDEN // N_TILE) * Q_SPLIT, name_hint="q_split"):
        n0 = (blk // Q_SPLIT) * N_TILE
        k_base = (blk % Q_SPLIT) * Q_K_SLICE
        q_acc = pl.matmul(x[:, k_base : k_base + K_TILE], wq[k_base : k_base + K_TILE, n0 : n0 + N_TILE], out_dtype=pl.FP32)
        for kc in pl.pipeline(1, Q_K_CHUNKS, stage=2):
            kk = k_base + kc * K_TILE
            q_acc = pl.matmul_acc(q_acc, x[:, kk : kk + K_TILE], wq[kk : kk + K_TILE, n0 : n0 + N_TILE])
        q = pl.assemble(q, q_acc, [0, n0], atomic=pl.AtomicType.Add)
    return q


@pl.jit
def split_kv(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    wk: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    wv: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    k: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
    v: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kv_zero"):
        k = pl.assemble(k, pl.full([BATCH, KV_HIDDEN], dtype=pl.FP32, value=0.0), [0, 0])
        v = pl.assemble(v, pl.full([BATCH, KV_HIDDEN], dtype=pl.FP32, value=0.0), [0, 0])
    for blk in pl.spmd((KV_HIDDEN // KV_N_TILE) * KV_SPLIT, name_hint="kv_split"):
        n0 = (blk // KV_SPLIT) * KV_N_TILE
        k_base = (blk % KV_SPLIT) * KV_K_SLICE
        xa0 = x[:, k_base : k_base + K_TILE]
        k_acc = pl.matmul(xa0, wk[k_base : k_base + K_TILE, n0 : n0 + KV_N_TILE], out_dtype=pl.FP32)
        v_acc = pl.matmul(xa0, wv[k_base : k_base + K_TILE, n0 : n0 + KV_N_TILE], out_dtype=pl.FP32)
        for kc in pl.pipeline(1, KV_K_CHUNKS, stage=2):
            kk = k_base + kc * K_TILE
            xa = x[:, kk : kk + K_TILE]
            k_acc = pl.matmul_acc(k_acc, xa, wk[kk : kk + K_TILE, n0 : n0 + KV_N_TILE])
            v_acc = pl.matmul_acc(v_acc, xa, wv[kk : kk + K_TILE, n0 : n0 + KV_N_TILE])
        k = pl.assemble(k, k_acc, [0, n0], atomic=pl.AtomicType.Add)
        v = pl.assemble(v, v_acc, [0, n0], atomic=pl.AtomicType.Add)
    return k, v
