"""Draft-model heads for speculative decoding (BF16 weights, FP32 accumulation).

``draft_logits`` projects the draft hidden state onto a vocabulary shard;
``draft_fuse`` and ``draft_accept`` are peeled reductions: the fusion layer mixing the
target model's hidden state into the draft state, and the acceptance-score head.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN

DRAFT = 1024
VOCAB = 1024
V_TILE = 256
K_TILE = 256
FUSE_N = 256
ACC_N = 32


@pl.jit
def draft_logits(
    hd: pl.Tensor[[BATCH, DRAFT], pl.BF16],
    w_vocab: pl.Tensor[[DRAFT, VOCAB], pl.BF16],
    logits: pl.Out[pl.Tensor[[BATCH, VOCAB], pl.FP32]],
):
    for vb in pl.spmd(VOCAB // V_TILE, name_hint="draft_logits"):
        v0 = vb * V_TILE
        acc = pl.create_tensor([BATCH, V_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(DRAFT // K_TILE, stage=2):
            k0 = kb * K_TILE
            ha = hd[:, k0 : k0 + K_TILE]
            wb = w_vocab[k0 : k0 + K_TILE, v0 : v0 + V_TILE]
            if k0 == 0:
                acc = pl.matmul(ha, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, ha, wb)
        logits[:, v0 : v0 + V_TILE] = acc
    return logits


@pl.jit
def draft_fuse(
    h_target: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_fuse: pl.Tensor[[HIDDEN, DRAFT], pl.BF16],
    hd: pl.Out[pl.Tensor[[BATCH, DRAFT], pl.BF16]],
):
    for nb in pl.spmd(DRAFT // FUSE_N, name_hint="draft_fuse"):
        n0 = nb * FUSE_N
        acc = pl.matmul(h_target[:, 0:K_TILE], w_fuse[0:K_TILE, n0 : n0 + FUSE_N], out_dtype=pl.FP32)
        for kb in pl.pipeline(1, HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, h_target[:, k0 : k0 + K_TILE], w_fuse[k0 : k0 + K_TILE, n0 : n0 + FUSE_N])
        hd[:, n0 : n0 + FUSE_N] = pl.cast(acc, target_type=pl.BF16)
    return hd


@pl.jit
def draft_accept(
    hd: pl.Tensor[[BATCH, DRAFT], pl.BF16],
    w_acc: pl.Tensor[[ACC_N, DRAFT], pl.BF16],
    p_accept: pl.Out[pl.Tensor[[BATCH, ACC_N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="draft_accept"):
        acc = pl.matmul(hd[:, 0:K_TILE], w_acc[:, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
        for kb in pl.range(1, DRAFT // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, hd[:, k0 : k0 + K_TILE], w_acc[:, k0 : k0 + K_TILE], b_trans=True)
        p_accept[:, :] = pl.recip(pl.add(pl.exp(pl.neg(acc)), 1.0))
    return p_accept
