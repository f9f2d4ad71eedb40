"""Attention scores summed over two halves of the head dimension in pypto-lib's style (issue 13,
`deepseek_v4_flash_dspark/decode_sparse_attn_hca.py:376,381`): `scores = pl.matmul(q[:, 0:HALF], k_lo)` then
`scores = pl.matmul_acc(scores, q[:, HALF:D], k_hi)`, a straight line of two MADs whose sum is soft-maxed, cast
to BF16 and multiplied by the V rows. The sum is a term of both MADs' operand blocks, so the probabilities'
K blocks are traced: `two_part_scores` multiplies them in one MAD; `two_part_scores_repeats` walks their K
blocks in a loop of its own and reads block [0, 64) twice, [64, 128) never (PV106)."""
import pypto.language as pl

H, D, HALF, S, TK = 16, 128, 64, 128, 64
SCALE = 0.0625


@pl.jit
def two_part_scores(q: pl.Tensor[[H, D], pl.BF16], k: pl.Tensor[[S, D], pl.BF16], v: pl.Tensor[[S, D], pl.BF16],
                    out: pl.Out[pl.Tensor[[H, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="two_part_scores"):
        scores = pl.matmul(q[:, 0:HALF], k[:, 0:HALF], b_trans=True, out_dtype=pl.FP32)
        scores = pl.matmul_acc(scores, q[:, HALF:D], k[:, HALF:D], b_trans=True)
        scaled = pl.mul(scores, SCALE)
        exp_scores = pl.exp(pl.row_expand_sub(scaled, pl.row_max(scaled)))
        exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
        oi = pl.matmul(exp_scores_bf16, v, out_dtype=pl.FP32)
        out = pl.assemble(out, oi, [0, 0])
    return out


@pl.jit
def two_part_scores_repeats(q: pl.Tensor[[H, D], pl.BF16], k: pl.Tensor[[S, D], pl.BF16],
                            v: pl.Tensor[[S, D], pl.BF16], out: pl.Out[pl.Tensor[[H, D], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="two_part_scores_repeats"):
        scores = pl.matmul(q[:, 0:HALF], k[:, 0:HALF], b_trans=True, out_dtype=pl.FP32)
        scores = pl.matmul_acc(scores, q[:, HALF:D], k[:, HALF:D], b_trans=True)
        scaled = pl.mul(scores, SCALE)
        exp_scores = pl.exp(pl.row_expand_sub(scaled, pl.row_max(scaled)))
        exp_scores_bf16 = pl.cast(exp_scores, target_type=pl.BF16)
        oi = pl.matmul(exp_scores_bf16[:, 0:TK], v[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, S // TK):
            k0 = kb * TK
            oi = pl.matmul_acc(oi, exp_scores_bf16[:, k0 - TK : k0], v[k0 : k0 + TK, :])  # expect: PV106
        out = pl.assemble(out, oi, [0, 0])
    return out
