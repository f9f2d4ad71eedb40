"""A peel whose kernel also slices a second input of the same shape: a rewrite that multiplied that one
instead would be a valid kernel of its own, but not the original (the PV105 test plants it)."""

import pypto.language as pl

M, N, K = 16, 128, 1024
K_TILE = 256


@pl.jit
def two_inputs(
    x: pl.Tensor[[M, K], pl.BF16],
    z: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    t: pl.Out[pl.Tensor[[M, K_TILE], pl.BF16]],
):
    acc = pl.create_tensor([M, N], dtype=pl.FP32)
    for kb in pl.range(K // K_TILE):
        k0 = kb * K_TILE
        xa = x[:, k0 : k0 + K_TILE]
        za = z[:, k0 : k0 + K_TILE]
        wb = w[k0 : k0 + K_TILE, :]
        t[:, :] = za
        if kb == 0:
            acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
        else:
            acc = pl.matmul_acc(acc, xa, wb)
    y[:, :] = acc
    return y
