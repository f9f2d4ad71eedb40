"""Grouped-query decode attention over a paged-free KV cache, one KV head group at a time.

Per (sequence, KV head): the query rows of the group (padded to 16) are scored against
each 256-key block of the cache, softmax runs on the vector unit over the valid blocks,
and the probabilities are multiplied into the value cache. The context length is a
runtime scalar read from ``seq_lens``; the caller pads every context to whole key
blocks (``1 <= seq_lens[b] <= MAX_SEQ``).
"""

import pypto.language as pl

from model_config import HEAD_DIM, MAX_SEQ, NUM_HEADS, NUM_KV_HEADS, SEQ_TILE

ATT_BATCH = 4
Q_PER_KV = NUM_HEADS // NUM_KV_HEADS
Q_HEAD_PAD = 16                       # cube rows: the 4 grouped heads padded to 16
GROUPS = ATT_BATCH * NUM_KV_HEADS
QK_K_TILE = HEAD_DIM                  # the whole head dim in one step
SM_SCALE = 1.0 / (HEAD_DIM ** 0.5)
NEG_INF = -1.0e30


@pl.jit
def gqa_decode(
    q_pad: pl.Tensor[[GROUPS * Q_HEAD_PAD, HEAD_DIM], pl.BF16],
    k_cache: pl.Tensor[[GROUPS * MAX_SEQ, HEAD_DIM], pl.BF16],
    v_cache: pl.Tensor[[GROUPS * MAX_SEQ, HEAD_DIM], pl.BF16],
    seq_lens: pl.Tensor[[ATT_BATCH], pl.INT32],
    out: pl.Out[pl.Tensor[[GROUPS * Q_HEAD_PAD, HEAD_DIM], pl.BF16]],
):
    for b in pl.parallel(ATT_BATCH):
        ctx_len = pl.read(seq_lens, [b])
        ctx_blocks = (ctx_len + SEQ_TILE - 1) // SEQ_TILE
        for g in pl.parallel(NUM_KV_HEADS):
            q_row = (b * NUM_KV_HEADS + g) * Q_HEAD_PAD
            kv_row = (b * NUM_KV_HEADS + g) * MAX_SEQ
            scores = pl.create_tensor([Q_HEAD_PAD, MAX_SEQ], dtype=pl.FP32)
            for sb in pl.range(ctx_blocks):
                s0 = sb * SEQ_TILE
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="qk"):
                    s_acc = pl.create_tensor([Q_HEAD_PAD, SEQ_TILE], dtype=pl.FP32)
                    for db in pl.pipeline(HEAD_DIM // QK_K_TILE, stage=2):
                        d0 = db * QK_K_TILE
                        q_t = q_pad[q_row : q_row + Q_HEAD_PAD, d0 : d0 + QK_K_TILE]
                        k_t = k_cache[kv_row + s0 : kv_row + s0 + SEQ_TILE, d0 : d0 + QK_K_TILE]
                        if db == 0:
                            s_acc = pl.matmul(q_t, k_t, b_trans=True, out_dtype=pl.FP32)
                        else:
                            s_acc = pl.matmul_acc(s_acc, q_t, k_t, b_trans=True)
                    scores = pl.assemble(scores, pl.mul(s_acc, SM_SCALE), [0, s0])

            with pl.at(level=pl.Level.CORE_GROUP, name_hint="softmax"):
                row_max = pl.full([Q_HEAD_PAD, 1], dtype=pl.FP32, value=NEG_INF)
                for sb in pl.range(ctx_blocks):
                    s0 = sb * SEQ_TILE
                    row_max = pl.maximum(row_max, pl.row_max(scores[:, s0 : s0 + SEQ_TILE]))
                row_den = pl.full([Q_HEAD_PAD, 1], dtype=pl.FP32, value=0.0)
                probs = pl.create_tensor([Q_HEAD_PAD, MAX_SEQ], dtype=pl.BF16)
                for sb in pl.range(ctx_blocks):
                    s0 = sb * SEQ_TILE
                    p = pl.exp(pl.row_expand_sub(scores[:, s0 : s0 + SEQ_TILE], row_max))
                    row_den = pl.add(row_den, pl.row_sum(p))
                    probs = pl.assemble(probs, pl.cast(p, target_type=pl.BF16), [0, s0])

            with pl.at(level=pl.Level.CORE_GROUP, name_hint="pv"):
                o_acc = pl.create_tensor([Q_HEAD_PAD, HEAD_DIM], dtype=pl.FP32)
                for sb in pl.pipeline(ctx_blocks, stage=2):
                    s0 = sb * SEQ_TILE
                    p_t = probs[:, s0 : s0 + SEQ_TILE]
                    v_t = v_cache[kv_row + s0 : kv_row + s0 + SEQ_TILE, :]
                    if sb == 0:
                        o_acc = pl.matmul(p_t, v_t, out_dtype=pl.FP32)
                    else:
                        o_acc = pl.matmul_acc(o_acc, p_t, v_t)
                o_norm = pl.row_expand_div(o_acc, row_den)
                out[q_row : q_row + Q_HEAD_PAD, :] = pl.cast(o_norm, target_type=pl.BF16)
    return out


def golden_gqa_decode(tensors):
    import torch

    lens = tensors["seq_lens"].tolist()
    for b, n in enumerate(lens):
        n = (n + SEQ_TILE - 1) // SEQ_TILE * SEQ_TILE
        for g in range(NUM_KV_HEADS):
            row = (b * NUM_KV_HEADS + g)
            q = tensors["q_pad"][row * Q_HEAD_PAD : (row + 1) * Q_HEAD_PAD].float()
            k = tensors["k_cache"][row * MAX_SEQ : row * MAX_SEQ + n].float()
            v = tensors["v_cache"][row * MAX_SEQ : row * MAX_SEQ + n].float()
            p = torch.softmax(q @ k.T * SM_SCALE, dim=-1)
            tensors["out"][row * Q_HEAD_PAD : (row + 1) * Q_HEAD_PAD] = (p @ v).bfloat16()
