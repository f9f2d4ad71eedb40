"""Peels the fix must refuse, each for its reason."""

import pypto.language as pl

M, N, K = 16, 128, 1024
K_TILE = 256


@pl.jit
def two_accumulators(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    acc = pl.create_tensor([M, N], dtype=pl.FP32)
    other = pl.create_tensor([M, N], dtype=pl.FP32)
    for kb in pl.range(K // K_TILE):
        k0 = kb * K_TILE
        xa = x[:, k0 : k0 + K_TILE]
        wb = w[k0 : k0 + K_TILE, :]
        if kb == 0:
            acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
        else:
            other = pl.matmul_acc(other, xa, wb)
    y[:, :] = pl.add(acc, other)
    return y


@pl.jit
def seed_read_after_the_if(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    partial: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    head = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, :], out_dtype=pl.FP32)
    for kb in pl.range(1, K // K_TILE):
        k0 = kb * K_TILE
        xa = x[:, k0 : k0 + K_TILE]
        wb = w[k0 : k0 + K_TILE, :]
        if kb == 2:
            acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
        else:
            acc = pl.matmul_acc(head, xa, wb)
        partial[:, :] = head
        head = acc
    y[:, :] = head
    return y
