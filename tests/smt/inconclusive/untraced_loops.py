"""MADs whose left operand a loop computes across its iterations (`../kernels/loop_yields.py`) where the loop's
term cannot stand for it, so the operand is not traced: PV105 is inconclusive with the reason, never proved nor
refuted. `shadowed_rows` reads a tensor a loop over `b` assembles, in a loop over `b` of its own: the term
ranges over its `b` as a free symbol of that name, which the chain's `b` would also be. `counted_rows` assembles
rows at a row index the loop carries as a scalar (`row0 = row0 + 2`): a term of the tiles a loop carries does
not say what a scalar carry holds in each iteration."""
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


@pl.jit
def counted_rows(x: pl.Tensor[[B, D], pl.FP32], w: pl.Tensor[[D, N], pl.BF16],
                 out: pl.Out[pl.Tensor[[B, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_rows_norm"):
        rows = pl.cast(pl.mul(x, SCALE), target_type=pl.BF16)
    row0 = 0
    for b in pl.range(B // 2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_rows_scale"):
            row = pl.cast(rows[row0 : row0 + 1, :], target_type=pl.FP32)
            rows = pl.assemble(rows, pl.cast(pl.mul(row, SCALE), target_type=pl.BF16), [row0, 0])
        row0 = row0 + 2
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_rows_matmul"):
        product = pl.matmul(rows, w, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_rows_write"):
        out = pl.assemble(out, product, [0, 0])
    return out
