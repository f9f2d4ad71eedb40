"""Rows gathered by index straight into an L1 buffer (`pl.create_l1` + `pl.gather_row`), then used as
the cube's right operand both transposed (scores) and not (weighted sum)."""

import pypto.language as pl

HEADS = 16
DIM = 64
SLOTS = 32
POOL = 256


@pl.jit
def gathered_attention(
    q: pl.Tensor[[HEADS, DIM], pl.BF16],
    pool: pl.Tensor[[POOL, DIM], pl.BF16],
    slot_ids: pl.Tensor[[SLOTS], pl.INT32],
    probs: pl.Tensor[[HEADS, SLOTS], pl.BF16],
    scores: pl.Out[pl.Tensor[[HEADS, SLOTS], pl.FP32]],
    mixed: pl.Out[pl.Tensor[[HEADS, DIM], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gathered_attention"):
        kv = pl.create_l1([SLOTS, DIM], pl.BF16)
        for r in pl.range(SLOTS):
            row = pl.cast(pl.read(slot_ids, [r]), pl.INDEX)
            if row >= 0:
                kv = pl.gather_row(kv, pool, [r, 0], [row, 0], [1, DIM])
            else:
                kv = pl.gather_row(kv, pool, [r, 0], [0, 0], [1, DIM])
        qk = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
        scores[:, :] = qk
        pv = pl.matmul(probs, kv, out_dtype=pl.FP32)
        mixed[:, :] = pv
    return scores, mixed
