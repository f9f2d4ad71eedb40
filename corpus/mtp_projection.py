"""Multi-token-prediction input projection: ``[norm(emb) | norm(hidden)] @ w_proj``
without materialising the concatenation.

One chain per output tile runs through two K loops: the first (over the embedding
half) seeds at its first block, the second (over the hidden half) only accumulates.
"""

import pypto.language as pl

from model_config import BATCH

HIDDEN = 1024           # draft-module width
N_TILE = 256
K_TILE = 256
KB = HIDDEN // K_TILE


@pl.jit
def mtp_proj(
    emb_n: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    hid_n: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_proj: pl.Tensor[[HIDDEN, 2 * HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]],
):
    for nb in pl.spmd(HIDDEN // N_TILE, name_hint="mtp_proj"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(KB, stage=2):
            k0 = kb * K_TILE
            ea = emb_n[:, k0 : k0 + K_TILE]
            wb = w_proj[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(ea, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, ea, wb, b_trans=True)
        for kb in pl.pipeline(KB, stage=2):
            k0 = kb * K_TILE
            ha = hid_n[:, k0 : k0 + K_TILE]
            wb = w_proj[n0 : n0 + N_TILE, HIDDEN + k0 : HIDDEN + k0 + K_TILE]
            acc = pl.matmul_acc(acc, ha, wb, b_trans=True)
        y[:, n0 : n0 + N_TILE] = acc
    return y
