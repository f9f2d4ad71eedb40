"""Shared expert of an int8 MoE layer (decode, one 16-token tile).

Activations arrive already quantised per token (``x_i8`` with ``x_scale``), weights are
int8 per output channel (``*_scale``). Gate and up run as separate SPMD stages over the
7168-wide hidden size (14 K steps of 512); the vector stage dequantises, applies SiLU,
and requantises with a static activation scale before the down projection.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN, MOE_INTER, MOE_TOKENS

T = MOE_TOKENS
D = MOE_HIDDEN
INTER = MOE_INTER

GU_N_TILE = 256
GU_K_TILE = 512
DOWN_N_TILE = 256
DOWN_K_TILE = 128
H_QSCALE = 32.0          # static requantisation scale of the SiLU output
H_DQSCALE = 1.0 / H_QSCALE


@pl.jit.inline
def shared_expert(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    x_scale: pl.Tensor[[T, 1], pl.FP32],
    w1: pl.Tensor[[INTER, D], pl.INT8],
    w1_scale: pl.Tensor[[1, INTER], pl.FP32],
    w3: pl.Tensor[[INTER, D], pl.INT8],
    w3_scale: pl.Tensor[[1, INTER], pl.FP32],
    w2: pl.Tensor[[D, INTER], pl.INT8],
    w2_scale: pl.Tensor[[1, D], pl.FP32],
    y: pl.Out[pl.Tensor[[T, D], pl.BF16]],
):
    gate_i32 = pl.create_tensor([T, INTER], dtype=pl.INT32)
    up_i32 = pl.create_tensor([T, INTER], dtype=pl.INT32)

    for nb in pl.spmd(INTER // GU_N_TILE, name_hint="shared_gate"):
        n0 = nb * GU_N_TILE
        gate_acc = pl.create_tensor([T, GU_N_TILE], dtype=pl.INT32)
        for k0 in pl.pipeline(0, D, GU_K_TILE, stage=2):
            xk = x_i8[:, k0 : k0 + GU_K_TILE]
            w1k = w1[n0 : n0 + GU_N_TILE, k0 : k0 + GU_K_TILE]
            if k0 == 0:
                gate_acc = pl.matmul(xk, w1k, b_trans=True)
            else:
                gate_acc = pl.matmul_acc(gate_acc, xk, w1k, b_trans=True)
        gate_i32[:, n0 : n0 + GU_N_TILE] = gate_acc

    for nb in pl.spmd(INTER // GU_N_TILE, name_hint="shared_up"):
        n0 = nb * GU_N_TILE
        up_acc = pl.create_tensor([T, GU_N_TILE], dtype=pl.INT32)
        for k0 in pl.pipeline(0, D, GU_K_TILE, stage=2):
            xk = x_i8[:, k0 : k0 + GU_K_TILE]
            w3k = w3[n0 : n0 + GU_N_TILE, k0 : k0 + GU_K_TILE]
            if k0 == 0:
                up_acc = pl.matmul(xk, w3k, b_trans=True)
            else:
                up_acc = pl.matmul_acc(up_acc, xk, w3k, b_trans=True)
        up_i32[:, n0 : n0 + GU_N_TILE] = up_acc

    h_i8 = pl.create_tensor([T, INTER], dtype=pl.INT8)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shared_act"):
        g = pl.cast(gate_i32, target_type=pl.FP32)
        u = pl.cast(up_i32, target_type=pl.FP32)
        g = pl.col_expand_mul(pl.row_expand_mul(g, x_scale), w1_scale)
        u = pl.col_expand_mul(pl.row_expand_mul(u, x_scale), w3_scale)
        silu = pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0)))
        h = pl.mul(pl.mul(silu, u), H_QSCALE)
        h_i8 = pl.assemble(h_i8, pl.cast(h, target_type=pl.INT8, mode="rint"), [0, 0])

    for db in pl.spmd(D // DOWN_N_TILE, name_hint="shared_down"):
        d0 = db * DOWN_N_TILE
        down_acc = pl.create_tensor([T, DOWN_N_TILE], dtype=pl.INT32)
        for k0 in pl.pipeline(0, INTER, DOWN_K_TILE, stage=2):
            hk = h_i8[:, k0 : k0 + DOWN_K_TILE]
            w2k = w2[d0 : d0 + DOWN_N_TILE, k0 : k0 + DOWN_K_TILE]
            if k0 == 0:
                down_acc = pl.matmul(hk, w2k, b_trans=True)
            else:
                down_acc = pl.matmul_acc(down_acc, hk, w2k, b_trans=True)
        yf = pl.mul(pl.col_expand_mul(pl.cast(down_acc, target_type=pl.FP32), w2_scale[:, d0 : d0 + DOWN_N_TILE]), H_DQSCALE)
        y[:, d0 : d0 + DOWN_N_TILE] = pl.cast(yf, target_type=pl.BF16)
    return y


@pl.jit
def shared_expert_decode(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    x_scale: pl.Tensor[[T, 1], pl.FP32],
    w1: pl.Tensor[[INTER, D], pl.INT8],
    w1_scale: pl.Tensor[[1, INTER], pl.FP32],
    w3: pl.Tensor[[INTER, D], pl.INT8],
    w3_scale: pl.Tensor[[1, INTER], pl.FP32],
    w2: pl.Tensor[[D, INTER], pl.INT8],
    w2_scale: pl.Tensor[[1, D], pl.FP32],
    y: pl.Out[pl.Tensor[[T, D], pl.BF16]],
):
    y = shared_expert(x_i8, x_scale, w1, w1_scale, w3, w3_scale, w2, w2_scale, y)
    return y
