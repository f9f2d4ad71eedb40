"""A MAD operand the chain obligations must not take on trust: `packed_rows` reads its left operand through a
reshape of an exponentiated block (a value computed in the kernel, whose blocks the model does not follow),
so PV105 and PV106 are inconclusive and name that operand; its twin `packed_rows_repeats` repeats a K block
of that operand, and is inconclusive too (never proved, never refuted: a model of a block the encoding cannot
name proves nothing)."""
import pypto.language as pl

M, K, N, TK = 16, 512, 64, 128
KB = K // TK


@pl.jit
def packed_rows(xp: pl.Tensor[[KB, M * TK], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="packed_rows"):
        acc = pl.matmul(pl.reshape(pl.exp(xp[0:1, :]), [M, TK]), w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, KB):
            k0 = kb * TK
            xb = pl.reshape(pl.exp(xp[kb : kb + 1, :]), [M, TK])
            acc = pl.matmul_acc(acc, xb, w[k0 : k0 + TK, :])
        y[:, :] = acc
    return y


@pl.jit
def packed_rows_repeats(xp: pl.Tensor[[KB, M * TK], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],
                        y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="packed_rows_repeats"):
        acc = pl.matmul(pl.reshape(pl.exp(xp[0:1, :]), [M, TK]), w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, KB):
            k0 = kb * TK
            xb = pl.reshape(pl.exp(xp[kb - 1 : kb, :]), [M, TK])
            acc = pl.matmul_acc(acc, xb, w[k0 : k0 + TK, :])
        y[:, :] = acc
    return y
