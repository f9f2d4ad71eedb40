"""Functions made of several steps, some of them `pl.spmd` launches (an orchestration, as PyPTO outlines each
`pl.spmd` scope into a kernel it launches): the simulation runs the steps in turn over one GM, each launch's
blocks one after the other on cores of their own (issue 14, item 2; docs/pto-subset.md "Launches").

``scale_then_rotate`` scales each band into a GM scratch in one launch, then, once every block of it is done,
copies each block's neighbouring band into the output in a second launch, and finally doubles the first row
band in a step of the orchestration's own. ``rows_of_count`` launches as many blocks as a run-time row count
asks. ``fenced_steps`` joins the first launch's task into a `pl.system.task_dummy` the second names as a
dependency; ``staged_head`` runs a `pl.at` step of its own, whose task id the launch after it names. The twins
are wrong: ``scale_then_rotate_fused`` reads the neighbouring band in the same launch
that writes it (before its block has written it), ``scale_then_rotate_shifted`` writes the second step's bands
4 rows short (neighbouring blocks write one row different values), ``dummy_as_number`` offsets a window by a
task id.
"""

import pypto.language as pl

ROWS = 64
COLS = 128
BLOCKS = 4
BAND = ROWS // BLOCKS


@pl.jit
def scale_then_rotate(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.spmd(BLOCKS, name_hint="scale") as scale_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        staged = pl.store(pl.mul(band, 2.0), [r0, 0], staged)
    last = BLOCKS - 1
    for blk in pl.spmd(BLOCKS, name_hint="rotate"):
        neighbour = pl.min(blk + 1, last) * BAND
        theirs = pl.load(staged, [neighbour, 0], [BAND, COLS])
        y = pl.store(pl.add(theirs, 1.0), [blk * BAND, 0], y)
    head = pl.load(y, [0, 0], [BAND, COLS])
    y = pl.store(pl.mul(head, 2.0), [0, 0], y)
    return y


@pl.jit
def scale_then_rotate_fused(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    last = BLOCKS - 1
    with pl.spmd(BLOCKS, name_hint="scale_rotate") as fused_tid:
        blk = pl.tile.get_block_idx()
        band = pl.load(x, [blk * BAND, 0], [BAND, COLS])
        staged = pl.store(pl.mul(band, 2.0), [blk * BAND, 0], staged)
        neighbour = pl.min(blk + 1, last) * BAND
        theirs = pl.load(staged, [neighbour, 0], [BAND, COLS])
        y = pl.store(pl.add(theirs, 1.0), [blk * BAND, 0], y)
    head = pl.load(y, [0, 0], [BAND, COLS])
    y = pl.store(pl.mul(head, 2.0), [0, 0], y)
    return y


@pl.jit
def scale_then_rotate_shifted(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.spmd(BLOCKS, name_hint="scale") as scale_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        staged = pl.store(pl.mul(band, 2.0), [r0, 0], staged)
    last = BLOCKS - 1
    for blk in pl.spmd(BLOCKS, name_hint="rotate"):
        neighbour = pl.min(blk + 1, last) * BAND
        theirs = pl.load(staged, [neighbour, 0], [BAND, COLS])
        y = pl.store(pl.add(theirs, 1.0), [blk * (BAND - 4), 0], y)
    return y


@pl.jit
def rows_of_count(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], count: pl.Scalar[pl.INDEX]
):
    bands = pl.min(pl.max(count, 0), ROWS) // BAND
    with pl.spmd(bands, name_hint="rows_of_count") as rows_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        tripled = pl.mul(band, 3.0)
        y = pl.store(tripled, [r0, 0], y)
    return y


@pl.jit
def fenced_steps(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS, name_hint="first") as first_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        y = pl.store(band, [r0, 0], y)
    fence = pl.system.task_dummy(deps=[first_tid])
    with pl.spmd(BLOCKS, name_hint="second", deps=[fence]) as second_tid:
        s0 = pl.tile.get_block_idx() * BAND
        again = pl.load(y, [s0, 0], [BAND, COLS])
        doubled = pl.add(again, again)
        y = pl.store(doubled, [s0, 0], y)
    return y


@pl.jit
def dummy_as_number(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    fence = pl.system.task_dummy(deps=[])
    with pl.spmd(BLOCKS, name_hint="offset") as offset_tid:
        r0 = pl.tile.get_block_idx() * BAND + fence
        band = pl.load(x, [r0, 0], [BAND, COLS])
        y = pl.store(band, [r0, 0], y)
    return y


@pl.jit
def staged_head(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="head") as head_tid:
        head = pl.load(x, [0, 0], [BAND, COLS])
        negated = pl.neg(head)
        y = pl.store(negated, [0, 0], y)
    with pl.spmd(BLOCKS - 1, name_hint="rest", deps=[head_tid]) as rest_tid:
        r0 = (pl.tile.get_block_idx() + 1) * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        y = pl.store(band, [r0, 0], y)
    return y
