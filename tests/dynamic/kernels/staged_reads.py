"""Elements read back from GM scratch the kernel wrote: each row of `x` doubled and each row of `codes` are staged
in tensors made in the kernel, then some of their elements are picked one by one with `pl.read` (PyPTO's
`pto.load_scalar`) and written out with `pl.write`, as a router copies its chosen expert ids."""

import pypto.language as pl

ROWS = 8
COLS = 8
K = 6


@pl.jit
def staged_reads(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    codes: pl.Tensor[[ROWS, COLS], pl.INT32],
    picked: pl.Out[pl.Tensor[[ROWS, K], pl.FP32]],
    picked_codes: pl.Out[pl.Tensor[[ROWS, K], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_reads"):
        doubled = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
        doubled[:, :] = pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0)
        staged = pl.create_tensor([ROWS, COLS], dtype=pl.INT32)
        staged[:, :] = codes[:, :]
        for r in pl.range(ROWS):
            for k in pl.range(K):
                pl.write(picked, [r, k], pl.read(doubled, [r, k + 1]))
                pl.write(picked_codes, [r, k], pl.read(staged, [r, COLS - 1 - k]))
    return picked, picked_codes
