"""Wild construct: constants imported relatively from a sibling module (`from .config import X`)."""

import pypto.language as pl

from .config import HIDDEN, K_TILE, OUT, ROWS


@pl.jit
def proj(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor[[HIDDEN, OUT], pl.BF16], y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc = pl.create_tensor([ROWS, OUT], dtype=pl.FP32)
        for k0 in pl.pipeline(0, HIDDEN, K_TILE, stage=2):
            if k0 == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y
