"""Wild construct: INT8 operands (INT32 accumulator), a 3-D operand with a unit batch dimension
(`w[e : e + 1, :, k0 : k0 + K_TILE]`), `b_trans=True`, and a cast of the accumulator after the loop."""

import pypto.language as pl

EXPERTS = 4
TOKENS = 16
HIDDEN = 512
INTER = 128
K_TILE = 128


@pl.jit
def expert_up(x: pl.Tensor[[TOKENS, HIDDEN], pl.INT8], w: pl.Tensor[[EXPERTS, INTER, HIDDEN], pl.INT8],
              y: pl.Out[pl.Tensor[[EXPERTS, TOKENS, INTER], pl.FP32]]):
    for e in pl.parallel(EXPERTS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_up"):
            acc = pl.create_tensor([1, TOKENS, INTER], dtype=pl.INT32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[e : e + 1, :, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
            y[e : e + 1, :, :] = pl.cast(acc, target_type=pl.FP32)
    return y
