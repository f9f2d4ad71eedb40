"""LayerNorm followed by FP32 projections (a small encoder block).

``layer_norm`` is a plain (undecorated) helper, inlined into both kernels; the normalised
activations stay FP32. ``ln_proj`` walks K by offset in a pipelined
loop over a row-major weight; ``ln_proj_narrow`` uses a non-pipelined loop and a
transposed weight for a 32-wide output.
"""

import pypto.language as pl

ROWS = 16
LN_ROWS = 8
D = 1024
OUT = 512
N_TILE = 64
K_TILE = 256
NARROW_OUT = 32
NARROW_K = 128
EPS = 1e-5
INV_D = 1.0 / D


def layer_norm(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    gamma: pl.Tensor[[1, D], pl.FP32],
    beta: pl.Tensor[[1, D], pl.FP32],
    xn: pl.Tensor[[ROWS, D], pl.FP32],
):
    # LN_ROWS rows at a time: a [LN_ROWS, D] FP32 value is 32 KiB, so the co-live vector values of
    # one block (input, centred, squared, ...) fit the 184 KiB UB; whole [ROWS, D] ones (64 KiB) do not.
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_norm"):
        for r0 in pl.range(0, ROWS, LN_ROWS):
            xr = x[r0 : r0 + LN_ROWS, :]
            mean = pl.mul(pl.row_sum(xr), INV_D)
            cen = pl.row_expand_sub(xr, mean)
            var = pl.mul(pl.row_sum(pl.mul(cen, cen)), INV_D)
            inv = pl.rsqrt(pl.add(var, EPS))
            xn = pl.assemble(xn, pl.col_expand_add(pl.col_expand_mul(pl.row_expand_mul(cen, inv), gamma), beta), [r0, 0])
    return xn


@pl.jit
def ln_proj(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    gamma: pl.Tensor[[1, D], pl.FP32],
    beta: pl.Tensor[[1, D], pl.FP32],
    w: pl.Tensor[[D, OUT], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    xn = pl.create_tensor([ROWS, D], dtype=pl.FP32)
    xn = layer_norm(x, gamma, beta, xn)
    for n0 in pl.parallel(0, OUT, N_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="ln_proj"):
            acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.FP32)
            for k0 in pl.pipeline(0, D, K_TILE, stage=2):
                xa = xn[:, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, n0 : n0 + N_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[:, n0 : n0 + N_TILE] = acc
    return y


@pl.jit
def ln_proj_narrow(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    gamma: pl.Tensor[[1, D], pl.FP32],
    beta: pl.Tensor[[1, D], pl.FP32],
    w: pl.Tensor[[NARROW_OUT, D], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, NARROW_OUT], pl.FP32]],
):
    xn = pl.create_tensor([ROWS, D], dtype=pl.FP32)
    xn = layer_norm(x, gamma, beta, xn)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ln_proj_narrow"):
        acc = pl.create_tensor([ROWS, NARROW_OUT], dtype=pl.FP32)
        for kb in pl.range(D // NARROW_K):
            k0 = kb * NARROW_K
            xa = xn[:, k0 : k0 + NARROW_K]
            wb = w[:, k0 : k0 + NARROW_K]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y = pl.assemble(y, acc, [0, 0])
    return y
