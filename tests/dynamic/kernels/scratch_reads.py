"""Scalar reads (`pl.read`) of GM scratch tensors the kernel writes itself (`pl.create_tensor`), as the gate's
routing reads its top-k ids back: PyPTO's `pto.load_scalar`. ``reversed_rows`` has each of two blocks stage its
half of the rows (scaled, and the ids as given) in scratch and write them out element by element, each row
reversed; its twin ``reversed_rows_crossed`` reads the other block's half (a wrong row offset): what it reads
depends on whether that block has run yet, which the simulation shows as a mismatch."""

import pypto.language as pl

ROWS = 8
COLS = 16
HALF = ROWS // 2


@pl.jit
def reversed_rows(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[ROWS, COLS], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.INT32]],
):
    scaled_buf = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    id_buf = pl.create_tensor([ROWS, COLS], dtype=pl.INT32)
    for b in pl.spmd(2, name_hint="reversed_rows"):
        r0 = b * HALF
        rows = pl.load(x, [r0, 0], [HALF, COLS])
        scaled = pl.mul(rows, 2.0)
        scaled_buf = pl.store(scaled, [r0, 0], scaled_buf)
        picked = pl.load(ids, [r0, 0], [HALF, COLS])
        id_buf = pl.store(picked, [r0, 0], id_buf)
        for r in pl.range(HALF):
            for c in pl.range(COLS):
                pl.write(y, [r0 + r, c], pl.read(scaled_buf, [r0 + r, COLS - 1 - c]))
                pl.write(z, [r0 + r, c], pl.read(id_buf, [r0 + r, COLS - 1 - c]))
    return y, z


@pl.jit
def reversed_rows_crossed(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    ids: pl.Tensor[[ROWS, COLS], pl.INT32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, COLS], pl.INT32]],
):
    scaled_buf = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    id_buf = pl.create_tensor([ROWS, COLS], dtype=pl.INT32)
    for b in pl.spmd(2, name_hint="reversed_rows_crossed"):
        r0 = b * HALF
        other = (1 - b) * HALF
        rows = pl.load(x, [r0, 0], [HALF, COLS])
        scaled = pl.mul(rows, 2.0)
        scaled_buf = pl.store(scaled, [r0, 0], scaled_buf)
        picked = pl.load(ids, [r0, 0], [HALF, COLS])
        id_buf = pl.store(picked, [r0, 0], id_buf)
        for r in pl.range(HALF):
            for c in pl.range(COLS):
                pl.write(y, [r0 + r, c], pl.read(scaled_buf, [other + r, COLS - 1 - c]))
                pl.write(z, [r0 + r, c], pl.read(id_buf, [other + r, COLS - 1 - c]))
    return y, z
