"""`pl.UINT8` codes dequantised on the vector unit: each row of codes is widened to FP32, shifted by the
code's midpoint and scaled by its row's factor, the result stored as BF16."""

import pypto.language as pl

ROWS = 32
CODES = 64
ROW_TILE = 16
MIDPOINT = 128.0


@pl.jit
def dequant_codes(
    codes: pl.Tensor[[ROWS, CODES], pl.UINT8],
    row_scale: pl.Tensor[[ROWS, 1], pl.FP32],
    out: pl.Out[pl.Tensor[[ROWS, CODES], pl.BF16]],
):
    for rb in pl.parallel(ROWS // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="dequant_codes"):
            wide = pl.cast(codes[r0 : r0 + ROW_TILE, :], target_type=pl.FP32)
            centred = pl.sub(wide, MIDPOINT)
            factor = pl.tile.load(row_scale, [r0, 0], [ROW_TILE, 1])
            scaled = pl.row_expand_mul(centred, factor)
            out[r0 : r0 + ROW_TILE, :] = pl.cast(scaled, target_type=pl.BF16)
    return out
