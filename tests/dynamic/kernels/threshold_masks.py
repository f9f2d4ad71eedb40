"""A tile-level compare of ours: `pl.cmp` of a tile and a scalar is PyPTO's `tile.cmps` (a UINT8 packed predicate
mask), which `pl.tile.sel` reads with its `[1, 32]` UINT8 scratch: each row keeps the lanes above a floor and
takes the floor elsewhere."""

import pypto.language as pl

ROWS = 16
DIM = 64


@pl.jit
def floored_rows(x: pl.Tensor[[ROWS, DIM], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, DIM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="floored_rows"):
        rows = pl.load(x, [0, 0], [ROWS, DIM])
        above = pl.cmp(rows, 0.25, cmp_type=4)
        floor = pl.full([ROWS, DIM], dtype=pl.FP32, value=0.25)
        scratch = pl.create_tile([1, 32], dtype=pl.UINT8, target_memory=pl.MemorySpace.Vec)
        kept = pl.tile.sel(above, rows, floor, scratch)
        y = pl.store(kept, [0, 0], y)
    return y
