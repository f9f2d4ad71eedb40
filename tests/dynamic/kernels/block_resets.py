"""A `pl.spmd` step that sets again a scalar its function set before, as `moe.py`'s `dispatch` clamps its token
count in its meta scope and again in each block of its push launch: the lowering carries the name through the
launch (a loop), but every block sets it before it reads it, so no value crosses from block to block and the
step is emitted; after the step the name has no one value (the blocks left theirs on cores of their own).

``clamped_bands`` copies the first `count` rows (clamped to `ROWS`) of its input twice: rows once in its head
scope, then each block of the launch copies the rows of its band below the clamped count, scaled.
``clamped_bands_after`` reads the count the launch leaves: not emitted, and it says why.
"""

import pypto.language as pl

ROWS = 16
COLS = 64
BLOCKS = 2
BAND = ROWS // BLOCKS


@pl.jit
def clamped_bands(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    head: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    count: pl.Scalar[pl.INT32],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="head"):
        active = pl.cast(count, pl.INDEX)
        if active > ROWS:
            active = pl.cast(ROWS, pl.INDEX)
        for r in pl.range(active):
            row = pl.load(x, [r, 0], [1, COLS])
            head = pl.store(row, [r, 0], head)
    with pl.spmd(BLOCKS, name_hint="bands"):
        b = pl.tile.get_block_idx()
        active = pl.cast(count, pl.INDEX)
        if active > ROWS:
            active = pl.cast(ROWS, pl.INDEX)
        for i in pl.range(BAND):
            r = b * BAND + i
            if r < active:
                row = pl.load(x, [r, 0], [1, COLS])
                scaled = pl.mul(row, 2.0)
                y = pl.store(scaled, [r, 0], y)
    return head, y


@pl.jit
def clamped_bands_after(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    count: pl.Scalar[pl.INT32],
):
    active = pl.cast(0, pl.INDEX)
    with pl.spmd(BLOCKS, name_hint="bands"):
        b = pl.tile.get_block_idx()
        active = pl.cast(count, pl.INDEX)
        if active > ROWS:
            active = pl.cast(ROWS, pl.INDEX)
        for i in pl.range(BAND):
            r = b * BAND + i
            if r < active:
                row = pl.load(x, [r, 0], [1, COLS])
                y = pl.store(row, [r, 0], y)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
        for r in pl.range(active):
            row = pl.load(x, [r, 0], [1, COLS])
            scaled = pl.mul(row, 3.0)
            y = pl.store(scaled, [r, 0], y)
    return y
