"""MoE router scores in FP32: ``sigmoid(x @ w_gate^T)`` per expert, two variants.

``router_scores`` is the pipelined if-seeded form; ``router_scores_biased`` peels the
first K block out of a plain loop and adds the load-balancing bias after the drain.
The router keeps full FP32 precision, so the K step is 512 with a 64-expert tile.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN

EXPERTS = 64
K_TILE = 512
K_BLOCKS = HIDDEN // K_TILE


@pl.jit
def router_scores(
    x: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
    w_gate: pl.Tensor[[EXPERTS, HIDDEN], pl.FP32],
    scores: pl.Out[pl.Tensor[[BATCH, EXPERTS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="router"):
        logits = pl.create_tensor([BATCH, EXPERTS], dtype=pl.FP32)
        for kb in pl.pipeline(K_BLOCKS, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w_gate[:, k0 : k0 + K_TILE]
            if k0 == 0:
                logits = pl.matmul(xa, wb, b_trans=True)
            else:
                logits = pl.matmul_acc(logits, xa, wb, b_trans=True)
        scores[:, :] = pl.recip(pl.add(pl.exp(pl.neg(logits)), 1.0))
    return scores


@pl.jit
def router_scores_biased(
    x: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
    w_gate: pl.Tensor[[EXPERTS, HIDDEN], pl.FP32],
    e_bias: pl.Tensor[[1, EXPERTS], pl.FP32],
    scores: pl.Out[pl.Tensor[[BATCH, EXPERTS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="router_biased"):
        logits = pl.matmul(x[:, 0:K_TILE], w_gate[:, 0:K_TILE], b_trans=True)
        for kb in pl.range(1, K_BLOCKS):
            k0 = kb * K_TILE
            logits = pl.matmul_acc(logits, x[:, k0 : k0 + K_TILE], w_gate[:, k0 : k0 + K_TILE], b_trans=True)
        probs = pl.recip(pl.add(pl.exp(pl.neg(logits)), 1.0))
        scores[:, :] = pl.col_expand_add(probs, e_bias)
    return scores
