"""Planted defect: an `assemble` that writes past its output (L0C_RULES.md PV107 in-bounds).

Form 1, a projection whose output tile was stored at column 32 of `y` instead of column 0: the `[16, 64]`
accumulator lands on columns `[32, 96)` of a `[16, 64]` output, 32 columns past its end (the write would
clobber whatever follows `y` in GM). The reduction itself is sound. Expected: PV107 at the store (both
pipelines).
"""

import pypto.language as pl

M, N, K = 16, 64, 256
K_TILE = 64


@pl.jit
def assemble_past_output(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="assemble_past_output"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K, K_TILE):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(k0 == 0))
        y[:, 32 : 32 + N] = acc  # expect: PV107
    return y
