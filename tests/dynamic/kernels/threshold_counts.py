"""Kernels of ours that count thresholds with `pl.cmp`, in the style of pypto-lib's Lloyd-Max boundary search
(`turboquant_kv.py`): rows are rotated by a matmul, then compared. A compare of a tensor and a scalar is PyPTO's
`tile.cmps` (a UINT8 packed predicate mask) then `tile.sel` of 1 / 0 tiles; a compare of two tensors is
`tile.cmp`. `bucket_rows` sums four compares of different `cmp_type`s (ge, gt, lt, le); `above_rows` marks where
the rotated rows exceed a second tensor."""

import pypto.language as pl

ROWS = 16
DIM = 64


@pl.jit
def bucket_rows(
    x: pl.Tensor[[ROWS, DIM], pl.BF16],
    rot: pl.Tensor[[DIM, DIM], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, DIM], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bucket_rows"):
        rows = pl.slice(x, [ROWS, DIM], [0, 0])
        turned = pl.matmul(rows, rot, out_dtype=pl.FP32)
        idx = pl.full([ROWS, DIM], dtype=pl.FP32, value=0.0)
        idx = pl.add(idx, pl.cmp(turned, -0.25, cmp_type=5))
        idx = pl.add(idx, pl.cmp(turned, 0.0, cmp_type=4))
        idx = pl.add(idx, pl.cmp(turned, 0.25, cmp_type=2))
        idx = pl.add(idx, pl.cmp(turned, 0.5, cmp_type=3))
        y = pl.assemble(y, idx, [0, 0])
    return y


@pl.jit
def above_rows(
    x: pl.Tensor[[ROWS, DIM], pl.BF16],
    rot: pl.Tensor[[DIM, DIM], pl.BF16],
    floor: pl.Tensor[[ROWS, DIM], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, DIM], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="above_rows"):
        rows = pl.slice(x, [ROWS, DIM], [0, 0])
        turned = pl.matmul(rows, rot, out_dtype=pl.FP32)
        bound = pl.slice(floor, [ROWS, DIM], [0, 0])
        above = pl.cmp(turned, bound, cmp_type=4)
        y = pl.assemble(y, above, [0, 0])
    return y
