"""pypto-lib construct (issue 13, item 1; `deepseek_v4_pro/decode_sparse_attn_hca.py:310`): an accumulator
drained by a MAD-free `pl.unroll` loop, one row band per iteration. The loop's trip count is a literal, so
each iteration's drain is encoded on its own (`smt/encode.py`, `UNROLLED_EVENTS`); before, the iteration
was a free constant and PV103 / PV105 were inconclusive."""

import pypto.language as pl

H = 16
M_TILE = 32
D = 512
K_TILE = 128
N = 64
BANDS = M_TILE // H


@pl.jit
def banded_drain(q: pl.Tensor[[M_TILE, D], pl.BF16], kv: pl.Tensor[[D, N], pl.BF16],
                 out: pl.Out[pl.Tensor[[2 * M_TILE, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="banded_drain"):
        acc = pl.create_tensor([M_TILE, N], dtype=pl.FP32)
        for kb in pl.range(D // K_TILE):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(q[:, k0 : k0 + K_TILE], kv[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, q[:, k0 : k0 + K_TILE], kv[k0 : k0 + K_TILE, :])
        for band in pl.unroll(BANDS):
            r0 = band * H
            out[2 * r0 : 2 * r0 + H, :] = acc[r0 : r0 + H, :]
    return out
