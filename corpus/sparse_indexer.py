"""Lightning-indexer front end: int8 index queries and per-head BF16 gating weights.

``index_q`` expands the int8 low-rank query into the index heads (K walked by offset,
three steps of 512); ``index_weights`` projects the BF16 hidden state onto one weight
per index head and folds in the softmax scale of the head dimension.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, Q_LORA

IDX_HEADS = 8
IDX_DIM = 128
IDX_Q = IDX_HEADS * IDX_DIM
Q_N_TILE = 256
Q_K_TILE = 512
W_HEADS = 32
W_K_TILE = 256
W_SCALE = IDX_DIM ** -0.5


@pl.jit
def index_q(
    qr_i8: pl.Tensor[[BATCH, Q_LORA], pl.INT8],
    wq_idx: pl.Tensor[[IDX_Q, Q_LORA], pl.INT8],
    q_idx: pl.Out[pl.Tensor[[BATCH, IDX_Q], pl.INT32]],
):
    for qb in pl.spmd(IDX_Q // Q_N_TILE, name_hint="index_q"):
        q0 = qb * Q_N_TILE
        q_acc = pl.create_tensor([BATCH, Q_N_TILE], dtype=pl.INT32)
        for k0 in pl.pipeline(0, Q_LORA, Q_K_TILE, stage=2):
            qa = qr_i8[:, k0 : k0 + Q_K_TILE]
            wb = wq_idx[q0 : q0 + Q_N_TILE, k0 : k0 + Q_K_TILE]
            if k0 == 0:
                q_acc = pl.matmul(qa, wb, b_trans=True)
            else:
                q_acc = pl.matmul_acc(q_acc, qa, wb, b_trans=True)
        q_idx[:, q0 : q0 + Q_N_TILE] = q_acc
    return q_idx


@pl.jit
def index_weights(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_proj: pl.Tensor[[HIDDEN, W_HEADS], pl.BF16],
    weights: pl.Out[pl.Tensor[[BATCH, W_HEADS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="index_weights"):
        w_acc = pl.create_tensor([BATCH, W_HEADS], dtype=pl.FP32)
        for db in pl.pipeline(HIDDEN // W_K_TILE, stage=2):
            d0 = db * W_K_TILE
            xa = x[:, d0 : d0 + W_K_TILE]
            wb = w_proj[d0 : d0 + W_K_TILE, :]
            if db == 0:
                w_acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                w_acc = pl.matmul_acc(w_acc, xa, wb)
        weights[:, :] = pl.mul(w_acc, W_SCALE)
    return weights
