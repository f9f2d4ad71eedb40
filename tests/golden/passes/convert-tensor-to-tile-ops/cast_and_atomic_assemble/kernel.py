# lower: --pipeline fixed
import pypto.language as pl

M = 16
K = 128
N = 64


@pl.jit
def cast_and_sum(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                 y: pl.Out[pl.Tensor[[M, N], pl.BF16]], total: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cast_and_sum"):
        xa = x[:, :]
        wb = w[:, :]
        acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
        low = pl.cast(acc, target_type=pl.BF16, mode="rint")
        y[:, :] = low
        pl.assemble(total, acc, [0, 0], atomic=pl.AtomicType.Add)
    return y
