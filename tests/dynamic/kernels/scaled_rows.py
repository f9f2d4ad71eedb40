"""Rows scaled one block at a time and assembled into a BF16 tile the loop carries, then one matmul.

The tile starts as the cast of the whole input (`rows = pl.cast(x[...], ...)`), so it is an on-chip value,
not a GM tensor: each `pl.assemble(rows, ...)` updates it in place on the loop's carry (PyPTO 10:
`tile.assemble` on the iter_arg).
"""

import pypto.language as pl

M = 16
K = 384
N = 64
ROWS = 8


@pl.jit
def scaled_rows(
    x: pl.Tensor[[M, K], pl.FP32],
    s: pl.Tensor[[M, 1], pl.FP32],
    w: pl.Tensor[[K, N], pl.BF16],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled_rows"):
        rows = pl.cast(x[:, :], target_type=pl.BF16)
        for r in pl.range(0, M, ROWS):
            row = pl.row_expand_mul(x[r : r + ROWS, :], s[r : r + ROWS, :])
            rows = pl.assemble(rows, pl.cast(row, target_type=pl.BF16), [r, 0])
        out[:, :] = pl.matmul(rows, w, out_dtype=pl.FP32)
    return out
