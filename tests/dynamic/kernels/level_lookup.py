"""Per-row level tables looked up by packed codes (`pl.gather` along the last axis): each code's low
three bits pick one of the row's eight levels, then the picked levels are scaled."""

import pypto.language as pl

ROWS = 8
LEVELS = 8
CODES = 16


@pl.jit
def level_lookup(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    codes: pl.Tensor[[ROWS, CODES], pl.UINT8],
    y: pl.Out[pl.Tensor[[ROWS, CODES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="level_lookup"):
        levels = pl.tile.load(table, [0, 0], [ROWS, LEVELS])
        packed = pl.tile.load(codes, [0, 0], [ROWS, CODES])
        wide = pl.cast(pl.cast(packed, target_type=pl.FP16), target_type=pl.FP32)
        picks = pl.cast(pl.fmods(wide, 8.0), target_type=pl.INT32, mode="trunc")
        values = pl.gather(levels, dim=-1, index=picks)
        y[:, :] = pl.muls(values, 0.5)
    return y
