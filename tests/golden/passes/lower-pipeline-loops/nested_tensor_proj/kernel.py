# lower: --pipeline legacy
import pypto.language as pl

BATCH = 16
HIDDEN = 2048
OUT = 256
TK = 256


@pl.jit
def proj(x: pl.Tensor[[BATCH, HIDDEN], pl.BF16], w: pl.Tensor[[OUT, HIDDEN], pl.BF16],
         y: pl.Out[pl.Tensor[[BATCH, OUT], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.create_tensor([BATCH, OUT], dtype=pl.FP32)
        for kb in pl.pipeline(0, HIDDEN // TK, stage=2):
            k0 = kb * TK
            xa = x[:, k0 : k0 + TK]
            wb = w[:, k0 : k0 + TK]
            if k0 == 0:
                acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y
