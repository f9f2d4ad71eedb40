"""Attention output projection with the residual add, decode step.

``attn`` holds the concatenated head outputs of the batch; the kernel multiplies it by
``wo``, adds the layer input back and writes the BF16 hidden state for the next block.
The residual is added on the vector side after the K loop has drained the accumulator.
"""

import pypto.language as pl

from model_config import BATCH, HIDDEN, Q_HIDDEN

O_N_TILE = 256
O_K_TILE = 128


@pl.jit
def o_proj_residual(
    attn: pl.Tensor[[BATCH, Q_HIDDEN], pl.BF16],
    wo: pl.Tensor[[Q_HIDDEN, HIDDEN], pl.BF16],
    hidden: pl.Tensor[[BATCH, HIDDEN], pl.BF16],
    out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.BF16]],
):
    for ob in pl.parallel(HIDDEN // O_N_TILE):
        o0 = ob * O_N_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="o_proj"):
            o_acc = pl.create_tensor([BATCH, O_N_TILE], dtype=pl.FP32)
            for kb in pl.pipeline(Q_HIDDEN // O_K_TILE, stage=2):
                k0 = kb * O_K_TILE
                a_chunk = attn[:, k0 : k0 + O_K_TILE]
                w_chunk = wo[k0 : k0 + O_K_TILE, o0 : o0 + O_N_TILE]
                if k0 == 0:
                    o_acc = pl.matmul(a_chunk, w_chunk, out_dtype=pl.FP32)
                else:
                    o_acc = pl.matmul_acc(o_acc, a_chunk, w_chunk)
            resid = pl.cast(hidden[:, o0 : o0 + O_N_TILE], target_type=pl.FP32)
            summed = pl.add(o_acc, resid)
            out[:, o0 : o0 + O_N_TILE] = pl.cast(summed, target_type=pl.BF16)
    return out


def golden_o_proj_residual(tensors):
    proj = tensors["attn"].float() @ tensors["wo"].float()
    tensors["out"][:] = (proj + tensors["hidden"].float()).bfloat16()


if __name__ == "__main__":
    import argparse

    cli = argparse.ArgumentParser(description="run o_proj_residual on a device or the simulator")
    cli.add_argument("--platform", default="a2a3sim")
    cli.add_argument("--device", type=int, default=0)
    opts = cli.parse_args()
    print(f"would launch o_proj_residual on {opts.platform}:{opts.device}")
