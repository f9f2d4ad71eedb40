"""Run-time float scalars cast to INT32 (`pl.cast(v, pl.INT32)`, PyPTO's `arith.fptosi`: toward zero): each row's
first scaled activation, read back from the tile, is stored as an integer code."""

import pypto.language as pl

ROWS = 16
COLS = 32
SCALE = 20.0


@pl.jit
def truncated_codes(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    codes: pl.Out[pl.Tensor[[ROWS, 1], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="truncated_codes"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        scaled = pl.muls(acts, SCALE)
        for r in pl.range(ROWS):
            pl.write(codes, [r, 0], pl.cast(pl.tile.read(scaled, [r, 0]), pl.INT32))
    return codes
