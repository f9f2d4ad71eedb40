"""Seed tests inside other conditionals.

``nested_guard``: the K test sits inside ``if nb < N_BLOCKS`` (true for every block of
the parallel loop, no else). ``elif_chain``: a three-way chain whose last two arms
both accumulate. ``parity_split``: the outer test picks one of two weight layouts per
head (fixed for the whole K loop); each arm has its own seed test on the same chain.
"""

import pypto.language as pl

ROWS = 16
K = 2048
K_TILE = 256
KB = K // K_TILE
N_TILE = 256
N_BLOCKS = 2
N = N_TILE * N_BLOCKS
HEADS = 4
HEAD_N = 64


@pl.jit
def nested_guard(
    x: pl.Tensor[[ROWS, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
):
    for nb in pl.parallel(N_BLOCKS):
        n0 = nb * N_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="nested_guard"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(KB, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if nb < N_BLOCKS:
                    if k0 == 0:
                        acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, xa, wb)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def elif_chain(
    x: pl.Tensor[[ROWS, K], pl.INT8],
    w: pl.Tensor[[N, K], pl.INT8],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    for n0 in pl.parallel(0, N, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="elif_chain"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.INT32)
            for kb in pl.pipeline(KB, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if kb == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                elif kb == KB - 1:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def parity_split(
    x: pl.Tensor[[ROWS, K], pl.BF16],
    w_even: pl.Tensor[[HEADS * HEAD_N, K], pl.BF16],
    w_odd: pl.Tensor[[K, HEADS * HEAD_N], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, HEADS * HEAD_N], pl.FP32]],
):
    for h in pl.parallel(HEADS):
        h0 = h * HEAD_N
        parity = h % 2
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="parity_split"):
            acc = pl.create_tensor([ROWS, HEAD_N], dtype=pl.FP32)
            for kb in pl.pipeline(KB, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                if parity == 0:
                    we = w_even[h0 : h0 + HEAD_N, k0 : k0 + K_TILE]
                    if kb == 0:
                        acc = pl.matmul(xa, we, b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, xa, we, b_trans=True)
                else:
                    wo = w_odd[k0 : k0 + K_TILE, h0 : h0 + HEAD_N]
                    if kb == 0:
                        acc = pl.matmul(xa, wo, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, xa, wo)
            y[:, h0 : h0 + HEAD_N] = acc
    return y
