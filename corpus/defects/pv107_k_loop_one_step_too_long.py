"""Planted defect: a K loop one step too long (L0C_RULES.md PV107 in-bounds).

Form 1, a split-K projection whose loop bound was written `K + K_TILE` instead of `K`: the last iteration,
`k0 = K`, slices columns `[K, K + K_TILE)` of `x` and rows `[K, K + K_TILE)` of `w`, one block past the end
of both (the hardware would read whatever lies after them in GM). Each slice is refuted at `k0 = 256`.
Expected: PV107 twice at the MAD's line (the two slices, both pipelines).
"""

import pypto.language as pl

M, N, K = 16, 64, 256
K_TILE = 64


@pl.jit
def k_loop_too_long(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k_loop_too_long"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K + K_TILE, K_TILE):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(k0 == 0))  # expect: PV107 PV107
        y[:, :] = acc
    return y
