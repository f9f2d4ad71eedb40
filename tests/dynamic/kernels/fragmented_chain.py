"""Shape (C), fragmented chain (TARGET_FACTS.md "The defects"): `pl.pipeline(0, 192, 64, stage=4)`
with the `if k0 == 0` body leaves three literal tail clones and no main loop; the pre-fix phi
resolution spreads the chain over one L0C buffer per block, so each `matmul_acc` accumulates into a
buffer it never initialised."""

import pypto.language as pl

M = 16
N = 64
K = 192
TK = 64


@pl.jit
def fragmented(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fragmented"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.pipeline(0, K, TK, stage=4):
            xa = x[:, k0 : k0 + TK]
            wb = w[k0 : k0 + TK, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, :] = acc
    return y
