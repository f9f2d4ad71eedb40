"""Scores from one matmul, a softmax of them on the vector unit, then a second matmul of the
probabilities: the second MAD's left operand is computed from the first MAD's result."""

import pypto.language as pl

HEADS = 16
DIM = 64
KEYS = 64


@pl.jit
def score_then_mix(
    q: pl.Tensor[[HEADS, DIM], pl.BF16],
    k: pl.Tensor[[KEYS, DIM], pl.BF16],
    v: pl.Tensor[[KEYS, DIM], pl.BF16],
    out: pl.Out[pl.Tensor[[HEADS, DIM], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="score_then_mix"):
        raw = pl.matmul(q, k, b_trans=True, out_dtype=pl.FP32)
        scaled = pl.mul(raw, 0.125)
        top = pl.row_max(scaled)
        weights = pl.exp(pl.row_expand_sub(scaled, top))
        weights_bf16 = pl.cast(weights, target_type=pl.BF16)
        mixed = pl.matmul(weights_bf16, v, out_dtype=pl.FP32)
        out[:, :] = mixed
    return out
