"""MAD operands the chain obligations must not take on trust (PV105 / PV106 rest no proof on an operand
whose blocks are not identified). `cast_rows` casts each K block of its left operand before the MAD: a cast
holds its block's elements one for one, so the coverage is checked on `x` and proves; `cast_rows_repeats`
casts the block before the right operand's (K block 0 twice, PV106). Operands whose blocks are not
followed: `../inconclusive/untraced_packed.py`."""
import pypto.language as pl

M, K, N, TK = 16, 512, 64, 128


@pl.jit
def cast_rows(x: pl.Tensor[[M, K], pl.FP32], w: pl.Tensor[[K, N], pl.BF16],
              y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cast_rows"):
        acc = pl.matmul(pl.cast(x[:, 0:TK], target_type=pl.BF16), w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, K // TK):
            k0 = kb * TK
            xb = pl.cast(x[:, k0 : k0 + TK], target_type=pl.BF16)
            acc = pl.matmul_acc(acc, xb, w[k0 : k0 + TK, :])
        y[:, :] = acc
    return y


@pl.jit
def cast_rows_repeats(x: pl.Tensor[[M, K], pl.FP32], w: pl.Tensor[[K, N], pl.BF16],
                      y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cast_rows_repeats"):
        acc = pl.matmul(pl.cast(x[:, 0:TK], target_type=pl.BF16), w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, K // TK):
            k0 = kb * TK
            xb = pl.cast(x[:, k0 - TK : k0], target_type=pl.BF16)
            acc = pl.matmul_acc(acc, xb, w[k0 : k0 + TK, :])  # expect: PV106
        y[:, :] = acc
    return y
