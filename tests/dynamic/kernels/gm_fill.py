"""`pl.full` tensors the kernel stores windows into, kept in GM by the lowering: ``padded_rows_fill`` pads eight
scaled rows to sixteen with a fill value, ``plane_fill`` fills a 3-D BF16 staging tensor and overwrites one row
of each plane before reading both planes back; ``striped_copy`` zero-fills a staging tensor, stores every other
row of `x` into it and assembles the whole of it into the middle band of `y` (a GM tensor into a GM tensor)."""

import pypto.language as pl

ROWS = 8
PAD = 16
COLS = 64
WIDE = 256
PLANES = 2


@pl.jit
def padded_rows_fill(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[PAD, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="padded_rows_fill"):
        stage = pl.full([PAD, COLS], dtype=pl.FP32, value=-2.5)
        stage[0:ROWS, :] = pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0)
        y[:, :] = pl.adds(pl.tile.load(stage, [0, 0], [PAD, COLS]), 1.0)
    return y


@pl.jit
def plane_fill(
    x: pl.Tensor[[PLANES, WIDE], pl.BF16],
    y: pl.Out[pl.Tensor[[PLANES * PAD, WIDE], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="plane_fill"):
        stage = pl.full([PLANES, PAD, WIDE], dtype=pl.BF16, value=0.75)
        for p in pl.range(PLANES):
            stage[p : p + 1, 3:4, :] = pl.tile.load(x, [p, 0], [1, WIDE])
        flat = pl.reshape(stage, [PLANES * PAD, WIDE])
        for p in pl.range(PLANES):
            y[p * PAD : p * PAD + PAD, :] = pl.cast(pl.tile.load(flat, [p * PAD, 0], [PAD, WIDE]), target_type=pl.FP32)
    return y


@pl.jit
def striped_copy(
    x: pl.Tensor[[PAD, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[3 * PAD, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="striped_copy"):
        stage = pl.full([PAD, COLS], dtype=pl.FP32, value=0.0)
        for r in pl.range(0, PAD, 2):
            stage[r : r + 1, :] = pl.tile.load(x, [r, 0], [1, COLS])
        y = pl.assemble(y, stage, [PAD, 0])
        y[0:PAD, :] = pl.tile.load(x, [0, 0], [PAD, COLS])
    return y
