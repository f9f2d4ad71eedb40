"""Reductions that fit in one K block, written with the general loop anyway (the head
dim equals the K tile): one-trip ``pl.pipeline`` and ``pl.range`` loops, and a peeled
seed followed by a loop from 1 that never runs.
"""

import pypto.language as pl

from model_config import HEAD_DIM

ROWS = 16
KEYS = 256
K_TILE = 128
OUT = 64


@pl.jit
def one_trip_pipeline(
    q: pl.Tensor[[ROWS, HEAD_DIM], pl.BF16],
    k: pl.Tensor[[KEYS, HEAD_DIM], pl.BF16],
    s: pl.Out[pl.Tensor[[ROWS, KEYS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="one_trip_pipeline"):
        acc = pl.create_tensor([ROWS, KEYS], dtype=pl.FP32)
        for db in pl.pipeline(HEAD_DIM // K_TILE, stage=2):
            d0 = db * K_TILE
            qa = q[:, d0 : d0 + K_TILE]
            kb_t = k[:, d0 : d0 + K_TILE]
            if d0 == 0:
                acc = pl.matmul(qa, kb_t, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, qa, kb_t, b_trans=True)
        s[:, :] = acc
    return s


@pl.jit
def one_trip_range_i8(
    x: pl.Tensor[[ROWS, HEAD_DIM], pl.INT8],
    w: pl.Tensor[[HEAD_DIM, OUT], pl.INT8],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="one_trip_range"):
        acc = pl.create_tensor([ROWS, OUT], dtype=pl.INT32)
        for k0 in pl.range(0, HEAD_DIM, K_TILE):
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, :] = acc
    return y


@pl.jit
def peeled_zero_trip(
    q: pl.Tensor[[ROWS, HEAD_DIM], pl.FP32],
    k: pl.Tensor[[OUT, HEAD_DIM], pl.FP32],
    s: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="peeled_zero_trip"):
        acc = pl.matmul(q[:, 0:K_TILE], k[:, 0:K_TILE], b_trans=True)
        for db in pl.pipeline(1, HEAD_DIM // K_TILE, stage=2):
            d0 = db * K_TILE
            acc = pl.matmul_acc(acc, q[:, d0 : d0 + K_TILE], k[:, d0 : d0 + K_TILE], b_trans=True)
        s[:, :] = acc
    return s
