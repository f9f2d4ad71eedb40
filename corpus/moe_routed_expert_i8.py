"""Routed experts of an int8 MoE layer: per-expert weights as 3-D tensors.

``w13`` holds gate and up weights of the local experts as ``[E, INTER, D]`` pairs and
``w2`` the down weights as ``[E, D, INTER]``; a weight slice keeps the leading unit
expert dim (``w1[e : e + 1, :, k0 : k0 + K_TILE]``), so the accumulators are
``[1, M, N]``. Each expert receives a fixed 16-row token tile from the dispatcher.
"""

import pypto.language as pl

E_LOCAL = 4
TOK_PER_E = 16
R_D = 2048
R_INTER = 256
K_TILE = 256
DOWN_N_TILE = 256
DOWN_K_TILE = 128
ACT_SCALE = 16.0


@pl.jit
def routed_experts(
    recv_x: pl.Tensor[[E_LOCAL * TOK_PER_E, R_D], pl.INT8],
    recv_w: pl.Tensor[[E_LOCAL * TOK_PER_E, 1], pl.FP32],
    w1: pl.Tensor[[E_LOCAL, R_INTER, R_D], pl.INT8],
    w3: pl.Tensor[[E_LOCAL, R_INTER, R_D], pl.INT8],
    w2: pl.Tensor[[E_LOCAL, R_D, R_INTER], pl.INT8],
    y: pl.Out[pl.Tensor[[E_LOCAL * TOK_PER_E, R_D], pl.BF16]],
):
    gate_all = pl.create_tensor([E_LOCAL * TOK_PER_E, R_INTER], dtype=pl.INT32)
    up_all = pl.create_tensor([E_LOCAL * TOK_PER_E, R_INTER], dtype=pl.INT32)
    h_all = pl.create_tensor([E_LOCAL * TOK_PER_E, R_INTER], dtype=pl.INT8)
    for e in pl.range(E_LOCAL):
        t0 = e * TOK_PER_E
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_gate_up"):
            g_acc = pl.create_tensor([1, TOK_PER_E, R_INTER], dtype=pl.INT32)
            u_acc = pl.create_tensor([1, TOK_PER_E, R_INTER], dtype=pl.INT32)
            for kb in pl.pipeline(R_D // K_TILE, stage=2):
                k0 = kb * K_TILE
                xk = recv_x[t0 : t0 + TOK_PER_E, k0 : k0 + K_TILE]
                w1k = w1[e : e + 1, :, k0 : k0 + K_TILE]
                w3k = w3[e : e + 1, :, k0 : k0 + K_TILE]
                if k0 == 0:
                    g_acc = pl.matmul(xk, w1k, b_trans=True)
                    u_acc = pl.matmul(xk, w3k, b_trans=True)
                else:
                    g_acc = pl.matmul_acc(g_acc, xk, w1k, b_trans=True)
                    u_acc = pl.matmul_acc(u_acc, xk, w3k, b_trans=True)
            gate_all = pl.assemble(gate_all, g_acc, [t0, 0])
            up_all = pl.assemble(up_all, u_acc, [t0, 0])

        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_act"):
            g = pl.cast(gate_all[t0 : t0 + TOK_PER_E, :], target_type=pl.FP32)
            u = pl.cast(up_all[t0 : t0 + TOK_PER_E, :], target_type=pl.FP32)
            act = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
            h_all = pl.assemble(h_all, pl.cast(pl.mul(act, ACT_SCALE), target_type=pl.INT8, mode="rint"), [t0, 0])

        for d0 in pl.parallel(0, R_D, DOWN_N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_down"):
                y_acc = pl.create_tensor([1, TOK_PER_E, DOWN_N_TILE], dtype=pl.INT32)
                for kb in pl.pipeline(R_INTER // DOWN_K_TILE, stage=2):
                    k0 = kb * DOWN_K_TILE
                    hk = h_all[t0 : t0 + TOK_PER_E, k0 : k0 + DOWN_K_TILE]
                    w2k = w2[e : e + 1, d0 : d0 + DOWN_N_TILE, k0 : k0 + DOWN_K_TILE]
                    if kb == 0:
                        y_acc = pl.matmul(hk, w2k, b_trans=True)
                    else:
                        y_acc = pl.matmul_acc(y_acc, hk, w2k, b_trans=True)
                y2 = pl.cast(pl.reshape(y_acc, [TOK_PER_E, DOWN_N_TILE]), target_type=pl.FP32)
                weighted = pl.row_expand_mul(y2, recv_w[t0 : t0 + TOK_PER_E, :])
                y[t0 : t0 + TOK_PER_E, d0 : d0 + DOWN_N_TILE] = pl.cast(weighted, target_type=pl.BF16)
    return y
