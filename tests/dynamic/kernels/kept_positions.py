"""Element writes into Vec tiles (`pl.write` of a tile, PyPTO's `pto.tsetval`), at a position carried through the
row loop: the rows whose first activation is positive are listed, in order, with that activation; the rest of
each list keeps its fill."""

import pypto.language as pl

ROWS = 16
COLS = 32


@pl.jit
def kept_positions(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    kept: pl.Out[pl.Tensor[[1, ROWS], pl.INT32]],
    leads: pl.Out[pl.Tensor[[1, ROWS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="kept_positions"):
        acts = pl.tile.load(x, [0, 0], [ROWS, COLS])
        positions = pl.full([1, ROWS], dtype=pl.INT32, value=-1)
        firsts = pl.full([1, ROWS], dtype=pl.FP32, value=0.0)
        seen = pl.cast(0, pl.INDEX)
        for r in pl.range(ROWS):
            lead = pl.tile.read(acts, [r, 0])
            if lead > 0.0:
                pl.write(positions, [0, seen], pl.cast(r, pl.INT32))
                pl.write(firsts, [0, seen], lead)
                seen = seen + 1
        kept[:, :] = positions
        leads[:, :] = firsts
    return kept, leads
