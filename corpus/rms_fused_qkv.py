"""RMSNorm fused in front of the Q and K/V projections (decode).

The vector scope normalises the BF16 input into a scratch tensor; the cube scopes then
project it. Weights are ``[N, HIDDEN]`` (transposed B operand). The K/V loop walks the
reduction by element offset and feeds two accumulators from each activation slice.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, KV_HIDDEN, Q_HIDDEN

NORM_CHUNK = 512
EPS = 1e-6
INV_HIDDEN = 1.0 / HIDDEN

Q_N_TILE = 64
Q_K_TILE = 512
KV_N_TILE = 64
KV_K_TILE = 256


@pl.jit
def rms_qkv(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    gamma: pl.Tensor[[1, HIDDEN], pl.FP32],
    wq: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
    wk: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
    wv: pl.Tensor[[KV_HIDDEN, HIDDEN], pl.BF16],
    q: pl.Out[pl.Tensor[[BATCH, Q_HIDDEN], pl.FP32]],
    k: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
    v: pl.Out[pl.Tensor[[BATCH, KV_HIDDEN], pl.FP32]],
):
    xn = pl.create_tensor([BATCH, HIDDEN], dtype=pl.BF16)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rmsnorm"):
        sq = pl.full([BATCH, 1], dtype=pl.FP32, value=0.0)
        for cb in pl.range(HIDDEN // NORM_CHUNK):
            c0 = cb * NORM_CHUNK
            xc = pl.cast(x[:, c0 : c0 + NORM_CHUNK], target_type=pl.FP32)
            sq = pl.add(sq, pl.row_sum(pl.mul(xc, xc)))
        inv_rms = pl.rsqrt(pl.add(pl.mul(sq, INV_HIDDEN), EPS))
        for cb in pl.range(HIDDEN // NORM_CHUNK):
            c0 = cb * NORM_CHUNK
            xc = pl.cast(x[:, c0 : c0 + NORM_CHUNK], target_type=pl.FP32)
            scaled = pl.col_expand_mul(pl.row_expand_mul(xc, inv_rms), gamma[:, c0 : c0 + NORM_CHUNK])
            xn = pl.assemble(xn, pl.cast(scaled, target_type=pl.BF16), [0, c0])

    for qi in pl.spmd(Q_HIDDEN // Q_N_TILE, name_hint="q_proj"):
        n0 = qi * Q_N_TILE
        q_acc = pl.create_tensor([BATCH, Q_N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // Q_K_TILE, stage=2):
            k0 = kb * Q_K_TILE
            xa = xn[:, k0 : k0 + Q_K_TILE]
            wb = wq[n0 : n0 + Q_N_TILE, k0 : k0 + Q_K_TILE]
            if k0 == 0:
                q_acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wb, b_trans=True)
        q = pl.assemble(q, q_acc, [0, n0])

    for kvi in pl.spmd(KV_HIDDEN // KV_N_TILE, name_hint="kv_proj"):
        n0 = kvi * KV_N_TILE
        k_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.FP32)
        v_acc = pl.create_tensor([BATCH, KV_N_TILE], dtype=pl.FP32)
        for k0 in pl.pipeline(0, HIDDEN, KV_K_TILE, stage=2):
            xa = xn[:, k0 : k0 + KV_K_TILE]
            wkb = wk[n0 : n0 + KV_N_TILE, k0 : k0 + KV_K_TILE]
            wvb = wv[n0 : n0 + KV_N_TILE, k0 : k0 + KV_K_TILE]
            if k0 == 0:
                k_acc = pl.matmul(xa, wkb, b_trans=True, out_dtype=pl.FP32)
                v_acc = pl.matmul(xa, wvb, b_trans=True, out_dtype=pl.FP32)
            else:
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
                v_acc = pl.matmul_acc(v_acc, xa, wvb, b_trans=True)
        k = pl.assemble(k, k_acc, [0, n0])
        v = pl.assemble(v, v_acc, [0, n0])
    return q, k, v
