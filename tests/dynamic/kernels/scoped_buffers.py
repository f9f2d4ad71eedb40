"""Two InCore scopes of one kernel whose Vec buffers are shared across them by memory reuse: `pl.at`
scopes outline into functions of their own, each allocating from address 0, so what one scope holds may
sit where the other's buffers are (they are never live together). ``gain_then_mix`` scales one row and
then a wide block in its first scope (the block takes most of the unified buffer) and mixes two square
blocks in its second."""

import pypto.language as pl

ROWS = 64
WIDE = 640
SQUARE = 128


@pl.jit
def gain_then_mix(
    g: pl.Tensor[[1, WIDE], pl.FP32],
    a: pl.Tensor[[ROWS, WIDE], pl.FP32],
    p: pl.Tensor[[SQUARE, SQUARE], pl.FP32],
    q: pl.Tensor[[SQUARE, SQUARE], pl.FP32],
    gy: pl.Out[pl.Tensor[[1, WIDE], pl.FP32]],
    y: pl.Out[pl.Tensor[[ROWS, WIDE], pl.FP32]],
    z: pl.Out[pl.Tensor[[SQUARE, SQUARE], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide"):
        gain = pl.load(g, [0, 0], [1, WIDE], target_memory=pl.MemorySpace.Vec)
        gy[:, :] = pl.mul(gain, 2.0)
        wide = pl.load(a, [0, 0], [ROWS, WIDE], target_memory=pl.MemorySpace.Vec)
        y[:, :] = pl.mul(wide, 0.5)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mix"):
        left = pl.load(p, [0, 0], [SQUARE, SQUARE], target_memory=pl.MemorySpace.Vec)
        right = pl.load(q, [0, 0], [SQUARE, SQUARE], target_memory=pl.MemorySpace.Vec)
        z[:, :] = pl.add(pl.exp(left), right)
    return gy, y, z
