"""pypto-lib construct (issue 13; `deepseek_v4_flash_mtp/decode_sparse_attn_hca.py:257`): a MAD whose left
operand is computed in the kernel (a softmax of scores, cast to BF16) from a product whose K (512) the
lowering splits into L0 blocks. The source names the scores by the one MAD that computes them, the lowering
computes them by an accumulation it cannot name (`mm?(n)`): a model of PV105 then proves nothing, and the
obligation is inconclusive with that reason, never refuted (it was refuted once the drain loop below was
encoded exactly). With a K that fits one L0 block both sides name the product alike and it is verified
(`tests/library_ops/kernels/chained_products.py`)."""

import pypto.language as pl

H = 16
M_TILE = 32
N = 512
S = 128


@pl.jit
def scores_pv(q: pl.Tensor[[M_TILE, N], pl.BF16], kv: pl.Tensor[[S, N], pl.BF16],
              out: pl.Out[pl.Tensor[[M_TILE, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores_pv"):
        raw = pl.matmul(q, kv, b_trans=True, out_dtype=pl.FP32)
        probs = pl.cast(pl.exp(pl.mul(raw, 0.125)), target_type=pl.BF16, mode="rint")
        oi = pl.matmul(probs, kv, out_dtype=pl.FP32)
        for band in pl.unroll(M_TILE // H):
            r0 = band * H
            out[r0 : r0 + H, :] = oi[r0 : r0 + H, :]
    return out
