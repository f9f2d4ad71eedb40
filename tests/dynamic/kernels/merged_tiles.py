"""The tile-level spelling of a merge of sorted lists: `pl.tile.mrgsort(first, second, tmp=work)` with the workspace
the program makes itself (PyPTO's tile.mrgsort_format2 takes it as its last operand); each row's two sorted
32-score blocks merged, and the scores' columns picked out of the merged (score, column) pairs."""

import pypto.language as pl

ROWS = 4


@pl.jit
def merged_tiles(
    scores: pl.Tensor[[ROWS, 128], pl.FP32],
    order: pl.Out[pl.Tensor[[ROWS, 64], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="merged_tiles"):
        for r in pl.range(ROWS):
            row = pl.tile.load(scores, [r, 0], [1, 64])
            cols = pl.tile.arange(0, [1, 64], dtype=pl.UINT32)
            pairs = pl.tile.sort32(row, cols)
            first = pl.tile.slice(pairs, [1, 64], [0, 0])
            second = pl.tile.slice(pairs, [1, 64], [0, 64])
            work = pl.tile.create([1, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            merged = pl.tile.mrgsort(first, second, tmp=work)
            picked = pl.tile.gather(merged, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
            pl.tile.store(picked, [r, 0], order)
    return order
