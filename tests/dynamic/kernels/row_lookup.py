"""Levels looked up one row at a time: each row of a computed tile, sliced at the loop's row (a
run-time offset), is gathered by the magnitudes of that row's codes (`pl.gather` along the last
axis) and stored."""

import pypto.language as pl

ROWS = 8
LEVELS = 16


@pl.jit
def row_lookup(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    codes: pl.Tensor[[ROWS, LEVELS], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_lookup"):
        levels = pl.muls(pl.tile.load(table, [0, 0], [ROWS, LEVELS]), 0.5)
        for r in pl.range(ROWS):
            level_row = levels[r : r + 1, :]
            code_row = pl.tile.load(codes, [r, 0], [1, LEVELS])
            picks = pl.cast(pl.abs(pl.cast(code_row, target_type=pl.FP32)), target_type=pl.INT32, mode="trunc")
            y[r : r + 1, :] = pl.gather(level_row, dim=-1, index=picks)
    return y
