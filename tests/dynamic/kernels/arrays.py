"""On-core arrays (`pl.array.create`): ``row_shuffle`` fills an INT32 array with a row order, then loads the rows
of `x` in that order; ``staged_scale`` keeps the task ids of its two launches in a TASK_ID array that a third
launch depends on (`deps=`), as an orchestration does; ``swapped_pairs`` writes an INT64 array in both arms of an
`if` and reads it inside a load's offsets."""

import pypto.language as pl

ROWS = 8
COLS = 64
STEP = 3
HALF = ROWS // 2


@pl.jit
def row_shuffle(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_shuffle"):
        order = pl.array.create(ROWS, pl.INT32)
        for r in pl.range(ROWS):
            order[r] = (r * STEP) % ROWS
        for r in pl.range(ROWS):
            src = order[r]
            y[r : r + 1, :] = pl.tile.load(x, [src, 0], [1, COLS])
    return y


@pl.jit
def staged_scale(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    scaled = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    halves = pl.array.create(2, pl.TASK_ID)
    for h in pl.range(2):
        with pl.spmd(HALF, name_hint="scale") as scale_tid:
            r = h * HALF + pl.tile.get_block_idx()
            scaled[r : r + 1, :] = pl.muls(pl.tile.load(x, [r, 0], [1, COLS]), 3.0)
        halves[h] = scale_tid
    with pl.spmd(ROWS, name_hint="shift", deps=[halves[i] for i in range(2)]):
        r = pl.tile.get_block_idx()
        y[r : r + 1, :] = pl.adds(pl.tile.load(scaled, [r, 0], [1, COLS]), 1.0)
    return y


@pl.jit
def swapped_pairs(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swapped_pairs"):
        order = pl.array.create(ROWS, pl.INT64)
        for r in pl.range(ROWS):
            if r % 2 == 0:
                order[r] = r + 1
            else:
                order[r] = r - 1
        for r in pl.range(ROWS):
            y[r : r + 1, :] = pl.tile.load(x, [order[r], 0], [1, COLS])
    return y
