"""Prefill projections on 128-row tiles in the two loop-uniform forms: peeled first
block (``peel_q_bf16``, ``peel_scores_fp32``) and predicated first step
(``pred_k_bf16`` with ``init_cond=(kb == 0)``, ``pred_v_i8`` with ``init_cond=(k0 == 0)``
on an offset loop variable).
"""

import pypto.language as pl

from model_config import HIDDEN, KV_HIDDEN

TOKENS = 256
M_TILE = 128
N_TILE = 64
K_TILE = 256
F_K_TILE = 128
F_N = 32
I8_K_TILE = 512


@pl.jit
def peel_q_bf16(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    wq: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
    q: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.FP32]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, KV_HIDDEN, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="peel_q"):
                acc = pl.matmul(x[m0 : m0 + M_TILE, 0:K_TILE], wq[n0 : n0 + N_TILE, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
                for kb in pl.pipeline(1, HIDDEN // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    xa = x[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = wq[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
                q[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = acc
    return q


@pl.jit
def peel_scores_fp32(
    h: pl.Tensor[[TOKENS, HIDDEN], pl.FP32],
    w: pl.Tensor[[HIDDEN, F_N], pl.FP32],
    s: pl.Out[pl.Tensor[[TOKENS, F_N], pl.FP32]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="peel_scores"):
            acc = pl.matmul(h[m0 : m0 + M_TILE, 0:F_K_TILE], w[0:F_K_TILE, :])
            for kb in pl.range(1, HIDDEN // F_K_TILE):
                k0 = kb * F_K_TILE
                acc = pl.matmul_acc(acc, h[m0 : m0 + M_TILE, k0 : k0 + F_K_TILE], w[k0 : k0 + F_K_TILE, :])
            s[m0 : m0 + M_TILE, :] = pl.exp(acc)
    return s


@pl.jit
def pred_k_bf16(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    wk: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    k: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.BF16]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, KV_HIDDEN, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_k"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    xa = x[m0 : m0 + M_TILE, k0 : k0 + K_TILE]
                    wb = wk[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                    acc = pl.matmul_acc(acc, xa, wb, init_cond=(kb == 0))
                k[m0 : m0 + M_TILE, n0 : n0 + N_TILE] = pl.cast(acc, target_type=pl.BF16)
    return k


@pl.jit
def pred_v_i8(
    x_i8: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.INT8],
    v: pl.Out[pl.Tensor[[TOKENS, KV_HIDDEN], pl.INT32]],
):
    for m0 in pl.parallel(0, TOKENS, M_TILE):
        for n0 in pl.parallel(0, KV_HIDDEN, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_v"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.INT32)
                for k0 in pl.pipeline(0, HIDDEN, I8_K_TILE, stage=2):
                    xa = x_i8[m0 : m0 + M_TILE, k0 : k0 + I8_K_TILE]
                    wb = wv[n0 : n0 + N_TILE, k0 : k0 + I8_K_TILE]
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True, init_cond=(k0 == 0))
                v = pl.assemble(v, acc, [m0, n0])
    return v
