"""A MAD operand computed per K block inside the loop: `packed_rows` reads its left operand through a reshape of an
exponentiated block (a term of the window it reads, the same on the source's side and the lowering's, so PV105
compares the blocks and proves), but which K blocks of `xp` each such result covers is not modelled, so PV106 is
inconclusive and says why; its twin `packed_rows_repeats` repeats a K block of that operand, and its PV106 is
inconclusive too (never proved, never refuted: a model of a block the encoding cannot place proves nothing)."""
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
