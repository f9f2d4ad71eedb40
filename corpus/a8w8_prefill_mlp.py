"""W8A8 prefill MLP on 128-row token tiles.

Gate and up share each int8 activation slice (two INT32 chains of 128 x 64, half of
L0C together); the vector stage dequantises, gates and requantises; the down
projection keys its seed on the step index. Weights are ``[N, K]`` int8.
"""

import pypto.language as pl

from model_config import HIDDEN, INTERMEDIATE

TOKENS = 128
M_TILE = 128
N_TILE = 64
K_TILE = 512
X_DQ = 1.0 / 64.0
H_Q = 16.0


@pl.jit
def a8w8_prefill_mlp(
    x_i8: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.INT8],
    w_up: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.INT8],
    w_down: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.INT8],
    y: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP32]],
):
    h_i8 = pl.create_tensor([TOKENS, INTERMEDIATE], dtype=pl.INT8)
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, INTERMEDIATE, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_up_i8"):
                g_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                u_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    xa = x_i8[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wg = w_gate[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    wu = w_up[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if k0 == 0:
                        g_acc = pl.matmul(xa, wg, b_trans=True)
                        u_acc = pl.matmul(xa, wu, b_trans=True)
                    else:
                        g_acc = pl.matmul_acc(g_acc, xa, wg, b_trans=True)
                        u_acc = pl.matmul_acc(u_acc, xa, wu, b_trans=True)
                g = pl.mul(pl.cast(g_acc, target_type=pl.FP32), X_DQ)
                u = pl.mul(pl.cast(u_acc, target_type=pl.FP32), X_DQ)
                h = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
                h_i8 = pl.assemble(h_i8, pl.cast(pl.mul(h, H_Q), target_type=pl.INT8, mode="rint"), [m0, n0])

    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for d0 in pl.parallel(0, HIDDEN, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="down_i8"):
                d_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                for kb in pl.pipeline(INTERMEDIATE // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    ha = h_i8[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wd = w_down[d0 : d0 + N_TILE, k0 : k0 + K_TILE]
                    if kb == 0:
                        d_acc = pl.matmul(ha, wd, b_trans=True)
                    else:
                        d_acc = pl.matmul_acc(d_acc, ha, wd, b_trans=True)
                y[m0 : m0 + M_TILE, d0 : d0 + N_TILE] = pl.mul(pl.cast(d_acc, target_type=pl.FP32), 1.0 / H_Q)
    return y
