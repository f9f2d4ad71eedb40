"""``scaled_then_doubled`` scales its rows, then calls ``double_rows`` of `bound_helper.py`, which that module binds
when imported (`double_rows = _bind_double()`): not read, so not spliced, and the skip shows the binding."""

import pypto.language as pl

from bound_helper import COLS, ROWS, double_rows


@pl.jit
def scaled_then_doubled(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    scaled: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
        rows = pl.load(x, [0, 0], [ROWS, COLS])
        tripled = pl.mul(rows, 3.0)
        scaled = pl.store(tripled, [0, 0], scaled)
    y = double_rows(scaled, y)
    return scaled, y
