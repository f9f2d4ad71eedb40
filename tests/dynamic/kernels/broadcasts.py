"""`pl.row_expand` / `pl.col_expand` broadcasts: a per-row factor and a per-column offset spread over the
whole tile (the first operand gives the shape), then combined with the activation element-wise. The
column offsets are row 0 of a two-row table."""

import pypto.language as pl

ROWS = 16
COLS = 64


@pl.jit
def spread_scales(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    row_w: pl.Tensor[[ROWS, 1], pl.FP32],
    col_table: pl.Tensor[[2, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="spread_scales"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        factors = pl.tile.load(row_w, [0, 0], [ROWS, 1])
        offsets = pl.tile.load(col_table, [0, 0], [1, COLS])
        factor_plane = pl.row_expand(pl.full([ROWS, COLS], dtype=pl.FP32, value=0.0), factors)
        offset_plane = pl.col_expand(pl.full([ROWS, COLS], dtype=pl.FP32, value=0.0), offsets)
        y[:, :] = pl.add(pl.mul(acts, factor_plane), offset_plane)
    return y
