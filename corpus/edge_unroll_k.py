"""Fully unrolled K loops: ``pl.unroll`` and a plain Python ``range`` over constants.

After unrolling the seed tests become literal (``if 0 == 0``) and fold, leaving one
straight chain per output tile. ``unrolled_offsets`` unrolls by element offset.
"""

import pypto.language as pl

ROWS = 16
K = 512
N = 256
K_TILE = 128
N_TILE = 64                 # small blocks: all four unrolled steps are staged at once
KB = K // K_TILE


@pl.jit
def unrolled_index(
    x: pl.Tensor[[ROWS, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
):
    for n0 in pl.parallel(0, N, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="unrolled_index"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for kb in pl.unroll(KB):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if kb == 0:
                    acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def unrolled_offsets(
    x: pl.Tensor[[ROWS, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
):
    for n0 in pl.parallel(0, N, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="unrolled_offsets"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for k0 in pl.unroll(0, K, K_TILE):
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def python_range_i8(
    x: pl.Tensor[[ROWS, K], pl.INT8],
    w: pl.Tensor[[N, K], pl.INT8],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    for n0 in pl.parallel(0, N, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="python_range_i8"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.INT32)
            for kb in range(KB):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[:, n0 : n0 + N_TILE] = acc
    return y
