"""Seed/accumulate arms written in the other order: the test is ``!= 0`` and the
``matmul_acc`` arm comes first. Same meaning as the usual ``== 0`` form.

One BF16 kernel keyed on the step index, one int8 kernel keyed on the derived offset.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, KV_HIDDEN

N_TILE = 256
K_TILE = 256
I8_K_TILE = 512


@pl.jit
def proj_ne_index(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, KV_HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
):
    for nb in pl.spmd(KV_HIDDEN // N_TILE, name_hint="proj_ne_index"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
            if kb != 0:
                acc = pl.matmul_acc(acc, xa, wb)
            else:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
        y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def proj_ne_offset_i8(
    x_i8: pl.Tensor[[BATCH, HIDDEN], pl.INT8],
    w_i8: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.INT8],
    y: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.INT32]],
):
    for nb in pl.spmd(KV_HIDDEN // N_TILE, name_hint="proj_ne_offset_i8"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(HIDDEN // I8_K_TILE, stage=2):
            k0 = kb * I8_K_TILE
            xa = x_i8[:, k0 : k0 + I8_K_TILE]
            wb = w_i8[n0 : n0 + N_TILE, k0 : k0 + I8_K_TILE]
            if k0 != 0:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            else:
                acc = pl.matmul(xa, wb, b_trans=True)
        y = pl.assemble(y, acc, [0, n0])
    return y
