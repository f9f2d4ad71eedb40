"""Vocabulary projection for the last decode step, peeled style.

``lm_head`` emits BF16 logits for a vocabulary shard (seed block, then a pipelined
loop from block 1); ``lm_head_fp32`` keeps FP32 logits for sampling with a plain
``pl.range(1, ...)`` loop and a temperature scale.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN

VOCAB_SHARD = 2048
V_TILE = 256
K_TILE = 256
K_BLOCKS = HIDDEN // K_TILE
FP32_VOCAB = 512
FP32_V_TILE = 64
FP32_K_TILE = 512
INV_TEMPERATURE = 1.0 / 0.7


@pl.jit
def lm_head(
    h: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_vocab: pl.Tensor[[VOCAB_SHARD, HIDDEN], pl.BF16],
    logits: pl.Out[pl.Tensor[[BATCH, VOCAB_SHARD], pl.BF16]],
):
    for vb in pl.spmd(VOCAB_SHARD // V_TILE, name_hint="lm_head"):
        v0 = vb * V_TILE
        acc = pl.matmul(h[:, 0:K_TILE], w_vocab[v0 : v0 + V_TILE, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
        for kb in pl.pipeline(1, K_BLOCKS, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, h[:, k0 : k0 + K_TILE], w_vocab[v0 : v0 + V_TILE, k0 : k0 + K_TILE], b_trans=True)
        logits[:, v0 : v0 + V_TILE] = pl.cast(acc, target_type=pl.BF16)
    return logits


@pl.jit
def lm_head_fp32(
    h: pl.Tensor[[BATCH, HIDDEN], pl.FP32],
    w_vocab: pl.Tensor[[FP32_VOCAB, HIDDEN], pl.FP32],
    logits: pl.Out[pl.Tensor[[BATCH, FP32_VOCAB], pl.FP32]],
):
    for v0 in pl.parallel(0, FP32_VOCAB, FP32_V_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lm_head_fp32"):
            acc = pl.matmul(h[:, 0:FP32_K_TILE], w_vocab[v0 : v0 + FP32_V_TILE, 0:FP32_K_TILE], b_trans=True)
            for kb in pl.range(1, HIDDEN // FP32_K_TILE):
                k0 = kb * FP32_K_TILE
                acc = pl.matmul_acc(acc, h[:, k0 : k0 + FP32_K_TILE], w_vocab[v0 : v0 + FP32_V_TILE, k0 : k0 + FP32_K_TILE], b_trans=True)
            logits[:, v0 : v0 + FP32_V_TILE] = pl.mul(acc, INV_TEMPERATURE)
    return logits
