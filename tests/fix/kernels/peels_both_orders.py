"""A hand-written peel in each arm order (the fix tests rewrite both and prove them)."""

import pypto.language as pl

M, N, K = 16, 128, 1024
K_TILE = 256


@pl.jit
def seed_first(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    acc = pl.create_tensor([M, N], dtype=pl.FP32)
    for kb in pl.pipeline(K // K_TILE, stage=2):
        k0 = kb * K_TILE
        xa = x[:, k0 : k0 + K_TILE]
        wb = w[k0 : k0 + K_TILE, :]
        # the first block seeds the chain
        if kb == 0:
            acc = pl.matmul(xa, wb, out_dtype=pl.FP32)  # fresh
        else:
            # every later block accumulates
            acc = pl.matmul_acc(acc, xa, wb)
    y[:, :] = acc
    return y


@pl.jit
def accumulate_first(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    acc = pl.create_tensor([M, N], dtype=pl.FP32)
    for kb in pl.range(K // K_TILE):
        k0 = kb * K_TILE
        xa = x[:, k0 : k0 + K_TILE]
        wb = w[:, k0 : k0 + K_TILE]
        if k0 != 0:
            acc = pl.matmul_acc(acc, xa, wb,
                                b_trans=True)
        else:
            acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
    y[:, :] = acc
    return y
