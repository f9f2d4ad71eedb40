"""Operands whose valid region `set_validshape` narrows along K itself (issue 13): `TK // 2` of each `TK`
block is valid, so how much of each K block the MAD reads is not known and PV106 is never proved (nor
refuted). Operands narrowed off K: `../kernels/valid_shape_operands.py`."""
import pypto.language as pl

ROWS, ACTIVE, K, N, TK = 16, 4, 1024, 64, 256


@pl.jit
def half_k_valid(x: pl.Tensor[[ROWS, K], pl.INT8], w: pl.Tensor[[K, N], pl.INT8],
                 y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_k_valid"):
        acc = pl.matmul(pl.tensor.set_validshape(x[:, 0:TK], ROWS, TK // 2),
                        pl.tensor.set_validshape(w[0:TK, :], TK // 2, N), out_dtype=pl.INT32)
        for kc in pl.range(1, K // TK):
            k0 = kc * TK
            acc = pl.matmul_acc(acc, pl.tensor.set_validshape(x[:, k0 : k0 + TK], ROWS, TK // 2),
                                pl.tensor.set_validshape(w[k0 : k0 + TK, :], TK // 2, N))
        y[:, :] = acc
    return y
