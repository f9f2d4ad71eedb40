"""Top-k ids by a merge of sorted lists (`pl.mrgsort(a, b[, c, d])`, TMRGSORT format 2): each row's scores are
sorted in 32-score blocks (`pl.sort32`), the blocks merged four at a time (`pl.mrgsort(p, block_len=64)`, format
1), and the resulting runs of 128 scores merged into one list (format 2: four lists in ``top_of_512``, two in
``top_of_256``), whose leading (score, column) pairs give the top scores and their columns."""

import pypto.language as pl

ROWS = 2
TOP = 8


@pl.jit
def top_of_512(
    scores: pl.Tensor[[ROWS, 512], pl.FP32],
    best: pl.Out[pl.Tensor[[ROWS, TOP], pl.FP32]],
    ids: pl.Out[pl.Tensor[[ROWS, TOP], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="top_of_512"):
        for r in pl.range(ROWS):
            row = pl.load(scores, [r, 0], [1, 512])
            cols = pl.arange(0, [1, 512], dtype=pl.UINT32)
            pairs = pl.sort32(row, cols)
            pairs = pl.mrgsort(pairs, block_len=64)
            merged = pl.mrgsort(pairs[:, 0:256], pairs[:, 256:512], pairs[:, 512:768], pairs[:, 768:1024])
            top = merged[:, 0 : 2 * TOP]
            top_scores = pl.gather(top, mask_pattern=pl.tile.MaskPattern.P0101)
            top_ids = pl.gather(top, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
            best = pl.store(top_scores, [r, 0], best)
            ids = pl.store(top_ids, [r, 0], ids)
    return best, ids


@pl.jit
def top_of_256(
    scores: pl.Tensor[[ROWS, 256], pl.FP32],
    best: pl.Out[pl.Tensor[[ROWS, TOP], pl.FP32]],
    ids: pl.Out[pl.Tensor[[ROWS, TOP], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="top_of_256"):
        for r in pl.range(ROWS):
            row = pl.load(scores, [r, 0], [1, 256])
            cols = pl.arange(0, [1, 256], dtype=pl.UINT32)
            pairs = pl.sort32(row, cols)
            pairs = pl.mrgsort(pairs, block_len=64)
            merged = pl.mrgsort(pairs[:, 0:256], pairs[:, 256:512])
            top = merged[:, 0 : 2 * TOP]
            top_scores = pl.gather(top, mask_pattern=pl.tile.MaskPattern.P0101)
            top_ids = pl.gather(top, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
            best = pl.store(top_scores, [r, 0], best)
            ids = pl.store(top_ids, [r, 0], ids)
    return best, ids
