"""Per-row level tables looked up by packed codes (`pl.gather` along the last axis): each code's low
three bits pick one of the row's eight levels, then the picked levels are scaled; and the levels
reversed by an order written element by element into a GM tensor (indices read from GM)."""

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


@pl.jit
def reversed_levels(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.FP32]],
    order_out: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="reversed_levels"):
        levels = pl.tile.load(table, [0, 0], [ROWS, LEVELS])
        order = pl.create_tensor([ROWS, LEVELS], dtype=pl.INT32)
        for r in pl.range(ROWS):
            for k in pl.range(LEVELS):
                pl.write(order, [r, k], pl.cast(LEVELS - 1 - k, pl.INT32))
        values = pl.gather(levels, dim=-1, index=order)
        y[:, :] = pl.muls(values, 2.0)
        order_out[:, :] = order[:, :]
    return y, order_out


@pl.jit
def tagged_levels(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    codes: pl.Tensor[[ROWS, CODES], pl.UINT8],
    y: pl.Out[pl.Tensor[[ROWS, CODES], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tagged_levels"):
        packed = pl.tile.load(codes, [0, 0], [ROWS, CODES])
        wide = pl.cast(pl.cast(packed, target_type=pl.FP16), target_type=pl.FP32)
        picks = pl.cast(pl.fmods(wide, 8.0), target_type=pl.INT32, mode="trunc")
        levels = pl.tile.load(table, [0, 0], [ROWS, LEVELS])
        halved = pl.muls(levels, 0.5)
        values = pl.gather(halved, dim=-1, index=picks)
        y[:, :] = pl.add(values, pl.cast(picks, target_type=pl.FP32))
    return y
