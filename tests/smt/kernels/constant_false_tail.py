"""pypto-lib construct (issue 13, item 6; `deepseek_v4_pro/lm_head.py:205`): a vocabulary tail handled
under `if VOCAB_TAIL != 0:`, where the file's constants make the tail 0. The lowering folds the `if` away
with its chain, so that chain is not one to prove: before, its MADs matched no lowered chain and the kernel
was PV100 ("no lowered chain carries the spans"). `sites` lists it as removed by the lowering."""

import pypto.language as pl

D = 256
K_TILE = 64
VOCAB = 256
VOCAB_TILE = 128
VOCAB_TAIL = VOCAB % VOCAB_TILE
ROWS = 16


@pl.jit
def vocab_proj(x: pl.Tensor[[ROWS, D], pl.BF16], w: pl.Tensor[[VOCAB, D], pl.BF16],
               logits: pl.Out[pl.Tensor[[ROWS, VOCAB], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab_proj"):
        for vb in pl.range(VOCAB // VOCAB_TILE):
            o0 = vb * VOCAB_TILE
            acc = pl.matmul(x[:, 0:K_TILE], w[o0 : o0 + VOCAB_TILE, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
            for kb in pl.range(1, D // K_TILE):
                k0 = kb * K_TILE
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[o0 : o0 + VOCAB_TILE, k0 : k0 + K_TILE],
                                    b_trans=True)
            logits[:, o0 : o0 + VOCAB_TILE] = acc
        if VOCAB_TAIL != 0:
            t0 = VOCAB // VOCAB_TILE * VOCAB_TILE
            tail = pl.matmul(x[:, 0:K_TILE], w[t0 : t0 + VOCAB_TAIL, 0:K_TILE], b_trans=True, out_dtype=pl.FP32)
            for kb in pl.range(1, D // K_TILE):
                k0 = kb * K_TILE
                tail = pl.matmul_acc(tail, x[:, k0 : k0 + K_TILE], w[t0 : t0 + VOCAB_TAIL, k0 : k0 + K_TILE],
                                     b_trans=True)
            logits[:, t0 : t0 + VOCAB_TAIL] = tail
    return logits
