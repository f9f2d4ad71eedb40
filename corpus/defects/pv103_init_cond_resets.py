"""Planted defect: PV103 no-lost-partial-sums, by `init_cond` (L0C_RULES.md: "no re-initialisation
discards accumulated values that were never drained").

Form 1, the predicated form with a predicate that holds on more than the first block: `init_cond=True`
and `init_cond=(kb >= 0)` re-initialise the accumulator on every K block, and `init_cond=(kb % 2 == 0)`
on every other one. A kernel author writing `init_cond` by hand meant `kb == 0`; nothing is drained in
between, so each reset loses the blocks before it: PV103 on the `matmul_acc`, in both pipelines.
"""

import pypto.language as pl

M = 16
K = 1024
N = 128
K_TILE = 256


@pl.jit
def always_true(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="always_true"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=True)  # expect: PV103
        y[:, :] = acc
    return y


@pl.jit
def nonnegative(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="nonnegative"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb >= 0))  # expect: PV103
        y[:, :] = acc
    return y


@pl.jit
def even_blocks(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="even_blocks"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb % 2 == 0))  # expect: PV103
        y[:, :] = acc
    return y
