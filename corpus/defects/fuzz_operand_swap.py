"""Fuzz escape (benchmarks/fuzz.py, mutation `operand_swap`, first found on corpus/edge_combined_predicate.py and
on 78 other kernels of the 10 000-mutant run): the accumulate arm's operands exchanged,
`matmul_acc(acc, wb, xa, b_trans=True)`.

The operands still agree on K (both are `[*, K_TILE]` blocks, the right one read transposed), so the operand
check passes; but their product is `[N, M]` = `[64, 32]` while the accumulator `acc` is `[M, N]` = `[32, 64]`.
No MAD accumulates a `[64, 32]` product into a `[32, 64]` L0C tile in place: the kernel is ill-formed, and the
value-semantic reference refuses it ("accumulator [32, 64] for a [64, 32] product"). It must be an input error
(PV000) at the MAD, in both pipelines; before the fix it came back verified.

`swapped_seed` (the same mutation on the seed, `pl.matmul(wb, xa, b_trans=True)`, found on
corpus/edge_nested_if.py `elif_chain` after that fix): the seed arm binds `acc` to a `[64, 32]` product, the
accumulate arm to the `[32, 64]` accumulator — one name, one L0C chain, two shapes. PV000 at the seed.
`swapped_seed_elif` (found on the same kernel after that fix, whose test compares the two arms of one `if`): the
seed is the first arm of an `elif` chain, the accumulating arms sit in the nested `if` of its `else`. PV000 at
the seed.
"""

import pypto.language as pl

M = 32
N = 64
K = 256
K_TILE = 128


@pl.jit
def swapped_operands(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swapped_operands"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, wb, xa, b_trans=True)  # expect: PV000
        y[:, :] = acc
    return y


@pl.jit
def swapped_seed(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swapped_seed"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(wb, xa, b_trans=True)  # expect: PV000
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y


@pl.jit
def swapped_seed_elif(
    x: pl.Tensor[[M, K], pl.FP32],
    w: pl.Tensor[[N, K], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swapped_seed_elif"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if kb == 0:
                acc = pl.matmul(wb, xa, b_trans=True)  # expect: PV000
            elif kb == K // K_TILE - 1:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y
