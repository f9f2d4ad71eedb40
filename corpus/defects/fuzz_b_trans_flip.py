"""Fuzz escape (benchmarks/fuzz.py, mutation `b_trans_flip`, first found on corpus/edge_nested_if.py `elif_chain`
and 34 more in the 10 000-mutant run): `b_trans=True` dropped from a matmul whose weight block is square.

`w` is `[N, K]` and every step reads `wb = w[:, k0 : k0 + K_TILE]`, a `[128, 128]` block. Read transposed
(`b_trans=True`) its reduction axis is `w`'s K, advancing with `x`'s; read as given, the MAD reduces over `w`'s
first axis, N: every step pairs `x`'s K block `[k0, k0 + 128)` with rows `[0, 128)` of `w`, the same rows each
time, and `w`'s K axis is not reduced at all. Shapes agree (the block is square), so this is no input error;
it is PV106 reduction-coverage ("the accumulated blocks cover the reduction dimension of the GM operands exactly
once ... both operands together"): `seed_not_transposed` at its accumulate arm (transposed, where the seed was
not: the step after the seed reads `w` along another axis), `never_transposed` on its one MAD. Both pipelines; before the fix both came back verified.
"""

import pypto.language as pl

M = 16
N = 128
K = 512
K_TILE = 128


@pl.jit
def seed_not_transposed(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="seed_not_transposed"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)  # expect: PV106
        y[:, :] = acc
    return y


@pl.jit
def never_transposed(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="never_transposed"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[:, k0 : k0 + K_TILE], init_cond=(kb == 0))  # expect: PV106
        y[:, :] = acc
    return y
