"""Query/key projections of one head fused with rotary embedding (BF16, decode).

The runtime position of each sequence (``positions[b]``) selects the cos/sin row; the
query and key tiles of a head share each activation slice in one K loop.
"""

import pypto.language as pl

from model_config import HEAD_DIM, HIDDEN, MAX_SEQ, ROPE_DIM

SEQS = 16
HEADS = 8
K_TILE = 256


@pl.jit
def rope_qk(
    x: pl.Tensor[[SEQS, HIDDEN], pl.BF16],
    wq: pl.Tensor[[HEADS * HEAD_DIM, HIDDEN], pl.BF16],
    wk: pl.Tensor[[HEADS * HEAD_DIM, HIDDEN], pl.BF16],
    cos_tab: pl.Tensor[[MAX_SEQ, ROPE_DIM], pl.FP32],
    sin_tab: pl.Tensor[[MAX_SEQ, ROPE_DIM], pl.FP32],
    positions: pl.Tensor[[SEQS], pl.INT32],
    q: pl.Out[pl.Tensor[[SEQS, HEADS * HEAD_DIM], pl.BF16]],
    k: pl.Out[pl.Tensor[[SEQS, HEADS * HEAD_DIM], pl.BF16]],
):
    for h in pl.spmd(HEADS, name_hint="rope_qk"):
        c0 = h * HEAD_DIM
        q_acc = pl.create_tensor([SEQS, HEAD_DIM], dtype=pl.FP32)
        k_acc = pl.create_tensor([SEQS, HEAD_DIM], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wqb = wq[c0 : c0 + HEAD_DIM, k0 : k0 + K_TILE]
            wkb = wk[c0 : c0 + HEAD_DIM, k0 : k0 + K_TILE]
            if k0 == 0:
                q_acc = pl.matmul(xa, wqb, b_trans=True, out_dtype=pl.FP32)
                k_acc = pl.matmul(xa, wkb, b_trans=True, out_dtype=pl.FP32)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wqb, b_trans=True)
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
        q_tile = pl.create_tensor([SEQS, HEAD_DIM], dtype=pl.FP32)
        k_tile = pl.create_tensor([SEQS, HEAD_DIM], dtype=pl.FP32)
        q_tile[:, :] = q_acc
        k_tile[:, :] = k_acc
        for b in pl.range(SEQS):
            pos = pl.read(positions, [b])
            cs = cos_tab[pos : pos + 1, :]
            sn = sin_tab[pos : pos + 1, :]
            q_lo = q_tile[b : b + 1, 0:ROPE_DIM]
            q_hi = q_tile[b : b + 1, ROPE_DIM:HEAD_DIM]
            k_lo = k_tile[b : b + 1, 0:ROPE_DIM]
            k_hi = k_tile[b : b + 1, ROPE_DIM:HEAD_DIM]
            q[b : b + 1, c0 : c0 + ROPE_DIM] = pl.cast(pl.sub(pl.mul(q_lo, cs), pl.mul(q_hi, sn)), target_type=pl.BF16)
            q[b : b + 1, c0 + ROPE_DIM : c0 + HEAD_DIM] = pl.cast(pl.add(pl.mul(q_hi, cs), pl.mul(q_lo, sn)), target_type=pl.BF16)
            k[b : b + 1, c0 : c0 + ROPE_DIM] = pl.cast(pl.sub(pl.mul(k_lo, cs), pl.mul(k_hi, sn)), target_type=pl.BF16)
            k[b : b + 1, c0 + ROPE_DIM : c0 + HEAD_DIM] = pl.cast(pl.add(pl.mul(k_hi, cs), pl.mul(k_lo, sn)), target_type=pl.BF16)
    return q, k
