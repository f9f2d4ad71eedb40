"""Classifier heads over very wide pooled features: long K reductions.

``wide_head`` reduces 16384 input features in 128 steps of 128 (the longest pipelined
chain in the corpus); ``wide_relu_head`` is an FP32 head over 28672 features (224
steps) that walks the reduction by element offset and clamps at zero afterwards.
"""

import pypto.language as pl

ROWS = 16
FEAT = 16384
CLASSES = 128
N_TILE = 64
K_TILE = 128

FEAT32 = 28672
CLASSES32 = 64
N_TILE32 = 32


@pl.jit
def wide_head(
    feats: pl.Tensor[[ROWS, FEAT], pl.BF16],
    w: pl.Tensor[[CLASSES, FEAT], pl.BF16],
    logits: pl.Out[pl.Tensor[[ROWS, CLASSES], pl.FP32]],
):
    for ci in pl.spmd(CLASSES // N_TILE, name_hint="wide_head"):
        c0 = ci * N_TILE
        acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(FEAT // K_TILE, stage=2):
            k0 = kb * K_TILE
            fa = feats[:, k0 : k0 + K_TILE]
            wb = w[c0 : c0 + N_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(fa, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, fa, wb, b_trans=True)
        logits[:, c0 : c0 + N_TILE] = acc
    return logits


@pl.jit
def wide_relu_head(
    feats: pl.Tensor[[ROWS, FEAT32], pl.FP32],
    w: pl.Tensor[[CLASSES32, FEAT32], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, CLASSES32], pl.FP32]],
):
    for c0 in pl.parallel(0, CLASSES32, N_TILE32):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide_relu_head"):
            acc = pl.create_tensor([ROWS, N_TILE32], dtype=pl.FP32)
            for k0 in pl.pipeline(0, FEAT32, K_TILE, stage=2):
                fa = feats[:, k0 : k0 + K_TILE]
                wb = w[c0 : c0 + N_TILE32, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(fa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, fa, wb, b_trans=True)
            out[:, c0 : c0 + N_TILE32] = pl.maximum(acc, 0.0)
    return out
