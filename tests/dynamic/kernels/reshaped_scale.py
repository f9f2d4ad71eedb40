"""A per-row scale computed as a `[1, ROWS]` row and reshaped to the `[ROWS, 1]` column that
`row_expand_mul` wants, before a loop over column chunks: the reshape is a view of the row's buffer (as
in PyPTO), so that buffer stays live, out of reach of the loop's tiles, for as long as the column is read."""

import pypto.language as pl

ROWS = 8
COLS = 512
CHUNK = 128
SCALE_MAX = 127.0


@pl.jit
def reshaped_scale(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="reshaped_scale"):
        head = pl.tile.load(x, [0, 0], [ROWS, CHUNK])
        amax = pl.reshape(pl.row_max(pl.abs(head)), [1, ROWS])
        scale_row = pl.div(pl.full([1, ROWS], dtype=pl.FP32, value=SCALE_MAX), amax)
        scale_col = pl.reshape(scale_row, [ROWS, 1])
        for k0 in pl.range(0, COLS, CHUNK):
            chunk = pl.tile.load(x, [0, k0], [ROWS, CHUNK])
            y[:, k0 : k0 + CHUNK] = pl.row_expand_mul(chunk, scale_col)
    return y
