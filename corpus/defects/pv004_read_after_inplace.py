"""Planted defect: PV004 clobbered-read, the read of a value after an in-place op consumed it
(L0C_RULES.md PV004: "read after an in-place op consumed it"; TARGET_FACTS.md: `matmul_acc`'s output
must be its acc input's buffer, and there is no Acc->Acc copy).

Form 1, written by a kernel author who wants both the half-K partial and the full sum: `total =
pl.matmul_acc(first, ...)` accumulates in place on `first`'s L0C window, then `first` is stored. As a
value program it is fine; on the hardware the store drains the window `total` has overwritten, in both
pipelines (neither can copy `first` out of L0C before the MAD). Expected: PV004 on the store of `first`
(both pipelines), and PV201 on `def stale_partial` (both): simulated, `half` holds the full sum.
The fix is to store `first` before accumulating into it.
"""

import pypto.language as pl

M, N, K = 16, 64, 256
K_TILE = 128


@pl.jit
def stale_partial(  # expect: PV201
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    half: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stale_partial"):
        first = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
        total = pl.matmul_acc(first, x[:, K_TILE:K], w[K_TILE:K, :])
        half[:, :] = first  # expect: PV004
        y[:, :] = total
    return half, y
