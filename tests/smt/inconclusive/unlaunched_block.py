"""A block index outside every `pl.spmd` launch (issue 13): its range is given at run time, so the rows
of the reshaped operands it picks are not known: their bounds are never proved by a guess (nor refuted);
PV106 holds for every value of it (one free symbol on both sides: the K blocks of any row are adjacent).
The launched kernels: `../kernels/block_indexed.py`."""
import pypto.language as pl

G, T, K, N, TK, TM, TN = 2, 32, 512, 64, 128, 16, 32


@pl.jit
def unlaunched_rows(x3: pl.Tensor[[G, T, K], pl.BF16], w3: pl.Tensor[[2, N // 2, K], pl.BF16],
                    y: pl.Out[pl.Tensor[[G * T, N], pl.FP32]]):
    x = pl.reshape(x3, [G * T, K])
    w = pl.reshape(w3, [N, K])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unlaunched_rows"):
        blk = pl.tile.get_block_idx()
        row = (blk // (N // TN)) * TM
        col = (blk % (N // TN)) * TN
        acc = pl.matmul(x[row : row + TM, 0:TK], w[col : col + TN, 0:TK], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, x[row : row + TM, k0 : k0 + TK], w[col : col + TN, k0 : k0 + TK], b_trans=True)
        y[row : row + TM, col : col + TN] = acc
    return y
