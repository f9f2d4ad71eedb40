"""Wild construct: several free `@pl.jit` kernels in one file, one calling another (`pl.jit.inline`)."""

import pypto.language as pl

M, N, K = 64, 128, 512
TM, TK = 16, 128


@pl.jit.inline
def proj_rows(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[N, K], pl.BF16], y: pl.Tensor[[M, N], pl.FP32]):
    for mb in pl.parallel(0, M, TM):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj_rows"):
            acc = pl.create_tensor([TM, N], dtype=pl.FP32)
            for kb in pl.pipeline(K // TK, stage=2):
                xa = x[mb : mb + TM, kb * TK : kb * TK + TK]
                wb = w[:, kb * TK : kb * TK + TK]
                if kb == 0:
                    acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[mb : mb + TM, :] = acc
    return y


@pl.jit
def proj_twice(x: pl.Tensor[[M, K], pl.BF16], wa: pl.Tensor[[N, K], pl.BF16], wb: pl.Tensor[[N, K], pl.BF16],
               ya: pl.Out[pl.Tensor[[M, N], pl.FP32]], yb: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    ya = proj_rows(x, wa, ya)
    yb = proj_rows(x, wb, yb)
    return ya, yb


@pl.jit
def rowwise_max(x: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[M, 1], pl.FP32]]):
    for mb in pl.parallel(M // TM):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rowwise_max"):
            y[mb * TM : mb * TM + TM, :] = pl.row_max(x[mb * TM : mb * TM + TM, :])
    return y
