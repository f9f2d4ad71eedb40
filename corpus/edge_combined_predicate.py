"""Seed tests that combine the K predicate with a condition that holds on the whole
domain of an outer loop, so each output tile is still seeded exactly once, at its
first K step: ``(kb == 0) and (mb >= 0)`` and ``(kb == 0) and (nb < N_BLOCKS)``.
"""

import pypto.language as pl

M = 256
M_TILE = 128
K = 1024
K_TILE = 256
N_TILE = 64
N_BLOCKS = 2
N = N_TILE * N_BLOCKS


@pl.jit
def combined_rows(
    a: pl.Tensor[[M, K], pl.BF16],
    b: pl.Tensor[[N, K], pl.BF16],
    c: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    for mb in pl.parallel(0, M, M_TILE):
        for n0 in pl.parallel(0, N, N_TILE):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="combined_rows"):
                acc = pl.create_tensor([M_TILE, N_TILE], dtype=pl.FP32)
                for kb in pl.pipeline(K // K_TILE, stage=2):
                    k0 = kb * K_TILE
                    ta = a[mb : mb + M_TILE, k0 : k0 + K_TILE]
                    tb = b[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
                    if (kb == 0) and (mb >= 0):
                        acc = pl.matmul(ta, tb, b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, ta, tb, b_trans=True)
                c[mb : mb + M_TILE, n0 : n0 + N_TILE] = acc
    return c


@pl.jit
def combined_cols_i8(
    a: pl.Tensor[[16, K], pl.INT8],
    b: pl.Tensor[[K, N], pl.INT8],
    c: pl.Out[pl.Tensor[[16, N], pl.INT32]],
):
    for nb in pl.parallel(N_BLOCKS):
        n0 = nb * N_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="combined_cols"):
            acc = pl.create_tensor([16, N_TILE], dtype=pl.INT32)
            for kb in pl.pipeline(K // K_TILE, stage=2):
                k0 = kb * K_TILE
                ta = a[:, k0 : k0 + K_TILE]
                tb = b[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if (kb == 0) and (nb < N_BLOCKS):
                    acc = pl.matmul(ta, tb)
                else:
                    acc = pl.matmul_acc(acc, ta, tb)
            c = pl.assemble(c, acc, [0, n0])
    return c
