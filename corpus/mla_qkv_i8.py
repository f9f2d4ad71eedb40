"""Low-rank attention input projections, int8 (decode, compact hidden size).

``q_a_proj`` compresses the hidden state to the query latent; ``kv_a_proj`` produces the
KV latent and its gate tile together from one activation slice; ``q_b_proj`` expands
the (re-quantised) query latent to the heads, K walked over the 1536-wide latent.
All weights are ``[N, K]`` int8; results are INT32 until the vector stages.
"""

import pypto.language as pl

from .model_config import KV_LORA, Q_LORA

T = 16
D = 2048
Q_HEADS_DIM = 1024
N_TILE = 256
K_TILE = 512
KV_K_TILE = 256


@pl.jit
def q_a_proj(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    wq_a: pl.Tensor[[Q_LORA, D], pl.INT8],
    qr: pl.Out[pl.Tensor[[T, Q_LORA], pl.INT32]],
):
    for nb in pl.spmd(Q_LORA // N_TILE, name_hint="q_a_proj"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(D // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x_i8[:, k0 : k0 + K_TILE]
            wb = wq_a[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        qr = pl.assemble(qr, acc, [0, n0])
    return qr


@pl.jit
def kv_a_proj(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    wkv_a: pl.Tensor[[KV_LORA, D], pl.INT8],
    wkv_g: pl.Tensor[[KV_LORA, D], pl.INT8],
    kv: pl.Out[pl.Tensor[[T, KV_LORA], pl.FP32]],
):
    for nb in pl.spmd(KV_LORA // N_TILE, name_hint="kv_a_proj"):
        n0 = nb * N_TILE
        kv_acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        g_acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(D // KV_K_TILE, stage=2):
            k0 = kb * KV_K_TILE
            xa = x_i8[:, k0 : k0 + KV_K_TILE]
            wkv = wkv_a[n0 : n0 + N_TILE, k0 : k0 + KV_K_TILE]
            wg = wkv_g[n0 : n0 + N_TILE, k0 : k0 + KV_K_TILE]
            if k0 == 0:
                kv_acc = pl.matmul(xa, wkv, b_trans=True)
                g_acc = pl.matmul(xa, wg, b_trans=True)
            else:
                kv_acc = pl.matmul_acc(kv_acc, xa, wkv, b_trans=True)
                g_acc = pl.matmul_acc(g_acc, xa, wg, b_trans=True)
        gate = pl.recip(pl.add(pl.exp(pl.neg(pl.cast(g_acc, target_type=pl.FP32))), 1.0))
        kv[:, n0 : n0 + N_TILE] = pl.mul(pl.cast(kv_acc, target_type=pl.FP32), gate)
    return kv


@pl.jit
def q_b_proj(
    qr_i8: pl.Tensor[[T, Q_LORA], pl.INT8],
    wq_b: pl.Tensor[[Q_HEADS_DIM, Q_LORA], pl.INT8],
    q: pl.Out[pl.Tensor[[T, Q_HEADS_DIM], pl.INT32]],
):
    for nb in pl.spmd(Q_HEADS_DIM // N_TILE, name_hint="q_b_proj"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(Q_LORA // K_TILE, stage=2):
            k0 = kb * K_TILE
            qa = qr_i8[:, k0 : k0 + K_TILE]
            wb = wq_b[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(qa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, qa, wb, b_trans=True)
        q[:, n0 : n0 + N_TILE] = acc
    return q
