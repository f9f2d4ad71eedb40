"""A kernel calling a `pl.jit.inline` helper that opens an InCore scope of its own but holds tensor-level ops only
(no tile op, no matmul): the static stages do not take the helper for a kernel, and the simulation does not lower
it either (a function with an orchestration level is outlined into orchestration code and kernels, which the
pipeline does only for a kernel), so the simulation says so instead of naming the call as an instruction.
``looked_up_rows`` calls it too and reads the first rows of ``table``, a vocabulary's worth of rows: too large to simulate
at its real size, and since the call is spliced at no size, no shrink is tried (the skip is the emitter's reason at
the real sizes)."""

import pypto.language as pl

M = 16
K = 64
N = 32
VOCAB = 1 << 18


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


@pl.jit
def looked_up_rows(
    x: pl.Tensor[[M, N], pl.FP32],
    table: pl.Tensor[[VOCAB, N], pl.FP32],
    scaled: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    bumped: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="looked_up_rows"):
        rows = pl.load(x, [0, 0], [M, N])
        looked_up = pl.load(table, [0, 0], [M, N])
        summed = pl.add(rows, looked_up)
        scaled = pl.store(summed, [0, 0], scaled)
    bumped = _bump(scaled, bumped)
    return scaled, bumped
