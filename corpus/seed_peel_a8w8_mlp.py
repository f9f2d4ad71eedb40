"""Int8 shared-expert MLP over the 7168-wide hidden state, peeled style.

Gate and up (separate SPMD stages) reduce 14 blocks of 512 each: the first block seeds
the INT32 accumulator outside the loop, a pipelined loop from block 1 adds the rest. The down projection
over the 512-wide intermediate uses a plain ``pl.range(1, ...)`` loop.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN, MOE_INTER, MOE_TOKENS

T = MOE_TOKENS
D = MOE_HIDDEN
INTER = MOE_INTER
N_TILE = 256
K_TILE = 512
DOWN_K = 128
H_Q = 16.0


@pl.jit
def peeled_a8w8_mlp(
    x_i8: pl.Tensor[[T, D], pl.INT8],
    w_gate: pl.Tensor[[INTER, D], pl.INT8],
    w_up: pl.Tensor[[INTER, D], pl.INT8],
    w_down: pl.Tensor[[D, INTER], pl.INT8],
    y: pl.Out[pl.Tensor[[T, D], pl.INT32]],
):
    gate_i32 = pl.create_tensor([T, INTER], dtype=pl.INT32)
    up_i32 = pl.create_tensor([T, INTER], dtype=pl.INT32)
    for nb in pl.spmd(INTER // N_TILE, name_hint="peeled_gate"):
        n0 = nb * N_TILE
        g_acc = pl.matmul(x_i8[:, 0:K_TILE], w_gate[n0 : n0 + N_TILE, 0:K_TILE], b_trans=True)
        for kb in pl.pipeline(1, D // K_TILE, stage=2):
            k0 = kb * K_TILE
            g_acc = pl.matmul_acc(g_acc, x_i8[:, k0 : k0 + K_TILE], w_gate[n0 : n0 + N_TILE, k0 : k0 + K_TILE], b_trans=True)
        gate_i32[:, n0 : n0 + N_TILE] = g_acc
    for nb in pl.spmd(INTER // N_TILE, name_hint="peeled_up"):
        n0 = nb * N_TILE
        u_acc = pl.matmul(x_i8[:, 0:K_TILE], w_up[n0 : n0 + N_TILE, 0:K_TILE], b_trans=True)
        for kb in pl.pipeline(1, D // K_TILE, stage=2):
            k0 = kb * K_TILE
            u_acc = pl.matmul_acc(u_acc, x_i8[:, k0 : k0 + K_TILE], w_up[n0 : n0 + N_TILE, k0 : k0 + K_TILE], b_trans=True)
        up_i32[:, n0 : n0 + N_TILE] = u_acc

    h_i8 = pl.create_tensor([T, INTER], dtype=pl.INT8)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="peeled_act"):
        g = pl.mul(pl.cast(gate_i32, target_type=pl.FP32), 1.0 / 8192.0)
        u = pl.mul(pl.cast(up_i32, target_type=pl.FP32), 1.0 / 8192.0)
        h = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
        h_i8 = pl.assemble(h_i8, pl.cast(pl.mul(h, H_Q), target_type=pl.INT8, mode="rint"), [0, 0])

    for db in pl.spmd(D // N_TILE, name_hint="peeled_down"):
        d0 = db * N_TILE
        d_acc = pl.matmul(h_i8[:, 0:DOWN_K], w_down[d0 : d0 + N_TILE, 0:DOWN_K], b_trans=True)
        for kb in pl.range(1, INTER // DOWN_K):
            k0 = kb * DOWN_K
            d_acc = pl.matmul_acc(d_acc, h_i8[:, k0 : k0 + DOWN_K], w_down[d0 : d0 + N_TILE, k0 : k0 + DOWN_K], b_trans=True)
        y[:, d0 : d0 + N_TILE] = d_acc
    return y
