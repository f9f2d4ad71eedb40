"""Paged attention in pypto-lib's style (issue 13: `qwen3_14b/prefill_fwd.py`, the deepseek_v4 `decode_indexer.py`
kernels): operands computed from blocks that are themselves traced.

`stacked_queries` stacks four query blocks into one left operand (`pl.reshape` of a `pl.concat` of row-major
flattened blocks) and multiplies it by a K window of 384 columns: the lowering tiles K into three L0 blocks of the
stacked value, a term of the four blocks' own. `stacked_queries_repeats` walks those K blocks in a loop of its own
and reads block [0, 128) twice, [256, 384) never (PV106).

`masked_pages` soft-maxes the scores of each page under a valid length given inline (`pl.fillpad(
pl.set_validshape(pl.mul(raw, scale), ...))`, a view of the product, not an op of its own) and multiplies them by
the page's V rows, read at a row the page table gives, in a pipelined loop whose clone re-reads the table.

`counted_pages` runs that pipeline over a page count read at run time: the lowering's remainder copy (`if
unroll_rem == 1:`) stands for the source's iteration `(pages // 2) * 2`, where it re-reads the table."""
import pypto.language as pl

H, D, TILE, TK, PAGES = 16, 128, 384, 128, 4
SCALE = 0.125


@pl.jit
def stacked_queries(q: pl.Tensor[[4 * H, TILE], pl.BF16], k: pl.Tensor[[D, TILE], pl.BF16],
                    y: pl.Out[pl.Tensor[[4 * H, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stacked_queries"):
        q0 = pl.slice(q, [H, TILE], [0, 0])
        q1 = pl.slice(q, [H, TILE], [H, 0])
        q2 = pl.slice(q, [H, TILE], [2 * H, 0])
        q3 = pl.slice(q, [H, TILE], [3 * H, 0])
        q_batch = pl.reshape(
            pl.concat(
                pl.concat(pl.reshape(q0, [1, H * TILE]), pl.reshape(q1, [1, H * TILE])),
                pl.concat(pl.reshape(q2, [1, H * TILE]), pl.reshape(q3, [1, H * TILE])),
            ),
            [4 * H, TILE],
        )
        k_tile = pl.slice(k, [D, TILE], [0, 0])
        scores = pl.matmul(q_batch, k_tile, b_trans=True, out_dtype=pl.FP32)
        y = pl.assemble(y, scores, [0, 0])
    return y


@pl.jit
def stacked_queries_repeats(q: pl.Tensor[[4 * H, TILE], pl.BF16], k: pl.Tensor[[TILE, D], pl.BF16],
                            y: pl.Out[pl.Tensor[[4 * H, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stacked_queries_repeats"):
        q0 = pl.slice(q, [H, TILE], [0, 0])
        q1 = pl.slice(q, [H, TILE], [H, 0])
        q2 = pl.slice(q, [H, TILE], [2 * H, 0])
        q3 = pl.slice(q, [H, TILE], [3 * H, 0])
        q_batch = pl.reshape(
            pl.concat(
                pl.concat(pl.reshape(q0, [1, H * TILE]), pl.reshape(q1, [1, H * TILE])),
                pl.concat(pl.reshape(q2, [1, H * TILE]), pl.reshape(q3, [1, H * TILE])),
            ),
            [4 * H, TILE],
        )
        scores = pl.matmul(q_batch[:, 0:TK], k[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, TILE // TK):
            k0 = kb * TK
            scores = pl.matmul_acc(scores, q_batch[:, k0 - TK : k0], k[k0 : k0 + TK, :])  # expect: PV106
        y = pl.assemble(y, scores, [0, 0])
    return y


@pl.jit
def masked_pages(q: pl.Tensor[[H, D], pl.BF16], k_cache: pl.Tensor[[PAGES * TK, D], pl.BF16],
                 v_cache: pl.Tensor[[PAGES * TK, D], pl.BF16], table: pl.Tensor[[PAGES], pl.INT32],
                 lens: pl.Tensor[[PAGES], pl.INT32], out: pl.Out[pl.Tensor[[PAGES * H, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="masked_pages"):
        for p in pl.pipeline(0, PAGES, stage=2):
            page = pl.cast(pl.read(table, [p]), pl.INDEX)
            valid_len = pl.cast(pl.read(lens, [p]), pl.INDEX)
            row = page * TK
            k_tile = pl.slice(k_cache, [TK, D], [row, 0])
            v_tile = pl.slice(v_cache, [TK, D], [row, 0])
            raw_scores = pl.matmul(q, k_tile, b_trans=True, out_dtype=pl.FP32)
            scores = pl.fillpad(
                pl.set_validshape(pl.mul(raw_scores, SCALE), H, valid_len),
                pad_value=pl.PadValue.min,
            )
            cur_mi = pl.row_max(scores)
            exp_scores = pl.exp(pl.row_expand_sub(scores, cur_mi))
            exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
            oi = pl.matmul(exp_scores_bf16, v_tile, out_dtype=pl.FP32)
            out = pl.assemble(out, oi, [p * H, 0])
    return out


@pl.jit
def counted_pages(q: pl.Tensor[[H, D], pl.BF16], k_cache: pl.Tensor[[PAGES * TK, D], pl.BF16],
                  table: pl.Tensor[[PAGES], pl.INT32], count: pl.Tensor[[1], pl.INT32],
                  out: pl.Out[pl.Tensor[[PAGES * H, TK], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="counted_pages"):
        pages = pl.cast(pl.read(count, [0]), pl.INDEX)
        for p in pl.pipeline(0, pages, stage=2):
            page = pl.cast(pl.read(table, [p]), pl.INDEX)
            row = page * TK
            k_tile = pl.slice(k_cache, [TK, D], [row, 0])
            scores = pl.matmul(q, k_tile, b_trans=True, out_dtype=pl.FP32)
            out = pl.assemble(out, scores, [p * H, 0])
    return out
