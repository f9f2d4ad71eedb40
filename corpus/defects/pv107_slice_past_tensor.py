"""Planted defect: a slice shifted past the tensor (L0C_RULES.md PV107 in-bounds).

Form 1, a K loop over the whole of `x` whose left slice was shifted by one block (`k0 + 64` for `k0`): in
the last iteration, `k0 = 4032`, it reads columns `[4096, 4160)` of `x`, whose shape is `[16, 4096]`. The
right slice stays inside `w`. Expected: PV107 at the slice (both pipelines).
"""

import pypto.language as pl

M, N, K = 16, 64, 4096
K_TILE = 64


@pl.jit
def slice_past_tensor(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="slice_past_tensor"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K, K_TILE):
            xa = x[:, k0 + 64 : k0 + 64 + K_TILE]  # expect: PV107
            wb = w[k0 : k0 + K_TILE, :]
            acc = pl.matmul_acc(acc, xa, wb, init_cond=(k0 == 0))
        y[:, :] = acc
    return y
