"""Int8 feed-forward block as a program: three InCore kernels and an Orchestration
function that chains them through GM scratch tensors.

``gate_up`` writes the requantised SwiGLU activation; ``down`` the INT32 output;
``router_bias`` is a small non-pipelined projection used for load-balancing stats.
Each InCore kernel walks its output tiles with ``pl.range``.
"""

import pypto.language as pl

from model_config import MOE_TOKENS

T = MOE_TOKENS
D = 2048
INTER = 1024
N_TILE = 256
GU_K = 256
DOWN_K = 512
STAT_N = 64
STAT_K = 512
H_Q = 32.0


@pl.program
class Int8FFN:
    @pl.function(type=pl.FunctionType.InCore)
    def gate_up(
        self,
        x_i8: pl.Tensor[[T, D], pl.INT8],
        w1: pl.Tensor[[INTER, D], pl.INT8],
        w3: pl.Tensor[[INTER, D], pl.INT8],
        h_i8: pl.Out[pl.Tensor[[T, INTER], pl.INT8]],
    ) -> pl.Tensor[[T, INTER], pl.INT8]:
        for nb in pl.range(INTER // N_TILE):
            n0 = nb * N_TILE
            g_acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
            u_acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
            for kb in pl.pipeline(D // GU_K, stage=2):
                k0 = kb * GU_K
                xa = x_i8[:, k0 : k0 + GU_K]
                w1b = w1[n0 : n0 + N_TILE, k0 : k0 + GU_K]
                w3b = w3[n0 : n0 + N_TILE, k0 : k0 + GU_K]
                if k0 == 0:
                    g_acc = pl.matmul(xa, w1b, b_trans=True)
                    u_acc = pl.matmul(xa, w3b, b_trans=True)
                else:
                    g_acc = pl.matmul_acc(g_acc, xa, w1b, b_trans=True)
                    u_acc = pl.matmul_acc(u_acc, xa, w3b, b_trans=True)
            g = pl.mul(pl.cast(g_acc, target_type=pl.FP32), 1.0 / 2048.0)
            u = pl.mul(pl.cast(u_acc, target_type=pl.FP32), 1.0 / 2048.0)
            h = pl.mul(pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))), u)
            h_i8[:, n0 : n0 + N_TILE] = pl.cast(pl.mul(h, H_Q), target_type=pl.INT8, mode="rint")
        return h_i8

    @pl.function(type=pl.FunctionType.InCore)
    def down(
        self,
        h_i8: pl.Tensor[[T, INTER], pl.INT8],
        w2: pl.Tensor[[D, INTER], pl.INT8],
        y: pl.Out[pl.Tensor[[T, D], pl.INT32]],
    ) -> pl.Tensor[[T, D], pl.INT32]:
        for db in pl.range(D // N_TILE):
            d0 = db * N_TILE
            acc = pl.create_tensor([T, N_TILE], dtype=pl.INT32)
            for kb in pl.pipeline(INTER // DOWN_K, stage=2):
                k0 = kb * DOWN_K
                ha = h_i8[:, k0 : k0 + DOWN_K]
                wb = w2[d0 : d0 + N_TILE, k0 : k0 + DOWN_K]
                if k0 == 0:
                    acc = pl.matmul(ha, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, ha, wb, b_trans=True)
            y[:, d0 : d0 + N_TILE] = acc
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def router_bias(
        self,
        x_i8: pl.Tensor[[T, D], pl.INT8],
        w_stat: pl.Tensor[[D, STAT_N], pl.INT8],
        stat: pl.Out[pl.Tensor[[T, STAT_N], pl.INT32]],
    ) -> pl.Tensor[[T, STAT_N], pl.INT32]:
        acc = pl.create_tensor([T, STAT_N], dtype=pl.INT32)
        for kb in pl.range(D // STAT_K):
            k0 = kb * STAT_K
            xa = x_i8[:, k0 : k0 + STAT_K]
            wb = w_stat[k0 : k0 + STAT_K, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        stat[:, :] = acc
        return stat

    @pl.function(type=pl.FunctionType.Orchestration)
    def ffn(
        self,
        x_i8: pl.Tensor[[T, D], pl.INT8],
        w1: pl.Tensor[[INTER, D], pl.INT8],
        w3: pl.Tensor[[INTER, D], pl.INT8],
        w2: pl.Tensor[[D, INTER], pl.INT8],
        w_stat: pl.Tensor[[D, STAT_N], pl.INT8],
        y: pl.Out[pl.Tensor[[T, D], pl.INT32]],
        stat: pl.Out[pl.Tensor[[T, STAT_N], pl.INT32]],
    ) -> pl.Tensor[[T, D], pl.INT32]:
        h_i8 = pl.create_tensor([T, INTER], dtype=pl.INT8)
        h_i8 = self.gate_up(x_i8, w1, w3, h_i8)
        y = self.down(h_i8, w2, y)
        stat = self.router_bias(x_i8, w_stat, stat)
        return y


def golden_ffn(t):
    import torch

    x = t["x_i8"].to(torch.int32)
    t["stat"][:] = x @ t["w_stat"].to(torch.int32)
