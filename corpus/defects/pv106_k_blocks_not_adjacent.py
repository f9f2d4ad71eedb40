"""Planted defect: PV106 reduction-coverage (L0C_RULES.md: "between an accumulator's initialisation and
each drain, the accumulated blocks cover the reduction dimension of the GM operands exactly once").

Form 1. `overlapping` advances its K offset by half a block (`k0 = kb * (K_TILE // 2)`), so each block
re-reads the second half of the one before (K [128, 256) of `x` and `w` twice at kb = 1). `skipping`
advances by two blocks over half the loop count, so every other block is never read. Each is PV106 on its `matmul_acc`
(all windows stay inside the tensors: not PV107), in both pipelines.
"""

import pypto.language as pl

M = 16
K = 1024
N = 128
K_TILE = 256


@pl.jit
def overlapping(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="overlapping"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * (K_TILE // 2)
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))  # expect: PV106
        y[:, :] = acc
    return y


@pl.jit
def skipping(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="skipping"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // (2 * K_TILE)):
            k0 = kb * (2 * K_TILE)
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))  # expect: PV106
        y[:, :] = acc
    return y

