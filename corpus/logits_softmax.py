"""Small-vocabulary classifier with the softmax numerator fused after the K loop.

``class_probs`` clamps the logits from below and exponentiates them with a stabilising
offset (``exp(max(z, FLOOR) - SHIFT)``); ``class_logits_range`` is the same projection
with a non-pipelined K loop and a plain store.
"""

import pypto.language as pl

ROWS = 16
D = 1024
CLASSES = 256
K_TILE = 256
FLOOR = -30.0
SHIFT = 8.0


@pl.jit
def class_probs(
    x: pl.Tensor[[ROWS, D], pl.BF16],
    w: pl.Tensor[[D, CLASSES], pl.BF16],
    probs: pl.Out[pl.Tensor[[ROWS, CLASSES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="class_probs"):
        acc = pl.create_tensor([ROWS, CLASSES], dtype=pl.FP32)
        for kb in pl.pipeline(D // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        z = pl.maximum(acc, FLOOR)
        probs[:, :] = pl.exp(pl.sub(z, SHIFT))
    return probs


@pl.jit
def class_logits_range(
    x: pl.Tensor[[ROWS, D], pl.BF16],
    w: pl.Tensor[[D, CLASSES], pl.BF16],
    logits: pl.Out[pl.Tensor[[ROWS, CLASSES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="class_logits_range"):
        acc = pl.create_tensor([ROWS, CLASSES], dtype=pl.FP32)
        for kb in pl.range(D // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        logits[:, :] = acc
    return logits
