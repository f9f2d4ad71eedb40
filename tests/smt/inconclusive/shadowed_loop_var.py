"""A MAD whose left operand a loop computes across its iterations (`../kernels/loop_yields.py`), read inside a
chain whose own loop has the same variable name: `shadowed_rows` reads a tensor a loop over `b` assembles, in a
loop over `b` of its own. The term of the first loop ranges over its `b` as a free symbol of that name, which
the chain's `b` would also be, so the operand is not traced: PV105 is inconclusive with that reason, never
proved nor refuted."""
import pypto.language as pl

B, D, N = 16, 128, 128
SCALE = 0.125


@pl.jit
def shadowed_rows(x: pl.Tensor[[B, D], pl.FP32], w: pl.Tensor[[D, N], pl.BF16],
                  out: pl.Out[pl.Tensor[[B, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shadowed_rows_norm"):
        rows = pl.cast(pl.mul(x, SCALE), target_type=pl.BF16)
    for b in pl.parallel(B):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shadowed_rows_scale"):
            row = pl.cast(rows[b : b + 1, :], target_type=pl.FP32)
            rows = pl.assemble(rows, pl.cast(pl.mul(row, SCALE), target_type=pl.BF16), [b, 0])
    for b in pl.parallel(0, N, 64):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shadowed_rows_matmul"):
            product = pl.matmul(rows, w[:, b : b + 64], out_dtype=pl.FP32)
            out = pl.assemble(out, product, [0, b])
    return out
