"""MAD operands narrowed by `set_validshape` inside the K loop (issue 13): the op changes the valid region
only, never the data or the buffer (PyPTO), so `pl.tensor.set_validshape(x[:, k0 : k0 + TK], ACTIVE, TK)`
is the block `x[:, k0 : k0 + TK]` with fewer valid rows (and the right operand's block with fewer valid
columns), and PV106 checks their K blocks: `active_rows`
proves; `active_rows_skips` reads its narrowed left operand one K block behind the right one (PV106).
Operands narrowed along K itself: `../inconclusive/half_k_valid.py`."""
import pypto.language as pl

ROWS, ACTIVE, K, N, TK = 16, 4, 1024, 64, 256


@pl.jit
def active_rows(x: pl.Tensor[[ROWS, K], pl.INT8], w: pl.Tensor[[K, N], pl.INT8],
                y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="active_rows"):
        acc = pl.matmul(pl.tensor.set_validshape(x[:, 0:TK], ACTIVE, TK),
                        pl.tensor.set_validshape(w[0:TK, :], TK, N // 2), out_dtype=pl.INT32)
        for kc in pl.range(1, K // TK):
            k0 = kc * TK
            acc = pl.matmul_acc(acc, pl.tensor.set_validshape(x[:, k0 : k0 + TK], ACTIVE, TK),
                                pl.tensor.set_validshape(w[k0 : k0 + TK, :], TK, N // 2))
        y[:, :] = acc
    return y


@pl.jit
def active_rows_skips(x: pl.Tensor[[ROWS, K], pl.INT8], w: pl.Tensor[[K, N], pl.INT8],
                      y: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="active_rows_skips"):
        acc = pl.matmul(pl.tensor.set_validshape(x[:, 0:TK], ACTIVE, TK),
                        pl.tensor.set_validshape(w[0:TK, :], TK, N // 2), out_dtype=pl.INT32)
        for kc in pl.range(1, K // TK):
            k0 = kc * TK
            acc = pl.matmul_acc(acc, pl.tensor.set_validshape(x[:, k0 - TK : k0], ACTIVE, TK),  # expect: PV106
                                pl.tensor.set_validshape(w[k0 : k0 + TK, :], TK, N // 2))
        y[:, :] = acc
    return y
