"""pypto-lib construct (issue 13; `deepseek_v4_pro/decode_sparse_attn_hca.py:310`): a MAD whose left operand
is computed in the kernel (a softmax of scores, cast to BF16) from scores the kernel accumulates itself over
a K loop. The model names a one-MAD product (and the L0 blocks its lowering splits it into) by that MAD, but
not a reduction the kernel writes, whose partial sums could be read between steps (`mm?(n)`): a model of
PV105 then proves nothing, and the obligation is inconclusive with that reason, never refuted (it was refuted
once the drain loop below was encoded exactly). A one-MAD product is traced and verified
(`tests/library_ops/kernels/chained_products.py`)."""

import pypto.language as pl

H = 16
M_TILE = 32
N = 64
K_TILE = 32
S = 128


@pl.jit
def scores_pv(q: pl.Tensor[[M_TILE, N], pl.BF16], kv: pl.Tensor[[S, N], pl.BF16],
              out: pl.Out[pl.Tensor[[M_TILE, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores_pv"):
        raw = pl.create_tensor([M_TILE, S], dtype=pl.FP32)
        for k0 in pl.range(0, N, K_TILE):
            raw = pl.matmul_acc(raw, q[:, k0 : k0 + K_TILE], kv[:, k0 : k0 + K_TILE], b_trans=True,
                                init_cond=(k0 == 0))
        probs = pl.cast(pl.exp(pl.mul(raw, 0.125)), target_type=pl.BF16, mode="rint")
        oi = pl.matmul(probs, kv, out_dtype=pl.FP32)
        for band in pl.unroll(M_TILE // H):
            r0 = band * H
            out[r0 : r0 + H, :] = oi[r0 : r0 + H, :]
    return out
