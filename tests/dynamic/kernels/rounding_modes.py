"""A requantisation chain with explicit rounding modes, as int8 quantisers write it: FP32 -> INT32 to
nearest even, INT32 -> FP16 to nearest with ties away from zero (past 2048 an odd integer is a tie),
FP16 -> INT8 truncated. The FP16 values are stored back as INT32 (exactly: they are integers), so a
one-step difference of a tie is an exact difference."""

import pypto.language as pl

ROWS = 16
COLS = 64
WIDEN = 4352.0  # 17 * 256: the odd multiples of 1/256 the inputs are become odd integers (ties past 2048)
NARROW = 1.0 / 128.0


@pl.jit
def requantise(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    rounded: pl.Out[pl.Tensor[[ROWS, COLS], pl.INT32]],
    codes: pl.Out[pl.Tensor[[ROWS, COLS], pl.INT8]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="requantise"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        wide_i32 = pl.cast(pl.mul(acts, WIDEN), target_type=pl.INT32, mode="rint")
        wide_half = pl.cast(wide_i32, target_type=pl.FP16, mode="round")
        rounded[:, :] = pl.cast(wide_half, target_type=pl.INT32, mode="rint")
        codes[:, :] = pl.cast(pl.mul(wide_half, NARROW), target_type=pl.INT8, mode="trunc")
    return rounded, codes
