"""W8A8 query/key projections followed by rotary embedding, and the value projection.

Query and key column tiles of one head are produced in one K loop (shared int8
activation slice); the vector stage dequantises and rotates the two halves of each
head with the position's cos/sin rows.
"""

import pypto.language as pl

from model_config import BATCH, HEAD_DIM, HIDDEN, ROPE_DIM

HEADS = 4
QK_N = HEADS * HEAD_DIM
K_TILE = 256
V_N = 256
V_K = 512
DQ = 1.0 / 1024.0


@pl.jit
def qk_rope_i8(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    wq: pl.Tensor[[QK_N, HIDDEN], pl.INT8],
    wk: pl.Tensor[[QK_N, HIDDEN], pl.INT8],
    cos: pl.Tensor[[BATCH, ROPE_DIM], pl.FP32],
    sin: pl.Tensor[[BATCH, ROPE_DIM], pl.FP32],
    q: pl.Out[pl.Tensor[[BATCH, QK_N], pl.FP32]],
    k: pl.Out[pl.Tensor[[BATCH, QK_N], pl.FP32]],
):
    for h in pl.spmd(HEADS, name_hint="qk_rope_i8"):
        c0 = h * HEAD_DIM
        q_acc = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.INT32)
        k_acc = pl.create_tensor([BATCH, HEAD_DIM], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x_i8[:, k0 : k0 + K_TILE]
            wqb = wq[c0 : c0 + HEAD_DIM, k0 : k0 + K_TILE]
            wkb = wk[c0 : c0 + HEAD_DIM, k0 : k0 + K_TILE]
            if k0 == 0:
                q_acc = pl.matmul(xa, wqb, b_trans=True)
                k_acc = pl.matmul(xa, wkb, b_trans=True)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wqb, b_trans=True)
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
        qf = pl.mul(pl.cast(q_acc, target_type=pl.FP32), DQ)
        kf = pl.mul(pl.cast(k_acc, target_type=pl.FP32), DQ)
        q_lo = qf[0:BATCH, 0:ROPE_DIM]
        q_hi = qf[0:BATCH, ROPE_DIM:HEAD_DIM]
        k_lo = kf[0:BATCH, 0:ROPE_DIM]
        k_hi = kf[0:BATCH, ROPE_DIM:HEAD_DIM]
        q[:, c0 : c0 + ROPE_DIM] = pl.sub(pl.mul(q_lo, cos), pl.mul(q_hi, sin))
        q[:, c0 + ROPE_DIM : c0 + HEAD_DIM] = pl.add(pl.mul(q_hi, cos), pl.mul(q_lo, sin))
        k[:, c0 : c0 + ROPE_DIM] = pl.sub(pl.mul(k_lo, cos), pl.mul(k_hi, sin))
        k[:, c0 + ROPE_DIM : c0 + HEAD_DIM] = pl.add(pl.mul(k_hi, cos), pl.mul(k_lo, sin))
    return q, k


@pl.jit
def v_proj_i8(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    wv: pl.Tensor[[V_N, HIDDEN], pl.INT8],
    v: pl.Out[pl.Tensor[[BATCH, V_N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="v_proj_i8"):
        acc = pl.create_tensor([BATCH, V_N], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // V_K, stage=2):
            k0 = kb * V_K
            xa = x_i8[:, k0 : k0 + V_K]
            wb = wv[:, k0 : k0 + V_K]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        v[:, :] = pl.mul(pl.cast(acc, target_type=pl.FP32), DQ)
    return v
