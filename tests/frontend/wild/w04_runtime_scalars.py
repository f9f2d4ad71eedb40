"""Wild construct: runtime scalars (`ctx_len = pl.read(seq_lens, [b])`, arithmetic on them) used as
loop bounds, slice offsets and `valid_shape`s: symbolic values, not errors."""

import pypto.language as pl

BATCH = 4
MAX_SEQ = 1024
HEAD_DIM = 128
SEQ_TILE = 64


@pl.jit
def decode_scores(q: pl.Tensor[[BATCH, HEAD_DIM], pl.BF16], k_cache: pl.Tensor[[BATCH * MAX_SEQ, HEAD_DIM], pl.BF16],
                  seq_lens: pl.Tensor[[BATCH], pl.INT32], scores: pl.Out[pl.Tensor[[BATCH, MAX_SEQ], pl.FP32]]):
    for b in pl.parallel(BATCH):
        ctx_len = pl.read(seq_lens, [b])
        ctx_blocks = (ctx_len + SEQ_TILE - 1) // SEQ_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores"):
            for sb in pl.range(ctx_blocks):
                s0 = sb * SEQ_TILE
                valid = pl.min(ctx_len - s0, SEQ_TILE)
                kt = k_cache[b * MAX_SEQ + s0 : b * MAX_SEQ + s0 + SEQ_TILE, :]
                st = pl.matmul(q[b : b + 1, :], kt, b_trans=True, out_dtype=pl.FP32)
                st = pl.set_validshape(st, 1, valid)
                scores[b : b + 1, s0 : s0 + SEQ_TILE] = st
    return scores
