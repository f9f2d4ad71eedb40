"""Prefill projections as InCore kernels on 128-row tiles, driven by an Orchestration
function. Weights use the ``[N, K]`` layout (transposed B operand).

``q_kernel`` and ``o_kernel`` seed on the derived offset, ``gate_kernel`` on the step
index; ``score_kernel`` is the peeled form (first block before a pipelined loop).
"""

import pypto.language as pl

from model_config import HIDDEN, INTERMEDIATE, Q_HIDDEN

TOKENS = 128
M_TILE = 128
N_TILE = 64
K_TILE = 256
SCORE_N = 64


@pl.program
class PrefillLayer:
    @pl.function(type=pl.FunctionType.InCore)
    def q_kernel(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
        q: pl.Out[pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16]],
    ) -> pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16]:
        for n0 in pl.range(0, Q_HIDDEN, N_TILE):
            acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = wq[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            q[:, n0 : n0 + N_TILE] = pl.cast(acc, target_type=pl.BF16)
        return q

    @pl.function(type=pl.FunctionType.InCore)
    def o_kernel(
        self,
        a: pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16],
        wo: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
        h: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.BF16]],
    ) -> pl.Tensor[[TOKENS, HIDDEN], pl.BF16]:
        for n0 in pl.range(0, HIDDEN, N_TILE):
            acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(Q_HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                aa = a[:, k0 : k0 + K_TILE]
                wb = wo[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(aa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, aa, wb, b_trans=True)
            h = pl.assemble(h, pl.cast(acc, target_type=pl.BF16), [0, n0])
        return h

    @pl.function(type=pl.FunctionType.InCore)
    def gate_kernel(
        self,
        h: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        g: pl.Out[pl.Tensor[[TOKENS, INTERMEDIATE], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, INTERMEDIATE], pl.FP32]:
        for n0 in pl.range(0, INTERMEDIATE, N_TILE):
            acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                ha = h[:, k0 : k0 + K_TILE]
                wb = w_gate[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if kb == 0:
                    acc = pl.matmul(ha, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, ha, wb, b_trans=True)
            g[:, n0 : n0 + N_TILE] = pl.mul(acc, pl.recip(pl.add(pl.exp(pl.neg(acc)), 1.0)))
        return g

    @pl.function(type=pl.FunctionType.InCore)
    def score_kernel(
        self,
        h: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        w_score: pl.Tensor[[SCORE_N, HIDDEN], pl.BF16],
        s: pl.Out[pl.Tensor[[TOKENS, SCORE_N], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, SCORE_N], pl.FP32]:
        acc = pl.matmul(h[:, 0:K_TILE], w_score[:, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
        for kb in pl.pipeline(1, HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, h[:, k0 : k0 + K_TILE], w_score[:, k0 : k0 + K_TILE], b_trans=True)
        s[:, :] = acc
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def prefill_layer(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        attn: pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16],
        wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
        wo: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
        w_gate: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
        w_score: pl.Tensor[[SCORE_N, HIDDEN], pl.BF16],
        q: pl.Out[pl.Tensor[[TOKENS, Q_HIDDEN], pl.BF16]],
        g: pl.Out[pl.Tensor[[TOKENS, INTERMEDIATE], pl.FP32]],
        s: pl.Out[pl.Tensor[[TOKENS, SCORE_N], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, INTERMEDIATE], pl.FP32]:
        q = self.q_kernel(x, wq, q)
        h = pl.create_tensor([TOKENS, HIDDEN], dtype=pl.BF16)
        h = self.o_kernel(attn, wo, h)
        g = self.gate_kernel(h, w_gate, g)
        s = self.score_kernel(h, w_score, s)
        return g
