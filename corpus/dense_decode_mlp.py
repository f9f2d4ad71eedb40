"""SwiGLU feed-forward block for one decode step.

Stage one computes the gate and up projections of a column tile in one K loop (one
activation slice, two weight slices per step) and applies ``silu(gate) * up`` on the
vector unit; stage two is the down projection back to the hidden size.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, INTERMEDIATE

GU_N_TILE = 64      # narrow column tile: two [512, 64] weight slices per K step
GU_K_TILE = 512
DOWN_N_TILE = 256
DOWN_K_TILE = 256


@pl.jit
def swiglu_mlp(
    x: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    w_gate: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
    w_up: pl.Tensor[[HIDDEN, INTERMEDIATE], pl.BF16],
    w_down: pl.Tensor[[INTERMEDIATE, HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]],
):
    h = pl.create_tensor([BATCH, INTERMEDIATE], dtype=pl.BF16)
    for gi in pl.spmd(INTERMEDIATE // GU_N_TILE, name_hint="gate_up"):
        n0 = gi * GU_N_TILE
        gate_acc = pl.create_tensor([BATCH, GU_N_TILE], dtype=pl.FP32)
        up_acc = pl.create_tensor([BATCH, GU_N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(HIDDEN // GU_K_TILE, stage=2):
            k0 = kb * GU_K_TILE
            x_chunk = x[:, k0 : k0 + GU_K_TILE]
            wg_chunk = w_gate[k0 : k0 + GU_K_TILE, n0 : n0 + GU_N_TILE]
            wu_chunk = w_up[k0 : k0 + GU_K_TILE, n0 : n0 + GU_N_TILE]
            if kb == 0:
                gate_acc = pl.matmul(x_chunk, wg_chunk, out_dtype=pl.FP32)
                up_acc = pl.matmul(x_chunk, wu_chunk, out_dtype=pl.FP32)
            else:
                gate_acc = pl.matmul_acc(gate_acc, x_chunk, wg_chunk)
                up_acc = pl.matmul_acc(up_acc, x_chunk, wu_chunk)
        sig = pl.recip(pl.add(pl.exp(pl.neg(gate_acc)), 1.0))
        act = pl.mul(pl.mul(gate_acc, sig), up_acc)
        h = pl.assemble(h, pl.cast(act, target_type=pl.BF16), [0, n0])

    for di in pl.spmd(HIDDEN // DOWN_N_TILE, name_hint="down"):
        d0 = di * DOWN_N_TILE
        down_acc = pl.create_tensor([BATCH, DOWN_N_TILE], dtype=pl.FP32)
        for kb in pl.pipeline(INTERMEDIATE // DOWN_K_TILE, stage=2):
            k0 = kb * DOWN_K_TILE
            h_chunk = h[:, k0 : k0 + DOWN_K_TILE]
            wd_chunk = w_down[k0 : k0 + DOWN_K_TILE, d0 : d0 + DOWN_N_TILE]
            if kb == 0:
                down_acc = pl.matmul(h_chunk, wd_chunk, out_dtype=pl.FP32)
            else:
                down_acc = pl.matmul_acc(down_acc, h_chunk, wd_chunk)
        y[:, d0 : d0 + DOWN_N_TILE] = down_acc
    return y


def build_tensor_specs():
    import torch

    shapes = {
        "x": ([BATCH, HIDDEN], torch.bfloat16),
        "w_gate": ([HIDDEN, INTERMEDIATE], torch.bfloat16),
        "w_up": ([HIDDEN, INTERMEDIATE], torch.bfloat16),
        "w_down": ([INTERMEDIATE, HIDDEN], torch.bfloat16),
        "y": ([BATCH, HIDDEN], torch.float32),
    }
    return [(name, shape, dtype, name == "y") for name, (shape, dtype) in shapes.items()]
