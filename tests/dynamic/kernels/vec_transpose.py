"""A vector-unit transpose (`pl.transpose` of a computed Vec tile): per-token gate logits laid out
[tokens, experts] are turned into [experts, tokens], and each expert's row of the transposed tile is
stored as that expert's column of scores."""

import pypto.language as pl

TOKENS = 8
EXPERTS = 16


@pl.jit
def expert_major(
    logits: pl.Tensor[[TOKENS, EXPERTS], pl.FP32],
    scores: pl.Out[pl.Tensor[[EXPERTS, TOKENS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_major"):
        raw = pl.tile.load(logits, [0, 0], [TOKENS, EXPERTS])
        token_major = pl.exp(raw)
        by_expert = pl.transpose(token_major, axis1=0, axis2=1)
        pl.tile.store(by_expert, [0, 0], scores)
    return scores
