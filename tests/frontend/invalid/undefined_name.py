# `bad` reads a name that is defined nowhere; `good` in the same file still parses.
import pypto.language as pl

M, K, N = 16, 256, 64


@pl.jit
def bad(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bad"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y[:, :] = pl.mul(acc, SCALE)
    return y


@pl.jit
def good(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="good"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y[:, :] = acc
    return y

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 11:31 undefined name `SCALE`; it is not a parameter, a local, a module constant or an import
# expect-functions: good
