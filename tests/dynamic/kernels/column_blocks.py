"""A narrow assemble: each 32-column block of a projection is one matmul, assembled into its columns of a
16 x 64 Mat staging tile (PyPTO: a `pto.subview` of the staging tile, then `tmov` into it), which then
feeds a second matmul. The second block's column offset is a run-time scalar. `lane_blocks` assembles two
Vec results into the column halves of a Vec tile (a Vec -> Vec `tmov`)."""

import pypto.language as pl

M = 16
K = 64
N = 64
N_BLOCK = 32
N_OUT = 16


@pl.jit
def column_blocks(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    v: pl.Tensor[[N, N_OUT], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N_OUT], pl.FP32]],
    second: pl.Scalar[pl.INDEX],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="column_blocks"):
        staged = pl.create_tile([M, N], dtype=pl.FP32, target_memory=pl.MemorySpace.Mat)
        first_block = pl.matmul(x[:, :], w[:, 0:N_BLOCK])
        left = pl.assemble(staged, first_block, [0, 0])
        second_block = pl.matmul(x[:, :], w[:, N_BLOCK:N])
        both = pl.assemble(left, second_block, [0, second])
        y[:, :] = pl.matmul(both, v[:, :])
    return y


@pl.jit
def lane_blocks(
    x: pl.Tensor[[M, N], pl.FP32],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_blocks"):
        staged = pl.create_tile([M, N], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        grown = pl.exp(pl.load(x, [0, 0], [M, N_BLOCK], target_memory=pl.MemorySpace.Vec))
        left = pl.assemble(staged, grown, [0, 0])
        doubled = pl.mul(pl.load(x, [0, N_BLOCK], [M, N_BLOCK], target_memory=pl.MemorySpace.Vec), 2.0)
        both = pl.assemble(left, doubled, [0, N_BLOCK])
        y[:, :] = both
    return y
