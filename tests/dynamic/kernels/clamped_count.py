"""A run-time row count clamped by `if`s, as routers clamp their token count: the count is a scalar phi of
the two arms (no tile is written under the `if`), then bounds the row loop. The last row tile is left alone."""

import pypto.language as pl

ROWS = 256
COLS = 64
ROW_TILE = 16
LIMIT = ROWS - ROW_TILE


@pl.jit
def clamped_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    num_rows: pl.Scalar[pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    active_rows = pl.cast(num_rows, pl.INDEX)
    if active_rows < 0:
        active_rows = pl.cast(0, pl.INDEX)
    if active_rows > LIMIT:
        active_rows = pl.cast(LIMIT, pl.INDEX)
    for rb in pl.range(active_rows // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="clamped_rows"):
            rows = pl.tile.load(x, [r0, 0], [ROW_TILE, COLS])
            y[r0 : r0 + ROW_TILE, :] = pl.add(rows, 1.0)
    return y
