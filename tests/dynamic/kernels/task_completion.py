"""A parameter that only receives task ids (PyPTO's `pl.Array[1, pl.TASK_ID]`): the kernel records the task that
wrote its result there, for its caller to order the next task after; it carries no data the kernel reads."""

import pypto.language as pl

ROWS = 32
COLS = 64
ROW_TILE = 16


@pl.jit.inline
def scaled_rows_with_completion(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Tensor[[ROWS, COLS], pl.FP32],
    completion: pl.Array[1, pl.TASK_ID],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale_rows") as scale_tid:
        for rb in pl.range(ROWS // ROW_TILE):
            r0 = rb * ROW_TILE
            rows = pl.tile.load(x, [r0, 0], [ROW_TILE, COLS])
            y[r0 : r0 + ROW_TILE, :] = pl.muls(rows, 3.0)
    completion[0] = pl.system.task_dummy(deps=[scale_tid])
    return y
