"""Operands computed once per K block inside the K loop: `cast_per_block` casts each block, `scaled_per_block`
multiplies it by a block of scales. A cast holds its block's elements one for one, so its K blocks are its
operand's and `cast_per_block` proves. A block of another op's result is a block of its operand only for an
elementwise op, and which ops are is not modelled, so which K blocks `scaled_per_block` covers is not known:
PV106 is inconclusive with that reason, never refuted. PV105 still compares the blocks (both sides compute
the same ops of the same blocks)."""
import pypto.language as pl

K, N, TK = 512, 64, 128


@pl.jit
def cast_per_block(x: pl.Tensor[[16, K], pl.FP32], w: pl.Tensor[[K, N], pl.FP32],
                   y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cast_per_block"):
        x0 = pl.cast(x[:, 0:TK], target_type=pl.BF16)
        w0 = pl.cast(w[0:TK, :], target_type=pl.BF16)
        acc = pl.matmul(x0, w0, out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            xk = pl.cast(x[:, k0 : k0 + TK], target_type=pl.BF16)
            wk = pl.cast(w[k0 : k0 + TK, :], target_type=pl.BF16)
            acc = pl.matmul_acc(acc, xk, wk)
        y[:, :] = acc
    return y


@pl.jit
def scaled_per_block(x: pl.Tensor[[16, K], pl.BF16], sx: pl.Tensor[[16, K], pl.BF16],
                     w: pl.Tensor[[K, N], pl.BF16], sw: pl.Tensor[[K, N], pl.BF16],
                     y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="scaled_per_block"):
        acc = pl.matmul(pl.mul(x[:, 0:TK], sx[:, 0:TK]), pl.mul(w[0:TK, :], sw[0:TK, :]), out_dtype=pl.FP32)
        for k0 in pl.pipeline(TK, K, TK, stage=2):
            xk = pl.mul(x[:, k0 : k0 + TK], sx[:, k0 : k0 + TK])
            wk = pl.mul(w[k0 : k0 + TK, :], sw[k0 : k0 + TK, :])
            acc = pl.matmul_acc(acc, xk, wk)
        y[:, :] = acc
    return y
