"""A kernel whose scalars its module computes when imported (with torch, as `turboquant_kv.py` solves its
quantiser's thresholds): pypto-verify never executes the file, so the simulation samples them, the same values on
both sides, and names them (`sizes.module_values`). The test swaps the two in the lowered form (a mismatch)."""

import pypto.language as pl

ROWS = 16
COLS = 64


def _solve_scales(n):
    import torch

    return [float(v) for v in torch.linspace(0.25, 0.5, n)]


_s0, _s1 = _solve_scales(2)


@pl.jit
def scaled_sum(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled_sum"):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        a = pl.mul(t, _s0)
        b = pl.add(a, _s1)
        y = pl.store(b, [0, 0], y)
    return y
