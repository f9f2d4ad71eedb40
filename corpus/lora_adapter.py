"""Base projection plus a LoRA adapter (BF16, decode).

The base weight and the adapter's down-projection ``A`` read the same activation
slice, so one K loop (walked by offset) carries two chains of different widths; the
rank-32 intermediate goes through ``B`` in a short non-pipelined loop and is added to
the base output with the adapter scale.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN

OUT = 1024
N_TILE = 256
RANK = 32
K_TILE = 256
LORA_SCALE = 2.0


@pl.jit
def lora_proj(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_base: pl.Tensor[[OUT, HIDDEN], pl.BF16],
    lora_a: pl.Tensor[[RANK, HIDDEN], pl.BF16],
    lora_b: pl.Tensor[[RANK, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[BATCH, OUT], pl.FP32]],
):
    for nb in pl.spmd(OUT // N_TILE, name_hint="lora_proj"):
        n0 = nb * N_TILE
        base_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        down_acc = pl.create_tensor([BATCH, RANK], dtype=pl.FP32)
        for k0 in pl.pipeline(0, HIDDEN, K_TILE, stage=2):
            xa = x[:, k0 : k0 + K_TILE]
            wb = w_base[n0 : n0 + N_TILE, k0 : k0 + K_TILE]
            wa = lora_a[:, k0 : k0 + K_TILE]
            if k0 == 0:
                base_acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                down_acc = pl.matmul(xa, wa, b_trans=True, out_dtype=pl.FP32)
            else:
                base_acc = pl.matmul_acc(base_acc, xa, wb, b_trans=True)
                down_acc = pl.matmul_acc(down_acc, xa, wa, b_trans=True)
        mid = pl.create_tensor([BATCH, RANK], dtype=pl.BF16)
        mid[:, :] = pl.cast(down_acc, target_type=pl.BF16)
        up_acc = pl.create_tensor([BATCH, N_TILE], dtype=pl.FP32)
        for rb in pl.range(RANK // 16):
            r0 = rb * 16
            ma = mid[:, r0 : r0 + 16]
            bb = lora_b[r0 : r0 + 16, n0 : n0 + N_TILE]
            if rb == 0:
                up_acc = pl.matmul(ma, bb, out_dtype=pl.FP32)
            else:
                up_acc = pl.matmul_acc(up_acc, ma, bb)
        y[:, n0 : n0 + N_TILE] = pl.add(base_acc, pl.mul(up_acc, LORA_SCALE))
    return y
