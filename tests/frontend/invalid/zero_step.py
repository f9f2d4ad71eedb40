"""A K loop whose step is 0 never ends: an input error at the step, never a verified kernel; the
other kernel of the file still reads."""

import pypto.language as pl

STEP = 0


@pl.jit
def stuck(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stuck"):
        for kb in pl.range(0, 4, STEP):
            acc = pl.matmul(x[:, 0:64], w[0:64, :])
        y[:, :] = acc
    return y


@pl.jit
def fine(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fine"):
        acc = pl.matmul(x[:, 0:64], w[0:64, :])
        y[:, :] = acc
    return y

# expect: 12:34 loop step `STEP` of `pl.range(0, 4, STEP)`; the step is 0, so the loop never ends (Python's range rejects it too)
# expect-functions: fine
