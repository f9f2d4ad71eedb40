"""Low-rank attention KV up-projection (decode, BF16): the compressed KV latent of each token is
expanded back to the per-head key/value width, one 256-wide output tile per SPMD block.

The latent is short (KV_LORA = 512), so each output tile is a four-block K reduction walked by a
derived offset in a software-pipelined loop; the FP32 result is scaled by the latent's RMS gain
before it is stored.
"""

import pypto.language as pl

from model_config import BATCH, HEAD_DIM, KV_LORA, NUM_KV_HEADS

KV_OUT = 2 * NUM_KV_HEADS * HEAD_DIM
N_TILE = 256
K_TILE = 128
LATENT_GAIN = 0.0625


@pl.jit
def kv_up_proj(
    kv_latent: pl.Tensor[[BATCH, KV_LORA], pl.BF16],
    w_kv_b: pl.Tensor[[KV_OUT, KV_LORA], pl.BF16],
    kv: pl.Out[pl.Tensor[[BATCH, KV_OUT], pl.FP32]],
):
    for nb in pl.spmd(KV_OUT // N_TILE, name_hint="kv_up_proj"):
        n0 = nb * N_TILE
        acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(KV_LORA // K_TILE, stage=2):
            k0 = kb * K_TILE
            la = kv_latent[:, k0 : k0 + K_TILE]
            wb = w_kv_b[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(la, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, la, wb, b_trans=True)
        kv[:, n0 : n0 + N_TILE] = pl.mul(acc, LATENT_GAIN)
    return kv
