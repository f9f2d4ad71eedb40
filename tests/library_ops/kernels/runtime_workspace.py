"""A workspace of a run-time number of rows (`pl.create_tensor([t_dim, N])`), written by `pl.store` in
one scope and read back by `pl.load` in the next: a GM tensor, as PyPTO types it, never a tile."""

import pypto.language as pl

T_DYN = pl.dynamic("T")
ROWS = 16
DIM = 64
N = 64


@pl.jit
def staged_projection(
    x: pl.Tensor[[T_DYN, DIM], pl.BF16],
    w: pl.Tensor[[DIM, N], pl.BF16],
    out: pl.Out[pl.Tensor[[T_DYN, N], pl.FP32]],
):
    t_dim = pl.tensor.dim(x, 0)
    stage = pl.create_tensor([t_dim, N], dtype=pl.FP32)
    for r0 in pl.range(0, t_dim, ROWS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="project"):
            xa = x[r0 : r0 + ROWS, :]
            acc = pl.matmul(xa, w, out_dtype=pl.FP32)
            pl.store(acc, [r0, 0], stage)
    for r0 in pl.range(0, t_dim, ROWS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            part = pl.load(stage, [r0, 0], [ROWS, N], target_memory=pl.MemorySpace.Vec)
            out[r0 : r0 + ROWS, :] = pl.mul(part, 2.0)
    return out
