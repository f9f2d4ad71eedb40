"""A kernel calling a `pl.jit.inline` helper that opens an InCore scope of its own but holds tensor-level ops only
(no tile op, no matmul): the static stages do not take the helper for a kernel, and the simulation does not lower
it either (a function with an orchestration level is outlined into orchestration code and kernels, which the
pipeline does only for a kernel), so the simulation says so instead of naming the call as an instruction."""

import pypto.language as pl

M = 16
K = 64
N = 32


@pl.jit.inline
def _bump(x: pl.Tensor[[M, N], pl.FP32], y: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bump"):
        y[:, :] = pl.add(x, 1.0)
    return y


@pl.jit
def bumped_scores(
    a: pl.Tensor[[M, K], pl.BF16],
    b: pl.Tensor[[K, N], pl.BF16],
    scores: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    bumped: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bumped_scores"):
        scores[:, :] = pl.matmul(a, b, out_dtype=pl.FP32)
    bumped = _bump(scores, bumped)
    return scores, bumped
