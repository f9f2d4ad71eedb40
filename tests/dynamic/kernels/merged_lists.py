"""Router-style ranking: the logits of each token against 128 experts (a matmul), and each row's given scores
ranked three ways by merging sorted lists: `pl.sort32` orders the four 32-score blocks of a
row (descending, each score's column next to it), then `pl.mrgsort` of several tiles merges two, three and all
four of those sorted blocks (format 2: PyPTO gives it a workspace tile). The blocks share scores, so equal
scores meet across lists: the earlier list's comes first."""

import pypto.language as pl

ROWS = 4
D = 64
N = 128


@pl.jit
def merged_lists(
    x: pl.Tensor[[ROWS, D], pl.BF16],
    w: pl.Tensor[[N, D], pl.BF16],
    scores: pl.Tensor[[ROWS, N], pl.FP32],
    logits: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
    top_two: pl.Out[pl.Tensor[[ROWS, 64], pl.INT32]],
    top_three: pl.Out[pl.Tensor[[ROWS, 96], pl.INT32]],
    ranked: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
    order: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="merged_lists"):
        logits[:, :] = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)
        for r in pl.range(ROWS):
            row = scores[r : r + 1, :]
            cols = pl.arange(0, [1, N], dtype=pl.UINT32)
            pairs = pl.sort32(row, cols)
            two = pl.mrgsort(pairs[:, 0:64], pairs[:, 64:128])
            three = pl.mrgsort(pairs[:, 0:64], pairs[:, 64:128], pairs[:, 128:192])
            four = pl.mrgsort(pairs[:, 0:64], pairs[:, 64:128], pairs[:, 128:192], pairs[:, 192:256])
            top_two[r : r + 1, :] = pl.gather(two, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
            top_three[r : r + 1, :] = pl.gather(three, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
            ranked[r : r + 1, :] = pl.gather(four, mask_pattern=pl.tile.MaskPattern.P0101)
            order[r : r + 1, :] = pl.gather(four, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
    return logits, top_two, top_three, ranked, order
