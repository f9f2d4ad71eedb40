# lower: --pipeline fixed
import pypto.language as pl

ROWS = 16
K = 512
N = 64
K_TILE = 128


@pl.jit
def unrolled_index(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                   y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unrolled_index"):
        acc = pl.create_tensor([ROWS, N], dtype=pl.FP32)
        for kb in pl.unroll(K // K_TILE):
            xa = x[:, kb * K_TILE : (kb + 1) * K_TILE]
            wb = w[kb * K_TILE : (kb + 1) * K_TILE, :]
            if kb == 0:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, :] = acc
    return y
