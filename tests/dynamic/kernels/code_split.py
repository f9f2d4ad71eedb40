"""Packed `pl.UINT8` codes split into their two nibbles on the vector unit: the low nibble is the
remainder of the widened code by 16 (`pl.fmods`), the high one the exact quotient of what is left."""

import pypto.language as pl

ROWS = 32
CODES = 64
ROW_TILE = 16
BASE = 16.0


@pl.jit
def nibble_split(
    codes: pl.Tensor[[ROWS, CODES], pl.UINT8],
    lo: pl.Out[pl.Tensor[[ROWS, CODES], pl.FP32]],
    hi: pl.Out[pl.Tensor[[ROWS, CODES], pl.FP32]],
):
    for rb in pl.parallel(ROWS // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="nibble_split"):
            packed = pl.tile.load(codes, [r0, 0], [ROW_TILE, CODES])
            wide = pl.cast(packed, target_type=pl.FP32)
            low = pl.fmods(wide, BASE)
            high = pl.div(pl.sub(wide, low), BASE)
            lo[r0 : r0 + ROW_TILE, :] = low
            hi[r0 : r0 + ROW_TILE, :] = high
    return lo, hi
