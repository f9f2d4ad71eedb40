"""Router-style ranking: the logits of each token against 128 experts (a matmul), and each token's 128 given
scores ranked: `pl.sort32` orders every 32-score block (descending) with the score's column next to it,
`pl.mrgsort` merges the four blocks, and the ranked scores and their columns are picked out of the
(score, column) pairs by mask gathers."""

import pypto.language as pl

ROWS = 4
D = 64
N = 128


@pl.jit
def ranked_scores(
    x: pl.Tensor[[ROWS, D], pl.BF16],
    w: pl.Tensor[[N, D], pl.BF16],
    scores: pl.Tensor[[ROWS, N], pl.FP32],
    logits: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
    ranked: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
    order: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ranked_scores"):
        logits[:, :] = pl.matmul(x, w, b_trans=True, out_dtype=pl.FP32)
        for r in pl.range(ROWS):
            row = scores[r : r + 1, :]
            cols = pl.arange(0, [1, N], dtype=pl.UINT32)
            pairs = pl.sort32(row, cols)
            pairs = pl.mrgsort(pairs, block_len=64)
            ranked[r : r + 1, :] = pl.gather(pairs, mask_pattern=pl.tile.MaskPattern.P0101)
            order[r : r + 1, :] = pl.gather(pairs, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=pl.INT32)
    return logits, ranked, order
