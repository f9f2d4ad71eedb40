"""Projected phases wrapped into one period on the vector unit: a matmul's scores (rounded on the
cube unit, so known only within its deviation) reduced modulo the period by `pl.fmods`."""

import pypto.language as pl

M = 16
N = 64
K = 64
PERIOD = 0.25


@pl.jit
def phase_wrap(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="phase_wrap"):
        scores = pl.matmul(x[:, :], w[:, :], out_dtype=pl.FP32)
        y[:, :] = pl.fmods(scores, PERIOD)
    return y


@pl.jit
def first_score_shift(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    """Every score shifted by the first one (`pl.tile.read` of an element a matmul rounded)."""
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first_score_shift"):
        scores = pl.matmul(x[:, :], w[:, :], out_dtype=pl.FP32)
        first = pl.tile.read(scores, [0, 0])
        y[:, :] = pl.subs(scores, first)
    return y
