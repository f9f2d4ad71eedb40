"""An inline function another kernel file imports (`inline_calls.py`): it centres one row band per block of the
launch its caller runs it in, its block index the caller's."""

import pypto.language as pl

ROWS = pl.dynamic("ROW_COUNT")
COLS = 128
TILE = 8


@pl.jit.inline
def centre_band(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32]):
    r0 = pl.tile.get_block_idx() * TILE
    band = pl.load(x, [r0, 0], [TILE, COLS])
    peak = pl.row_max(band)
    centred = pl.row_expand_sub(band, peak)
    y = pl.store(centred, [r0, 0], y)
    return y
