"""Prefill Q/K/V projections as a program: two InCore kernels and their orchestration.

A prompt chunk of ``TOKENS`` rows is cut into 128-row M tiles. Weights are kept in the
``[N, HIDDEN]`` layout of the checkpoint, so every cube op reads its B operand
transposed. The key/value kernel shares each activation slice between two chains.
"""

import pypto.language as pl

from model_config import HIDDEN, KV_HIDDEN, Q_HIDDEN

TOKENS = 256
M_TILE = 128
N_TILE = 64
K_TILE = 128
K_BLOCKS = HIDDEN // K_TILE


@pl.program
class DensePrefillQKV:
    @pl.function(type=pl.FunctionType.InCore)
    def q_projection(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
        q: pl.Out[pl.Tensor[[TOKENS, Q_HIDDEN], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, Q_HIDDEN], pl.FP32]:
        for m0 in pl.range(0, TOKENS, M_TILE):
            for n0 in pl.range(0, Q_HIDDEN, N_TILE):
                q_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(K_BLOCKS, stage=2):
                    k0 = kb * K_TILE
                    xa = x[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = wq[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if k0 == 0:
                        q_acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                    else:
                        q_acc = pl.matmul_acc(q_acc, xa, wb, b_trans=True)
                q[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = q_acc
        return q

    @pl.function(type=pl.FunctionType.InCore)
    def kv_projection(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        wk: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
        wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
        k: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]],
        v: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]:
        for m0 in pl.range(0, TOKENS, M_TILE):
            for n0 in pl.range(0, KV_HIDDEN, N_TILE):
                k_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                v_acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(K_BLOCKS, stage=2):
                    k0 = kb * K_TILE
                    xa = x[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wkb = wk[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    wvb = wv[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if k0 == 0:
                        k_acc = pl.matmul(xa, wkb, b_trans=True, out_dtype=pl.FP32)
                        v_acc = pl.matmul(xa, wvb, b_trans=True, out_dtype=pl.FP32)
                    else:
                        k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
                        v_acc = pl.matmul_acc(v_acc, xa, wvb, b_trans=True)
                k[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = k_acc
                v[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = v_acc
        return k

    @pl.function(type=pl.FunctionType.Orchestration)
    def prefill_qkv(
        self,
        x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
        wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
        wk: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
        wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
        q: pl.Out[pl.Tensor[[TOKENS, Q_HIDDEN], pl.FP32]],
        k: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]],
        v: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]],
    ) -> pl.Tensor[[TOKENS, Q_HIDDEN], pl.FP32]:
        q = self.q_projection(x, wq, q)
        k = self.kv_projection(x, wk, wv, k, v)
        return q
