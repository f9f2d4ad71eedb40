# lower: --pipeline legacy
import pypto.language as pl

ROWS = 16
K = 384
N = 64
K_TILE = 128


@pl.jit
def python_range_i8(x: pl.Tensor[[ROWS, K], pl.INT8], w: pl.Tensor[[N, K], pl.INT8],
                    y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="python_range_i8"):
        acc = pl.create_tensor([ROWS, N], dtype=pl.INT32)
        for kb in range(K // K_TILE):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y
