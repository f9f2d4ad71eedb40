"""Wild construct: a plain helper (no decorator) called from a kernel is inlined; one that computes
a constant from constants is evaluated."""

import pypto.language as pl

ROWS = 16
HIDDEN = 512
OUT = 128
K_TILE = 128


def ceil_div(a, b):
    return (a + b - 1) // b


def k_slice(t, k0):
    return t[:, k0 : k0 + K_TILE]


def accumulate(acc, xa, wb, first):
    if first:
        acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
    else:
        acc = pl.matmul_acc(acc, xa, wb)
    return acc


@pl.jit
def proj(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor[[HIDDEN, OUT], pl.BF16], y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.create_tensor([ROWS, OUT], dtype=pl.FP32)
        for kb in pl.range(ceil_div(HIDDEN, K_TILE)):
            xa = k_slice(x, kb * K_TILE)
            wb = w[kb * K_TILE : kb * K_TILE + K_TILE, :]
            acc = accumulate(acc, xa, wb, kb == 0)
        y[:, :] = acc
    return y
