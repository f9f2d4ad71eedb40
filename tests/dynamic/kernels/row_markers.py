"""Per-row markers stored element by element (`pl.write` of a scalar into a GM tensor): each row's scale
and a tag per column that encodes its row and column."""

import pypto.language as pl

ROWS = 8
COLS = 4
TAG_BASE = 3


@pl.jit
def row_markers(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    scale: pl.Out[pl.Tensor[[ROWS, 1], pl.FP32]],
    tags: pl.Out[pl.Tensor[[ROWS, COLS], pl.INT32]],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_markers"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        y[:, :] = pl.muls(acts, 2.0)
        for r in pl.range(ROWS):
            pl.write(scale, [r, 0], pl.cast(0.25, pl.FP32))
            for c in pl.range(COLS):
                pl.write(tags, [r, c], pl.cast(r * COLS + c + TAG_BASE, pl.INT32))
    return scale, tags, y
