"""Int8 experts processed in parallel over the 7168-wide hidden size, 3-D weights.

Each expert's gate/up pair is reduced in 28 steps of 256 (``w13[e : e + 1, :, k0 :
k0 + K_TILE]``, two chains per step); the down projection writes 256-wide column tiles
of the 7168 output in two 128-wide K steps over the small expert intermediate.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN

E = 2
T = 16
D = MOE_HIDDEN
INTER = 256
K_TILE = 256
DOWN_N = 256
DOWN_K = 128
ACT_Q = 8.0


@pl.jit
def batched_experts(
    x_i8: pl.Tensor[[E * T, D], pl.INT8],
    w1: pl.Tensor[[E, INTER, D], pl.INT8],
    w3: pl.Tensor[[E, INTER, D], pl.INT8],
    w2: pl.Tensor[[E, D, INTER], pl.INT8],
    y: pl.Out[pl.Tensor[[E * T, D], pl.INT32]],
):
    h_i8 = pl.create_tensor([E * T, INTER], dtype=pl.INT8)
    for e in pl.parallel(E):
        t0 = e * T
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="batched_gate_up"):
            g_acc = pl.create_tensor([1, T, INTER], dtype=pl.INT32)
            u_acc = pl.create_tensor([1, T, INTER], dtype=pl.INT32)
            for kb in pl.pipeline(D // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x_i8[t0 : t0 + T, k0 : k0 + K_TILE]
                w1k = w1[e : e + 1, :, k0 : k0 + K_TILE]
                w3k = w3[e : e + 1, :, k0 : k0 + K_TILE]
                if k0 == 0:
                    g_acc = pl.matmul(xa, w1k, b_trans=True)
                    u_acc = pl.matmul(xa, w3k, b_trans=True)
                else:
                    g_acc = pl.matmul_acc(g_acc, xa, w1k, b_trans=True)
                    u_acc = pl.matmul_acc(u_acc, xa, w3k, b_trans=True)
            g = pl.cast(pl.reshape(g_acc, [T, INTER]), target_type=pl.FP32)
            u = pl.cast(pl.reshape(u_acc, [T, INTER]), target_type=pl.FP32)
            act = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
            h_i8 = pl.assemble(h_i8, pl.cast(pl.mul(act, ACT_Q), target_type=pl.INT8, mode="rint"), [t0, 0])

        for d0 in pl.parallel(0, D, DOWN_N):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="batched_down"):
                y_acc = pl.create_tensor([1, T, DOWN_N], dtype=pl.INT32)
                for kb in pl.pipeline(INTER // DOWN_K, stage=2):
                    k0 = kb * DOWN_K
                    ha = h_i8[t0 : t0 + T, k0 : k0 + DOWN_K]
                    w2k = w2[e : e + 1, d0 : d0 + DOWN_N, k0 : k0 + DOWN_K]
                    if k0 == 0:
                        y_acc = pl.matmul(ha, w2k, b_trans=True)
                    else:
                        y_acc = pl.matmul_acc(y_acc, ha, w2k, b_trans=True)
                y = pl.assemble(y, y_acc, [t0, d0])
    return y
