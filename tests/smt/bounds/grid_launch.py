"""A grid launch (issue 13): `pl.spmd(t_dim * works)` walks tokens x work items with one block index, split
by `item // works` where `works` is known only at run time; each block writes one neutral partial per head
tile at `t * heads * works * H_TILE + h * works * H_TILE + work * H_TILE`. The offsets are non-linear in
`works`, and z3 alone does not decide them within its budget: PV107 proves `grid_partials` once the query
states that the block is `t * works + work` (`bounds._grid_lemmas`), and finds the window of the twin
`grid_partials_shifted` (one head tile further) that leaves the buffer at the last work item. `works` and
`t_dim` are run-time sizes, so that window is conditional on them, never a proof."""
import pypto.language as pl

T = pl.dynamic("T")
PAGES = pl.dynamic("PAGES")
H, H_TILE, D, PAGES_PER_WORK = 64, 16, 128, 4


@pl.jit
def grid_partials(q: pl.Tensor[[T, H, D], pl.BF16], table: pl.Tensor[[8, PAGES], pl.INT32],
                  out: pl.Out[pl.Tensor[[T, D], pl.FP32]]):
    t_dim = pl.tensor.dim(q, 0)
    pages = pl.tensor.dim(table, 1)
    works = (pages + PAGES_PER_WORK - 1) // PAGES_PER_WORK
    partial = pl.create_tensor([t_dim * (H // H_TILE) * works * H_TILE, 8], dtype=pl.FP32)
    with pl.spmd(t_dim * works, name_hint="grid_partials"):
        item = pl.tile.get_block_idx()
        t = item // works
        work = item - t * works
        base = t * (H // H_TILE) * works * H_TILE
        neutral = pl.tile.full([H_TILE, 8], dtype=pl.FP32, value=0.0)
        for h in pl.unroll(H // H_TILE):
            row = base + h * works * H_TILE + work * H_TILE
            pl.store(neutral, [row, 0], partial)
    return out


@pl.jit
def grid_partials_shifted(q: pl.Tensor[[T, H, D], pl.BF16], table: pl.Tensor[[8, PAGES], pl.INT32],
                          out: pl.Out[pl.Tensor[[T, D], pl.FP32]]):
    t_dim = pl.tensor.dim(q, 0)
    pages = pl.tensor.dim(table, 1)
    works = (pages + PAGES_PER_WORK - 1) // PAGES_PER_WORK
    partial = pl.create_tensor([t_dim * (H // H_TILE) * works * H_TILE, 8], dtype=pl.FP32)
    with pl.spmd(t_dim * works, name_hint="grid_partials_shifted"):
        item = pl.tile.get_block_idx()
        t = item // works
        work = item - t * works
        base = t * (H // H_TILE) * works * H_TILE
        neutral = pl.tile.full([H_TILE, 8], dtype=pl.FP32, value=0.0)
        for h in pl.unroll(H // H_TILE):
            row = base + h * works * H_TILE + (work + 1) * H_TILE
            pl.store(neutral, [row, 0], partial)
    return out
