"""Split-K with predicated accumulation: every K slice starts its own chain, so the
predicate is on the slice-local step (``kb == 0``), never on the global offset.

``pred_split_i8`` is int8 with SPMD blocks; ``pred_split_fp32`` uses a parallel loop
over slices with a non-pipelined ``pl.range`` K loop. Both zero-seed the output and
atomically add their partial sums.
"""

import pypto.language as pl

ROWS = 16
D = 4096
N_OUT = 512
N_TILE = 256
K_TILE = 512
SPLIT = 4
K_SLICE = D // SPLIT
F_N_OUT = 64
F_K_TILE = 128
F_SPLIT = 2
F_K_SLICE = D // F_SPLIT


@pl.jit
def pred_split_i8(
    x_i8: pl.Tensor[[ROWS, D], pl.INT8],
    w_i8: pl.Tensor[[N_OUT, D], pl.INT8],
    y: pl.Out[pl.Tensor[[ROWS, N_OUT], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_i32"):
        y[:, :] = pl.full([ROWS, N_OUT], dtype=pl.INT32, value=float('nan'))
    for blk in pl.spmd((N_OUT // N_TILE) * SPLIT, name_hint="pred_split_i8"):
        n0 = (blk // SPLIT) * N_TILE
        k_base = (blk % SPLIT) * K_SLICE
        acc = pl.create_tensor([ROWS, N_TILE], dtype=pl.INT32)
        for kb in pl.pipeline(K_SLICE // K_TILE, stage=2):
            k0 = k_base + kb * K_TILE
            acc = pl.matmul_acc(acc, x_i8[:, k0 : k0 + K_TILE], w_i8[n0 : n0 + N_TILE, k0 : k0 + K_TILE], b_trans=True, init_cond=(kb == 0))
        y = pl.assemble(y, acc, [0, n0], atomic=pl.AtomicType.Add)
    return y


@pl.jit
def pred_split_fp32(
    x: pl.Tensor[[ROWS, D], pl.FP32],
    w: pl.Tensor[[D, F_N_OUT], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, F_N_OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero_f32"):
        y[:, :] = pl.full([ROWS, F_N_OUT], dtype=pl.FP32, value=0.0)
    for s in pl.parallel(F_SPLIT):
        k_base = s * F_K_SLICE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_split_fp32"):
            acc = pl.create_tensor([ROWS, F_N_OUT], dtype=pl.FP32)
            for kb in pl.range(F_K_SLICE // F_K_TILE):
                k0 = k_base + kb * F_K_TILE
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + F_K_TILE], w[k0 : k0 + F_K_TILE, :], init_cond=(kb == 0))
            y = pl.assemble(y, acc, [0, 0], atomic=pl.AtomicType.Add)
    return y
