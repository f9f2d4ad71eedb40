"""Levels looked up for a ragged block of rows, as prefill_sparse_attn's rope tables at its last tile: the table's
first `LEFT` rows loaded into an 8-row tile (`valid_shape`), gathered row by row by 8 rows of codes
(`pl.gather(x, dim=-1, index=i)`), and only the `LEFT` valid rows of the result stored. The rows past `LEFT` are
read from the tile's padding, which nothing filled; the twin ``ragged_lookup_whole`` stores them too."""

import pypto.language as pl

ROWS = 8
LEVELS = 16
LEFT = 5


@pl.jit
def ragged_lookup(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    codes: pl.Tensor[[ROWS, LEVELS], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged_lookup"):
        levels = pl.slice(table, [ROWS, LEVELS], [0, 0], valid_shape=[LEFT, LEVELS])
        code_rows = pl.tile.load(codes, [0, 0], [ROWS, LEVELS])
        picks = pl.cast(pl.abs(pl.cast(code_rows, target_type=pl.FP32)), target_type=pl.INT32, mode="trunc")
        looked = pl.gather(levels, dim=-1, index=picks)
        kept = pl.set_validshape(looked, LEFT, LEVELS)
        y[:, :] = kept
    return y


@pl.jit
def ragged_lookup_whole(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    codes: pl.Tensor[[ROWS, LEVELS], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged_lookup_whole"):
        levels = pl.slice(table, [ROWS, LEVELS], [0, 0], valid_shape=[LEFT, LEVELS])
        code_rows = pl.tile.load(codes, [0, 0], [ROWS, LEVELS])
        picks = pl.cast(pl.abs(pl.cast(code_rows, target_type=pl.FP32)), target_type=pl.INT32, mode="trunc")
        looked = pl.gather(levels, dim=-1, index=picks)
        y[:, :] = looked
    return y
