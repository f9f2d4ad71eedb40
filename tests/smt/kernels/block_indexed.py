"""MADs whose operand rows come from the block index of a `pl.spmd` launch (issue 13): `get_block_idx()` in a
`pl.spmd(n)` body is the launch's block in [0, n), so operands read at the block's rows and columns from
reshapes that merge dimensions (terms of their own) are blocks of one term on both sides, and PV106 checks
their K blocks. `launched_rows` proves; its twin `launched_rows_skips` reads the left operand one K block
behind the right one (block [0, TK) twice, the last one never: PV106). A block index outside every launch:
`../inconclusive/unlaunched_block.py`."""
import pypto.language as pl

G, T, K, N, TK, TM, TN = 2, 32, 512, 64, 128, 16, 32
BLOCKS = (G * T // TM) * (N // TN)


@pl.jit
def launched_rows(x3: pl.Tensor[[G, T, K], pl.BF16], w3: pl.Tensor[[2, N // 2, K], pl.BF16],
                  y: pl.Out[pl.Tensor[[G * T, N], pl.FP32]]):
    x = pl.reshape(x3, [G * T, K])
    w = pl.reshape(w3, [N, K])
    with pl.spmd(BLOCKS, name_hint="launched_rows"):
        blk = pl.tile.get_block_idx()
        row = (blk // (N // TN)) * TM
        col = (blk % (N // TN)) * TN
        acc = pl.matmul(x[row : row + TM, 0:TK], w[col : col + TN, 0:TK], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, x[row : row + TM, k0 : k0 + TK], w[col : col + TN, k0 : k0 + TK], b_trans=True)
        y[row : row + TM, col : col + TN] = acc
    return y


@pl.jit
def launched_rows_skips(x3: pl.Tensor[[G, T, K], pl.BF16], w3: pl.Tensor[[2, N // 2, K], pl.BF16],
                        y: pl.Out[pl.Tensor[[G * T, N], pl.FP32]]):
    x = pl.reshape(x3, [G * T, K])
    w = pl.reshape(w3, [N, K])
    with pl.spmd(BLOCKS, name_hint="launched_rows_skips"):
        blk = pl.tile.get_block_idx()
        row = (blk // (N // TN)) * TM
        col = (blk % (N // TN)) * TN
        acc = pl.matmul(x[row : row + TM, 0:TK], w[col : col + TN, 0:TK], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            acc = pl.matmul_acc(acc, x[row : row + TM, k0 - TK : k0], w[col : col + TN, k0 : k0 + TK], b_trans=True)  # expect: PV106
        y[row : row + TM, col : col + TN] = acc
    return y
