"""MADs whose left operand a loop computes across its iterations, in pypto-lib's style (issue 13,
`deepseek_v3_2/decode_front.py:337,541`). The operand is a term of the loop: its range, its inits and the
values its body yields from its iter_args, so the source and its lowering name one term only when their loops
compute alike.

`rotated_rows` normalises a tensor (its row norms viewed `[1, B]` for `pl.sqrt` and back, inline: a reshape that
only adds or drops unit dimensions keeps its operand's block, as once the lowering hoists it), rotates it row by row in a `pl.parallel` loop that assembles each row back
into it (the rotation's angle read per row from a table), then multiplies it by a matrix (decode_front's
Hadamard of `k_idx`). `online_rows` carries an online-softmax accumulator, its running max and its running sum
over the rows of a cache in a `pl.range` loop, divides, casts to BF16 and multiplies the context by a weight
block per output column (decode_front's `oi`). A term over a loop variable the chain's own loops also name:
`../inconclusive/untraced_loops.py`."""
import pypto.language as pl

B, D, N, S, V, VT = 16, 128, 128, 64, 64, 32
HALF = D // 2
SCALE = 0.125


@pl.jit
def rotated_rows(x: pl.Tensor[[B, D], pl.FP32], angles: pl.Tensor[[S, D], pl.FP32], pos_of: pl.Tensor[[B], pl.INT32],
                 w: pl.Tensor[[D, N], pl.BF16], out: pl.Out[pl.Tensor[[B, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotated_rows_norm"):
        sq = pl.add(pl.row_sum(pl.mul(x, x)), 1.0)
        norm = pl.reshape(pl.sqrt(pl.reshape(sq, [1, B])), [B, 1])
        rows = pl.cast(pl.row_expand_div(x, norm), target_type=pl.BF16)
    for b in pl.parallel(B):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotated_rows_rope"):
            pos = pl.read(pos_of, [b])
            cos = angles[pos : pos + 1, 0:HALF]
            lo = pl.cast(rows[b : b + 1, 0:HALF], target_type=pl.FP32)
            hi = pl.cast(rows[b : b + 1, HALF:D], target_type=pl.FP32)
            rows = pl.assemble(rows, pl.cast(pl.col_expand_mul(lo, cos), target_type=pl.BF16), [b, 0])
            rows = pl.assemble(rows, pl.cast(pl.col_expand_mul(hi, cos), target_type=pl.BF16), [b, HALF])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotated_rows_matmul"):
        product = pl.matmul(rows, w, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rotated_rows_write"):
        out = pl.assemble(out, product, [0, 0])
    return out


@pl.jit
def online_rows(q: pl.Tensor[[B, D], pl.FP32], cache: pl.Tensor[[S, D], pl.BF16], w: pl.Tensor[[D, V], pl.BF16],
                out: pl.Out[pl.Tensor[[B, V], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_rows_softmax"):
        row0 = pl.cast(cache[0:1, :], target_type=pl.FP32)
        oi = pl.col_expand(pl.full([B, D], dtype=pl.FP32, value=0.0), row0)
        mi = pl.mul(pl.row_sum(pl.mul(q, oi)), SCALE)
        li = pl.exp(pl.sub(mi, mi))
        for s in pl.range(1, S):
            row = pl.cast(cache[s : s + 1, :], target_type=pl.FP32)
            kv = pl.col_expand(pl.full([B, D], dtype=pl.FP32, value=0.0), row)
            cur = pl.mul(pl.row_sum(pl.mul(q, kv)), SCALE)
            mi_new = pl.maximum(mi, cur)
            alpha = pl.exp(pl.sub(mi, mi_new))
            beta = pl.exp(pl.sub(cur, mi_new))
            li = pl.add(pl.mul(alpha, li), beta)
            oi = pl.add(pl.row_expand_mul(oi, alpha), pl.row_expand_mul(kv, beta))
            mi = mi_new
        ctx = pl.row_expand_div(oi, li)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_rows_cast"):
        ctx_bf16 = pl.cast(ctx, target_type=pl.BF16)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_rows_proj"):
        acc = pl.full([B, V], dtype=pl.FP32, value=0.0)
        for v0 in pl.range(0, V, VT):
            part = pl.matmul(ctx_bf16, w[:, v0 : v0 + VT], out_dtype=pl.FP32)
            acc = pl.assemble(acc, part, [0, v0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_rows_write"):
        out = pl.assemble(out, acc, [0, 0])
    return out


@pl.jit
def sliced_rows(x: pl.Tensor[[B, D], pl.FP32], s: pl.Tensor[[B, 1], pl.FP32], w: pl.Tensor[[D, N], pl.BF16],
                out: pl.Out[pl.Tensor[[B, N], pl.FP32]]):
    # windows written inline (`pl.cast(pl.slice(...))`): the lowering hoists each into a load of its own, the
    # same window of `x`
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="sliced_rows"):
        rows = pl.cast(pl.slice(x, [B, D], [0, 0]), target_type=pl.BF16)
        for r in pl.range(0, B, 8):
            row = pl.row_expand_mul(pl.slice(x, [8, D], [r, 0]), pl.slice(s, [8, 1], [r, 0]))
            rows = pl.assemble(rows, pl.cast(row, target_type=pl.BF16), [r, 0])
        out[:, :] = pl.matmul(rows, w, out_dtype=pl.FP32)
    return out
