# A slice whose extent is a runtime value feeding a matmul: an accumulator site needs a constant
# tile shape (PV000 for `ragged`); `bounded` slices with a constant extent at a runtime offset.
import pypto.language as pl

S, D, TK = 256, 128, 64


@pl.jit
def ragged(q: pl.Tensor[[16, D], pl.BF16], k: pl.Tensor[[S, D], pl.BF16], lens: pl.Tensor[[1], pl.INT32],
           out: pl.Out[pl.Tensor[[16, S], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ragged"):
        n = pl.read(lens, [0])
        kt = k[0:n, :]
        s = pl.matmul(q, kt, b_trans=True, out_dtype=pl.FP32)
        out[:, 0:S] = s
    return out


@pl.jit
def bounded(q: pl.Tensor[[16, D], pl.BF16], k: pl.Tensor[[S, D], pl.BF16], lens: pl.Tensor[[1], pl.INT32],
            out: pl.Out[pl.Tensor[[16, S], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bounded"):
        start = pl.read(lens, [0])
        kt = k[start : start + TK, :]
        s = pl.matmul(q, kt, b_trans=True, out_dtype=pl.FP32)
        out[:, 0:TK] = s
    return out

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 14:13 operand `kt` of `pl.matmul`; its slice shape [n, 128] is not constant; a matmul operand needs a constant shape
# expect-functions: bounded
