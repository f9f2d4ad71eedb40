"""A projection of activations halved on the vector unit first: the matmul's left operand is computed in
Vec, so it reaches the cube through a Mat tile."""

import pypto.language as pl

ROWS = 16
HIDDEN = 64
OUT = 32


@pl.jit
def halved_projection(
    x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
    w: pl.Tensor[[OUT, HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="halved_projection"):
        acts = pl.tile.load(x, [0, 0], [ROWS, HIDDEN])
        halved = pl.cast(pl.muls(acts, 0.5), target_type=pl.BF16)
        weights = pl.tile.load(w, [0, 0], [OUT, HIDDEN], target_memory=pl.Mem.Mat)
        y[:, :] = pl.matmul(halved, weights, b_trans=True, out_dtype=pl.FP32)
    return y
