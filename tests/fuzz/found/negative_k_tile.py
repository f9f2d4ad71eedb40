"""Planted defect: PV103 no-lost-partial-sums, at the end of the chain: the reduction runs and nothing
ever reads the accumulator (the store was dropped), so the output is never written and every partial sum
is lost. Form 1; PV103 on the chain's first MAD (the site), in both pipelines.
"""

import pypto.language as pl

M = 16
K = 1024
N = 128
K_TILE = -1


@pl.jit
def store_dropped(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="store_dropped"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))  # expect: PV103
    return y
