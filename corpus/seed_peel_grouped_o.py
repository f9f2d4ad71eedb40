"""Grouped low-rank output projection (decode), peeled seeds throughout.

Stage A projects each head group's outputs through its own ``wo_a[g]`` (3-D weights,
leading unit group dim kept on the slice, accumulator ``[1, M, N]``). Stage B maps the
int8-quantised low-rank result back to the hidden size with an int8 weight.
"""

import pypto.language as pl

GROUPS = 4
ROWS = 16
G_IN = 1024
O_LORA = 256
A_N_TILE = 256
A_K_TILE = 256
HIDDEN_OUT = 2048
B_N_TILE = 256
B_K_TILE = 512
Q_SCALE = 8.0


@pl.jit
def grouped_o_proj(
    o_heads: pl.Tensor[[ROWS, GROUPS * G_IN], pl.BF16],
    wo_a: pl.Tensor[[GROUPS, O_LORA, G_IN], pl.BF16],
    wo_b: pl.Tensor[[HIDDEN_OUT, GROUPS * O_LORA], pl.INT8],
    out: pl.Out[pl.Tensor[[ROWS, HIDDEN_OUT], pl.FP32]],
):
    o_r = pl.create_tensor([ROWS, GROUPS * O_LORA], dtype=pl.FP32)
    for g in pl.parallel(GROUPS):
        col_in = g * G_IN
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj_a"):
            wa0 = wo_a[g : g + 1, 0:A_N_TILE, 0:A_K_TILE]
            acc_a = pl.matmul(o_heads[:, col_in : col_in + A_K_TILE], wa0, b_trans=True, out_dtype=pl.FP32)
            for kb in pl.pipeline(1, G_IN // A_K_TILE, stage=2):
                k0 = kb * A_K_TILE
                xa = o_heads[:, col_in + k0 : col_in + k0 + A_K_TILE]
                wa = wo_a[g : g + 1, 0:A_N_TILE, k0 : k0 + A_K_TILE]
                acc_a = pl.matmul_acc(acc_a, xa, wa, b_trans=True)
            o_r = pl.assemble(o_r, acc_a, [0, g * O_LORA])

    o_r_i8 = pl.create_tensor([ROWS, GROUPS * O_LORA], dtype=pl.INT8)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="quant"):
        o_r_i8 = pl.assemble(o_r_i8, pl.cast(pl.mul(o_r, Q_SCALE), target_type=pl.INT8, mode="rint"), [0, 0])

    for nb in pl.spmd(HIDDEN_OUT // B_N_TILE, name_hint="proj_b"):
        n0 = nb * B_N_TILE
        acc_b = pl.matmul(o_r_i8[:, 0:B_K_TILE], wo_b[n0 : n0 + B_N_TILE, 0:B_K_TILE], b_trans=True)
        for kb in pl.range(1, (GROUPS * O_LORA) // B_K_TILE):
            k0 = kb * B_K_TILE
            acc_b = pl.matmul_acc(acc_b, o_r_i8[:, k0 : k0 + B_K_TILE], wo_b[n0 : n0 + B_N_TILE, k0 : k0 + B_K_TILE], b_trans=True)
        out[:, n0 : n0 + B_N_TILE] = pl.mul(pl.cast(acc_b, target_type=pl.FP32), 1.0 / Q_SCALE)
    return out
