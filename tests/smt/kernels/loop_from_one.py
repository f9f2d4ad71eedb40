"""`if kb == 0` in a loop that starts at 1: the seed arm never runs, the first MAD accumulates into
the created accumulator (PV102 at kb = 1); `seeded_from_one` is the correct form (a seed before the
loop) and proves."""
import pypto.language as pl

ROWS, K, N, TK = 16, 1024, 256, 256


@pl.jit
def never_seeded(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                 y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="never_seeded"):
        acc = pl.create_tensor([ROWS, N], dtype=pl.FP32)
        for kb in pl.range(1, K // TK):
            k0 = kb * TK
            xa = x[:, k0 : k0 + TK]
            wb = w[k0 : k0 + TK, :]
            if kb == 0:
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)  # expect: PV102
        y[:, :] = acc
    return y


@pl.jit
def seeded_from_one(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="seeded_from_one"):
        acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.pipeline(1, K // TK, stage=2):
            k0 = kb * TK
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + TK], w[k0 : k0 + TK, :])
        y[:, :] = acc
    return y
