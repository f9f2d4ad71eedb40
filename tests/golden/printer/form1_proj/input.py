import pypto.language as pl

M, N, K = 128, 256, 1024
TM, TN, TK = 16, 256, 256


@pl.jit
def proj(x: pl.Tensor[[M, K], pl.BF16],
         w: pl.Tensor[[N, K], pl.BF16],
         y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    for mb in pl.parallel(0, M, TM):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.create_tensor([TM, TN], dtype=pl.FP32)
            for kb in pl.pipeline(K // TK, stage=2):
                k0 = kb * TK
                xa = x[mb : mb + TM, k0 : k0 + TK]
                wb = w[0 : TN, k0 : k0 + TK]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[mb : mb + TM, 0 : TN] = acc
    return y
