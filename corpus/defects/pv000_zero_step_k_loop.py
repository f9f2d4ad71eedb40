"""Planted defect: a K loop whose step is 0 (L0C_RULES.md PV000: input the checker cannot accept).

Form 1, a split-K kernel whose step constant was zeroed by a bad edit: `pl.range(0, K, K_STEP)` with
`K_STEP = 0` never ends (Python's `range` raises on it), so no accumulation it "does" means anything.
Expected: PV000 at the step (both pipelines), never a verified kernel.
"""

import pypto.language as pl

M, N, K = 16, 64, 256
K_STEP = 0


@pl.jit
def zero_step(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_step"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K, K_STEP):  # expect: PV000
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + 64], w[k0 : k0 + 64, :], init_cond=(k0 == 0))
        y[:, :] = acc
    return y
