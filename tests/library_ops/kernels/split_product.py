"""Scores over a 512-wide head (a product the lowering splits into L0 K blocks), a softmax of them, then
the weighted sum: the second MAD's left operand comes from the split product."""

import pypto.language as pl

H = 16
M_TILE = 32
DIM = 512
KEYS = 128


@pl.jit
def wide_scores(q: pl.Tensor[[M_TILE, DIM], pl.BF16], kv: pl.Tensor[[KEYS, DIM], pl.BF16],
                out: pl.Out[pl.Tensor[[M_TILE, DIM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide_scores"):
        raw = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
        probs = pl.cast(pl.exp(pl.mul(raw, 0.125)), target_type=pl.BF16, mode="rint")
        mixed = pl.matmul(probs, kv, out_dtype=pl.FP32)
        for band in pl.unroll(M_TILE // H):
            r0 = band * H
            out[r0 : r0 + H, :] = mixed[r0 : r0 + H, :]
    return out
