"""Predicated accumulation: the first K step of each chain is selected by ``init_cond``
instead of an ``if``, so the loop body is one uniform ``matmul_acc`` on an accumulator
declared with ``pl.create_tensor``.

Three dtypes: BF16 in / FP32 acc, int8 in / INT32 acc, FP32 in / FP32 acc (the last walks
the reduction by element offset and predicates on ``k0 == 0``).
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, Q_HIDDEN

N_TILE = 256
K_TILE = 256
I8_K_TILE = 512
F32_N_TILE = 64
F32_K_TILE = 256


@pl.jit
def pred_proj_bf16(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, Q_HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
):
    for nb in pl.spmd(Q_HIDDEN // N_TILE, name_hint="pred_bf16"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
            acc = pl.matmul_acc(acc, xa, wb, init_cond=(kb == 0))
        y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def pred_proj_i8(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    w_i8: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.INT8],
    y: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.INT32]],
):
    for nb in pl.spmd(Q_HIDDEN // N_TILE, name_hint="pred_i8"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // I8_K_TILE, stage=2):
            k0 = kb * I8_K_TILE
            xa = x_i8[:, k0 : k0 + I8_K_TILE]
            wb = w_i8[n0 : n0 + N_TILE, k0 : k0 + I8_K_TILE]
            acc = pl.matmul_acc(acc, xa, wb, b_trans=True, init_cond=(kb == 0))
        y = pl.assemble(y, acc, [0, n0])
    return y


@pl.jit
def pred_proj_fp32(
    x: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
    w: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.FP32],
    y: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
):
    for n0 in pl.parallel(0, Q_HIDDEN, F32_N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_fp32"):
            acc = pl.create_tensor([BATCH, F32_N_TILE], dtype=pl.FP32)
            for k0 in pl.pipeline(0, HIDDEN, F32_K_TILE, stage=2):
                xa = x[:, k0 : k0 + F32_K_TILE]
                wb = w[n0 : n0 + F32_N_TILE, k0 : k0 + F32_K_TILE]
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True, init_cond=(k0 == 0))
            y[:, n0 : n0 + F32_N_TILE] = pl.exp(acc)
    return y
