"""Gated KV compressor (decode): one K loop produces the compressed KV row and its gate
score together, then a vector stage pools the window.

Both projections read the same BF16 activation slice, so the seed step initialises
two accumulators at once. Weights are ``[N, HIDDEN]``.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN

OUT_DIM = 256
N_TILE = 64
K_TILE = 128
APE_BIAS = 0.5


@pl.jit
def compress_kv(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_kv: pl.Tensor[[OUT_DIM, HIDDEN], pl.BF16],
    w_gate: pl.Tensor[[OUT_DIM, HIDDEN], pl.BF16],
    state: pl.Tensor[[BATCH, OUT_DIM], pl.FP32],
    pooled: pl.Out[pl.Tensor[[BATCH, OUT_DIM], pl.FP32]],
):
    for n0 in pl.parallel(0, OUT_DIM, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="compress_kv"):
            kv_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
            sc_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wkv = w_kv[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                wsc = w_gate[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    kv_acc = pl.matmul(xa, wkv, b_trans=True, out_dtype=pl.FP32)
                    sc_acc = pl.matmul(xa, wsc, b_trans=True, out_dtype=pl.FP32)
                else:
                    kv_acc = pl.matmul_acc(kv_acc, xa, wkv, b_trans=True)
                    sc_acc = pl.matmul_acc(sc_acc, xa, wsc, b_trans=True)
            gate = pl.exp(pl.add(sc_acc, APE_BIAS))
            prev = state[:, n0 : n0 + N_TILE]
            mixed = pl.maximum(pl.mul(kv_acc, gate), prev)
            pooled[:, n0 : n0 + N_TILE] = mixed
    return pooled
