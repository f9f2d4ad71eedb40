"""Conditions on run-time float scalars (PyPTO's `arith.cmpf`, ordered: a NaN compares false, under `!=` too): each
row is kept or negated by the sign of its first activation, and a per-row flag records whether a NaN made by
`0 / 0` compares unequal to itself."""

import pypto.language as pl

ROWS = 16
COLS = 32


@pl.jit
def float_conditions(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    flags: pl.Out[pl.Tensor[[ROWS, 1], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="float_conditions"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        zeros = pl.muls(acts, 0.0)
        nans = pl.div(zeros, zeros)
        for r in pl.range(ROWS):
            lead = pl.tile.read(acts, [r, 0])
            row = pl.tile.load(x, [r, 0], [1, COLS])
            if lead > 0.0:
                y[r : r + 1, :] = pl.muls(row, 2.0)
            else:
                y[r : r + 1, :] = pl.neg(row)
            nan = pl.tile.read(nans, [r, 0])
            pl.write(flags, [r, 0], pl.cast(nan != nan, pl.INT32))
    return y, flags
