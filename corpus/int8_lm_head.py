"""Int8 vocabulary projection over a 7168-wide hidden state (14 K steps of 512).

``lm_head_i8`` is the if-seeded pipelined form; ``lm_head_i8_peeled`` seeds with the
first block and pipelines the rest from block 1, then applies the logit soft-cap
``CAP * tanh(z / CAP)`` approximated with exponentials.
"""

import pypto.language as pl

from model_config import MOE_HIDDEN

ROWS = 16
D = MOE_HIDDEN
VOCAB_SHARD = 512
V_TILE = 256
K_TILE = 512
CAP = 30.0
INV_CAP = 1.0 / CAP


@pl.jit
def lm_head_i8(
    h_i8: pl.Tensor[[ROWS, D], pl.INT8],
    h_scale: pl.Tensor[[ROWS, 1], pl.FP32],
    w_i8: pl.Tensor[[VOCAB_SHARD, D], pl.INT8],
    w_scale: pl.Tensor[[1, VOCAB_SHARD], pl.FP32],
    logits: pl.Out[pl.Tensor[[ROWS, VOCAB_SHARD], pl.FP32]],
):
    for vb in pl.spmd(VOCAB_SHARD // V_TILE, name_hint="lm_head_i8"):
        v0 = vb * V_TILE
        acc = pl.create_tensor([ROWS, V_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(D // K_TILE, stage=2):
            k0 = kb * K_TILE
            ha = h_i8[:, k0 : k0 + K_TILE]
            wb = w_i8[v0 : v0 + V_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(ha, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, ha, wb, b_trans=True)
        deq = pl.row_expand_mul(pl.cast(acc, target_type=pl.FP32), h_scale)
        logits[:, v0 : v0 + V_TILE] = pl.col_expand_mul(deq, w_scale[:, v0 : v0 + V_TILE])
    return logits


@pl.jit
def lm_head_i8_peeled(
    h_i8: pl.Tensor[[ROWS, D], pl.INT8],
    w_i8: pl.Tensor[[VOCAB_SHARD, D], pl.INT8],
    logits: pl.Out[pl.Tensor[[ROWS, VOCAB_SHARD], pl.FP32]],
):
    for vb in pl.spmd(VOCAB_SHARD // V_TILE, name_hint="lm_head_i8_peeled"):
        v0 = vb * V_TILE
        acc = pl.matmul(h_i8[:, 0:K_TILE], w_i8[v0 : v0 + V_TILE, 0:K_TILE], b_trans=True)
        for kb in pl.pipeline(1, D // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, h_i8[:, k0 : k0 + K_TILE], w_i8[v0 : v0 + V_TILE, k0 : k0 + K_TILE], b_trans=True)
        z = pl.mul(pl.cast(acc, target_type=pl.FP32), INV_CAP)
        e2 = pl.exp(pl.mul(z, 2.0))
        capped = pl.mul(pl.div(pl.sub(e2, 1.0), pl.add(e2, 1.0)), CAP)
        logits[:, v0 : v0 + V_TILE] = capped
    return logits
