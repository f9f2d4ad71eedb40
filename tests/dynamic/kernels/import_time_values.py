"""A kernel that compares against a float its module computes when it is imported (a solver's result, as
pypto-lib's Lloyd-Max boundaries): pypto-verify never executes the module, so the value is unknown (the reader
keeps it as `pl.dynamic("_LOW")`): the simulation samples it where it is an op's scalar operand (``floor_rows``),
the same value on both sides, named, and says why it has none where it is a name of its own (``ceiling_rows``) or
inside another op the lowering keeps as tile-tile (``clamp_rows``)."""

import pypto.language as pl

ROWS = 16
COLS = 64


def _solve_levels(count):
    import torch

    return [float(x) for x in torch.linspace(-0.5, 0.5, count)]


_LOW, _HIGH = _solve_levels(2)


@pl.jit
def floor_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    floored = pl.maximum(rows, _LOW)
    y = pl.store(floored, [0, 0], y)
    return y


@pl.jit
def clamp_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    clamped = pl.minimum(pl.maximum(rows, _LOW), _HIGH)
    y = pl.store(clamped, [0, 0], y)
    return y


@pl.jit
def ceiling_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    rows = pl.load(x, [0, 0], [ROWS, COLS])
    ceiling = _HIGH
    capped = pl.minimum(rows, ceiling)
    y = pl.store(capped, [0, 0], y)
    return y
