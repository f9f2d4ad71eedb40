"""Input projections of a gated linear-attention (delta-rule) layer, FP32.

``qk_proj`` produces the query and key feature maps together; ``beta_proj`` the
per-head write strength (sigmoid), with a non-pipelined loop walked by offset;
``decay_proj`` the per-head decay gate ``exp(-softplus-like(...))`` approximated on
the vector unit.
"""

import pypto.language as pl

ROWS = 16
D = 1024
QK = 128
HEADS = 32
N_TILE = 64
K_TILE = 128
G_K_TILE = 256


@pl.jit
def qk_proj(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    wq: pl.Tensor[[QK, D], pl.FP32],
    wk: pl.Tensor[[QK, D], pl.FP32],
    q: pl.Out[pl.Tensor[[ROWS, QK], pl.FP32]],
    k: pl.Out[pl.Tensor[[ROWS, QK], pl.FP32]],
):
    for n0 in pl.parallel(0, QK, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="qk_proj"):
            q_acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            k_acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(D // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wqb = wq[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                wkb = wk[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    q_acc = pl.matmul(xa, wqb, b_trans=True)
                    k_acc = pl.matmul(xa, wkb, b_trans=True)
                else:
                    q_acc = pl.matmul_acc(q_acc, xa, wqb, b_trans=True)
                    k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
            q[:, n0 : n0 + N_TILE] = pl.maximum(q_acc, 0.0)
            k[:, n0 : n0 + N_TILE] = pl.maximum(k_acc, 0.0)
    return q, k


@pl.jit
def beta_proj(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    w_beta: pl.Tensor[[D, HEADS], pl.FP32],
    beta: pl.Out[pl.Tensor[[ROWS, HEADS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="beta_proj"):
        acc = pl.create_tensor([ROWS, HEADS], dtype=pl.FP32)
        for k0 in pl.range(0, D, G_K_TILE):
            xa = x[:, k0 : k0 + G_K_TILE]
            wb = w_beta[k0 : k0 + G_K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        beta[:, :] = pl.recip(pl.add(pl.exp(pl.neg(acc)), 1.0))
    return beta


@pl.jit
def decay_proj(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    w_decay: pl.Tensor[[D, HEADS], pl.FP32],
    decay: pl.Out[pl.Tensor[[ROWS, HEADS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="decay_proj"):
        acc = pl.create_tensor([ROWS, HEADS], dtype=pl.FP32)
        for kb in pl.pipeline(D // G_K_TILE, stage=2):
            k0 = kb * G_K_TILE
            xa = x[:, k0 : k0 + G_K_TILE]
            wb = w_decay[k0 : k0 + G_K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        decay[:, :] = pl.exp(pl.neg(pl.exp(acc)))
    return decay
