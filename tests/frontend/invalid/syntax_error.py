# A kernel file with a syntax error: the whole file is one PV000 (Python cannot parse it at all).
import pypto.language as pl


@pl.jit
def broken(x: pl.Tensor[[16, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    acc = pl.cast(x, target_type=pl.FP32
    y[:, :] = acc
    return y

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 7:18 syntax error; '(' was never closed
# expect-functions: 
