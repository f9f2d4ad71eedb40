# Constants imported from a sibling module that does not exist: an input error only where a kernel
# uses one (`uses_missing`); `independent` never reads them and parses.
import pypto.language as pl

from no_such_config import HIDDEN, TILE

ROWS = 16


@pl.jit
def uses_missing(x: pl.Tensor[[ROWS, 256], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="uses_missing"):
        t = x[:, 0:TILE]
        y[:, 0:TILE] = pl.exp(t)
    return y


@pl.jit
def independent(x: pl.Tensor[[ROWS, 256], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="independent"):
        y[:, :] = pl.exp(x)
    return y

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 13:20 name `TILE`; module `no_such_config` was not found (no `no_such_config.py` or `no_such_config/__init__.py` beside the kernel file)
# expect-functions: independent
