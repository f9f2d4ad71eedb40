"""W8A8 back half of a decode layer: output projection, gate, up and down, each an int8
cube stage with INT32 accumulators and a vector dequantisation after the K loop.

Kept as four separate SPMD stages (as deployed), so each has its own seed; all
weights are ``[N, K]`` int8 with per-channel FP32 scales.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, INTERMEDIATE, Q_HIDDEN

N_TILE = 256
K_TILE = 512
DOWN_K_TILE = 256
A_QSCALE = 64.0


@pl.jit
def a8w8_o_mlp(
    attn_i8: pl.Tensor[[BATCH, Q_HIDDEN], pl.INT8],
    attn_scale: pl.Tensor[[BATCH, 1], pl.FP32],
    wo: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.INT8],
    wo_scale: pl.Tensor[[1, HIDDEN], pl.FP32],
    w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.INT8],
    w_up: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.INT8],
    w_down: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.INT8],
    resid: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
    out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]],
):
    h1 = pl.create_tensor([BATCH, HIDDEN], dtype=pl.FP32)
    h1_i8 = pl.create_tensor([BATCH, HIDDEN], dtype=pl.INT8)
    for ob in pl.spmd(HIDDEN // N_TILE, name_hint="o_proj_i8"):
        o0 = ob * N_TILE
        o_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(Q_HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = attn_i8[:, k0 : k0 + K_TILE]
            wb = wo[o0 : o0 + N_TILE, k0 : k0 + K_TILE]
            if kb == 0:
                o_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                o_acc = pl.matmul_acc(o_acc, xa, wb, b_trans=True)
        o_f = pl.col_expand_mul(pl.row_expand_mul(pl.cast(o_acc, target_type=pl.FP32), attn_scale), wo_scale[:, o0 : o0 + N_TILE])
        o_f = pl.add(o_f, resid[:, o0 : o0 + N_TILE])
        h1[:, o0 : o0 + N_TILE] = o_f
        h1_i8[:, o0 : o0 + N_TILE] = pl.cast(pl.mul(o_f, A_QSCALE), target_type=pl.INT8, mode="rint")

    gate_i32 = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.INT32)
    up_i32 = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.INT32)
    for gb in pl.spmd(INTERMEDIATE // N_TILE, name_hint="gate_i8"):
        g0 = gb * N_TILE
        g_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = h1_i8[:, k0 : k0 + K_TILE]
            wb = w_gate[g0 : g0 + N_TILE, k0 : k0 + K_TILE]
            if kb == 0:
                g_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                g_acc = pl.matmul_acc(g_acc, xa, wb, b_trans=True)
        gate_i32[:, g0 : g0 + N_TILE] = g_acc
    for ub in pl.spmd(INTERMEDIATE // N_TILE, name_hint="up_i8"):
        u0 = ub * N_TILE
        u_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = h1_i8[:, k0 : k0 + K_TILE]
            wb = w_up[u0 : u0 + N_TILE, k0 : k0 + K_TILE]
            if kb == 0:
                u_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                u_acc = pl.matmul_acc(u_acc, xa, wb, b_trans=True)
        up_i32[:, u0 : u0 + N_TILE] = u_acc

    # SwiGLU per column tile: four co-live FP32 [BATCH, N_TILE] values (16 KiB each) fit the UB,
    # whole-width [BATCH, INTERMEDIATE] ones (64 KiB each) would not.
    act_i8 = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.INT8)
    for ab in pl.spmd(INTERMEDIATE // N_TILE, name_hint="act_i8"):
        a0 = ab * N_TILE
        g = pl.cast(gate_i32[:, a0 : a0 + N_TILE], target_type=pl.FP32)
        u = pl.cast(up_i32[:, a0 : a0 + N_TILE], target_type=pl.FP32)
        a = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
        act_i8 = pl.assemble(act_i8, pl.cast(a, target_type=pl.INT8, mode="rint"), [0, a0])

    for db in pl.spmd(HIDDEN // N_TILE, name_hint="down_i8"):
        d0 = db * N_TILE
        d_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(INTERMEDIATE // DOWN_K_TILE, stage=2):
            k0 = kb * DOWN_K_TILE
            xa = act_i8[:, k0 : k0 + DOWN_K_TILE]
            wb = w_down[d0 : d0 + N_TILE, k0 : k0 + DOWN_K_TILE]
            if kb == 0:
                d_acc = pl.matmul(xa, wb, b_trans=True)
            else:
                d_acc = pl.matmul_acc(d_acc, xa, wb, b_trans=True)
        out[:, d0 : d0 + N_TILE] = pl.add(pl.cast(d_acc, target_type=pl.FP32), h1[:, d0 : d0 + N_TILE])
    return out
