"""W8A8 projections whose int8 windows feed the cube: `i8_proj` reads each activation and weight window only
as a matmul operand (the reference holds such a window as the input's own int8 view); in `i8_proj_shift` the
activation window also feeds a vector op, so the reference widens it to int64 as usual (that kernel is for the
reference only: its lowering moves the window from Mat to Vec, which a2a3 cannot, PV202)."""

import pypto.language as pl

TOKENS = 16
HIDDEN = 256
OUT = 128
N_TILE = 64
K_TILE = 128


@pl.jit
def i8_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    w: pl.Tensor[[HIDDEN, OUT], pl.INT8],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.INT32]],
):
    for ni in pl.spmd(OUT // N_TILE, name_hint="i8_proj"):
        n0 = ni * N_TILE
        acc = pl.create_tensor([TOKENS, N_TILE], dtype=pl.INT32)
        for kb in pl.range(HIDDEN // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def i8_proj_shift(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.INT8],
    w: pl.Tensor[[HIDDEN, OUT], pl.INT8],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.INT32]],
    s: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.INT32]],
):
    for ni in pl.spmd(OUT // N_TILE, name_hint="i8_proj_shift"):
        n0 = ni * N_TILE
        acc = pl.create_tensor([TOKENS, N_TILE], dtype=pl.INT32)
        for kb in pl.range(HIDDEN // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
            s[:, k0 : k0 + K_TILE] = pl.cast(pl.add(xa, xa), target_type=pl.INT32)
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, n0 : n0 + N_TILE] = acc
    return y, s
