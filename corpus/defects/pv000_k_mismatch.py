"""Planted defect: matmul operands that disagree on K (L0C_RULES.md PV000: input the checker cannot accept).

Form 1, a K loop whose right-hand slice was widened by a bad edit: `x[:, k0 : k0 + K_TILE] @ w[k0 : k0 +
2 * K_TILE, :]` is `[16, 64] @ [128, 64]`, which no cube MAD computes. Both shapes are exact (the slices'
extents are literals), so the operands are accused. Expected: PV000 at the MAD (both pipelines), never
a verified kernel.
"""

import pypto.language as pl

M, N, K = 16, 64, 256
K_TILE = 64


@pl.jit
def k_mismatch(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[2 * K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k_mismatch"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K, K_TILE):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + 2 * K_TILE, :], init_cond=(k0 == 0))  # expect: PV000
        y[:, :] = acc
    return y
