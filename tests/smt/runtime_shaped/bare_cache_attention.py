"""pypto-lib construct (issue 13; `qwen3_14b/decode_layer_a8w8.py` `_decode_layer`): a `pl.jit` entry whose KV
caches are bare `pl.Tensor`s; the scores of a query block against a K window are soft-maxed, cast to BF16 and
multiplied by the V window. The cast's shape comes from the bare window's (the slice's own), so its K blocks
are traced. `cache_attention` is one MAD the lowering tiles into three L0 blocks of K; `cache_attention_blocks`
walks the same K blocks in a loop of its own; `cache_attention_repeats` reads K block 0 of the
probabilities twice and never block 2 (PV106)."""

import pypto.language as pl

HEADS = 16
DIM = 128
TILE = 384
TK = 128


@pl.jit
def cache_attention(q: pl.Tensor[[HEADS, DIM], pl.BF16], k_cache: pl.Tensor, v_cache: pl.Tensor,
                    out: pl.Out[pl.Tensor[[HEADS, DIM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cache_attention"):
        k_tile = pl.slice(k_cache, [TILE, DIM], [0, 0])
        raw_scores = pl.matmul(q, k_tile, b_trans=True, out_dtype=pl.FP32)
        cur_mi = pl.row_max(raw_scores)
        exp_scores = pl.exp(pl.row_expand_sub(raw_scores, cur_mi))
        exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
        v_tile = pl.slice(v_cache, [TILE, DIM], [0, 0])
        oi = pl.matmul(exp_scores_bf16, v_tile, out_dtype=pl.FP32)
        out = pl.assemble(out, oi, [0, 0])
    return out


@pl.jit
def cache_attention_blocks(q: pl.Tensor[[HEADS, DIM], pl.BF16], k_cache: pl.Tensor, v_cache: pl.Tensor,
                           out: pl.Out[pl.Tensor[[HEADS, DIM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cache_attention_blocks"):
        k_tile = pl.slice(k_cache, [TILE, DIM], [0, 0])
        raw_scores = pl.matmul(q, k_tile, b_trans=True, out_dtype=pl.FP32)
        cur_mi = pl.row_max(raw_scores)
        exp_scores = pl.exp(pl.row_expand_sub(raw_scores, cur_mi))
        exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
        v_first = pl.slice(v_cache, [TK, DIM], [0, 0])
        oi = pl.matmul(exp_scores_bf16[0:HEADS, 0:TK], v_first, out_dtype=pl.FP32)
        for kb in pl.range(1, TILE // TK):
            k0 = kb * TK
            v_block = pl.slice(v_cache, [TK, DIM], [k0, 0])
            oi = pl.matmul_acc(oi, exp_scores_bf16[0:HEADS, k0 : k0 + TK], v_block)
        out = pl.assemble(out, oi, [0, 0])
    return out


@pl.jit
def cache_attention_repeats(q: pl.Tensor[[HEADS, DIM], pl.BF16], k_cache: pl.Tensor, v_cache: pl.Tensor,
                            out: pl.Out[pl.Tensor[[HEADS, DIM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cache_attention_repeats"):
        k_tile = pl.slice(k_cache, [TILE, DIM], [0, 0])
        raw_scores = pl.matmul(q, k_tile, b_trans=True, out_dtype=pl.FP32)
        cur_mi = pl.row_max(raw_scores)
        exp_scores = pl.exp(pl.row_expand_sub(raw_scores, cur_mi))
        exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
        v_first = pl.slice(v_cache, [TK, DIM], [0, 0])
        oi = pl.matmul(exp_scores_bf16[0:HEADS, 0:TK], v_first, out_dtype=pl.FP32)
        for kb in pl.range(1, TILE // TK):
            k0 = kb * TK
            v_block = pl.slice(v_cache, [TK, DIM], [k0, 0])
            oi = pl.matmul_acc(oi, exp_scores_bf16[0:HEADS, k0 - TK : k0], v_block)  # expect: PV106
        out = pl.assemble(out, oi, [0, 0])
    return out
