"""Rows of a GM tensor gathered one by one into an L1 (Mat) tile (`pl.gather_row`, PyPTO's sub-view + `tload`),
then used as the transposed right operand of a matmul: the scores of each query against a permuted set of keys."""

import pypto.language as pl

M = 16
D = 64
ROWS = 64
KEYS = 32


@pl.jit
def gathered_keys(
    q: pl.Tensor[[M, D], pl.BF16],
    kv: pl.Tensor[[ROWS, D], pl.BF16],
    scores: pl.Out[pl.Tensor[[M, KEYS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gathered_keys"):
        keys = pl.create_l1([KEYS, D], pl.BF16)
        for k in pl.range(KEYS):
            src = (k * 5 + 3) % ROWS
            keys = pl.gather_row(keys, kv, [k, 0], [src, 0], [1, D])
        scores[:, :] = pl.matmul(q, keys, b_trans=True, out_dtype=pl.FP32)
    return scores
