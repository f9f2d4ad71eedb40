"""Wild construct: `pl.unroll(n)`, plain `range(...)` over constants (read as unroll), `elif`, and a
boolean combination of loop variables in a condition."""

import pypto.language as pl

ROWS = 16
HIDDEN = 384
OUT = 64
K_TILE = 128
N_SPLIT = 2


@pl.jit
def proj(x: pl.Tensor[[ROWS, HIDDEN], pl.BF16], w: pl.Tensor[[HIDDEN, OUT * N_SPLIT], pl.BF16],
         y: pl.Out[pl.Tensor[[ROWS, OUT * N_SPLIT], pl.FP32]]):
    for nb in range(N_SPLIT):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.create_tensor([ROWS, OUT], dtype=pl.FP32)
            for kb in pl.unroll(HIDDEN // K_TILE):
                xa = x[:, kb * K_TILE : kb * K_TILE + K_TILE]
                wb = w[kb * K_TILE : kb * K_TILE + K_TILE, nb * OUT : nb * OUT + OUT]
                if kb == 0:
                    acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                elif (kb == 1) and (nb < 2):
                    acc = pl.matmul_acc(acc, xa, wb)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[:, nb * OUT : nb * OUT + OUT] = acc
    return y
