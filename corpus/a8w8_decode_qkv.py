"""W8A8 Q/K/V projections (decode): int8 activations and weights, INT32 accumulation,
dequantised on the vector unit with per-token and per-channel scales.

The key/value kernel shares the activation slice between two INT32 chains; its
narrower K step keeps both weight slices within the staging budget.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, KV_HIDDEN, Q_HIDDEN

Q_N_TILE = 256
Q_K_TILE = 512
KV_N_TILE = 256
KV_K_TILE = 256


@pl.jit
def a8w8_q(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    x_scale: pl.Tensor[[BATCH, 1], pl.FP32],
    wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.INT8],
    wq_scale: pl.Tensor[[1, Q_HIDDEN], pl.FP32],
    q: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
):
    for qi in pl.spmd(Q_HIDDEN // Q_N_TILE, name_hint="a8w8_q"):
        n0 = qi * Q_N_TILE
        acc = pl.create_tensor([BATCH, Q_N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // Q_K_TILE, stage=2):
            k0 = kb * Q_K_TILE
            xa = x_i8[:, k0 : k0 + Q_K_TILE]
            wb = wq[n0 : n0 + Q_N_TILE, k0 : k0 + Q_K_TILE]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        deq = pl.row_expand_mul(pl.cast(acc, target_type=pl.FP32), x_scale)
        q[:, n0 : n0 + Q_N_TILE] = pl.col_expand_mul(deq, wq_scale[:, n0 : n0 + Q_N_TILE])
    return q


@pl.jit
def a8w8_kv(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    x_scale: pl.Tensor[[BATCH, 1], pl.FP32],
    wk: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.INT8],
    wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.INT8],
    wk_scale: pl.Tensor[[1, KV_HIDDEN], pl.FP32],
    wv_scale: pl.Tensor[[1, KV_HIDDEN], pl.FP32],
    k: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
    v: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
):
    for kvi in pl.spmd(KV_HIDDEN // KV_N_TILE, name_hint="a8w8_kv"):
        n0 = kvi * KV_N_TILE
        k_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.INT32)
        v_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // KV_K_TILE, stage=2):
            k0 = kb * KV_K_TILE
            xa = x_i8[:, k0 : k0 + KV_K_TILE]
            wkb = wk[n0 : n0 + KV_N_TILE, k0 : k0 + KV_K_TILE]
            wvb = wv[n0 : n0 + KV_N_TILE, k0 : k0 + KV_K_TILE]
            if k0 == 0:
                k_acc = pl.matmul(xa, wkb, b_trans=True)
                v_acc = pl.matmul(xa, wvb, b_trans=True)
            else:
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
                v_acc = pl.matmul_acc(v_acc, xa, wvb, b_trans=True)
        kf = pl.row_expand_mul(pl.cast(k_acc, target_type=pl.FP32), x_scale)
        vf = pl.row_expand_mul(pl.cast(v_acc, target_type=pl.FP32), x_scale)
        k = pl.assemble(k, pl.col_expand_mul(kf, wk_scale[:, n0 : n0 + KV_N_TILE]), [0, n0])
        v = pl.assemble(v, pl.col_expand_mul(vf, wv_scale[:, n0 : n0 + KV_N_TILE]), [0, n0])
    return k, v
