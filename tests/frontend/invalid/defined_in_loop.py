# A name defined only inside a loop body and read after the loop (docs/ir-conventions.md): PV000.
import pypto.language as pl

M, K, N, TK = 16, 512, 64, 128


@pl.jit
def leaks(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="leaks"):
        for kb in pl.range(K // TK):
            part = pl.matmul(x[:, kb * TK : kb * TK + TK], w[kb * TK : kb * TK + TK, :], out_dtype=pl.FP32)
        y[:, :] = part
    return y


@pl.jit
def carried(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="carried"):
        acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
        for kb in pl.range(1, K // TK):
            acc = pl.matmul_acc(acc, x[:, kb * TK : kb * TK + TK], w[kb * TK : kb * TK + TK, :])
        y[:, :] = acc
    return y

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 12:19 read of `part`; it is defined only inside the loop at line 10
# expect-functions: carried
