"""Int8 Q, K and V projections of a wide (7168) model as three separate SPMD stages,
each with its own seed form: derived offset, step index, and offset loop variable.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN

T = 16
D = MOE_HIDDEN
QN = 512
KVN = 256
N_TILE = 256
K_TILE = 512


@pl.jit
def attn_in_i8(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    wq: pl.Tensor[[QN, D], pl.INT8],
    wk: pl.Tensor[[KVN, D], pl.INT8],
    wv: pl.Tensor[[KVN, D], pl.INT8],
    q: pl.Out[pl.Tensor[[T, QN], pl.INT32]],
    k: pl.Out[pl.Tensor[[T, KVN], pl.INT32]],
    v: pl.Out[pl.Tensor[[T, KVN], pl.INT32]],
):
    for qb in pl.spmd(QN // N_TILE, name_hint="q_i8"):
        n0 = qb * N_TILE
        q_acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(D // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x_i8[:, k0 : k0 + K_TILE]
            wb = wq[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                q_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wb, b_trans=True)
        q = pl.assemble(q, q_acc, [0, n0])

    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k_i8"):
        k_acc = pl.create_tensor([T, KVN], dtype=pl.INT32)
        for kb in pl.pipeline(D // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x_i8[:, k0 : k0 + K_TILE]
            wb = wk[:, k0 : k0 + K_TILE]
            if kb == 0:
                k_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                k_acc = pl.matmul_acc(k_acc, xa, wb, b_trans=True)
        k[:, :] = k_acc

    with pl.at(level=pl.Level.CORE_GROUP, name_hint="v_i8"):
        v_acc = pl.create_tensor([T, KVN], dtype=pl.INT32)
        for k0 in pl.pipeline(0, D, K_TILE, stage=2):
            xa = x_i8[:, k0 : k0 + K_TILE]
            wb = wv[:, k0 : k0 + K_TILE]
            if k0 == 0:
                v_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                v_acc = pl.matmul_acc(v_acc, xa, wb, b_trans=True)
        v[:, :] = v_acc
    return q, k, v
