"""Wild construct: a `@pl.program` built by a factory function whose parameters have constant defaults,
and a helper kernel defined under a module-level `if` on a constant."""

import pypto.language as pl

VARIANT = "wide"
ROWS = 16
K = 256
K_TILE = 64

if VARIANT == "wide":
    N = 128
else:
    N = 64


def build_program(rows: int = ROWS, n: int = N):
    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[rows, K], pl.FP32], b: pl.Tensor[[K, n], pl.FP32],
                 c: pl.Out[pl.Tensor[[rows, n], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="built"):
                acc = pl.create_tensor([rows, n], dtype=pl.FP32)
                for kb in pl.range(K // K_TILE):
                    if kb == 0:
                        acc = pl.matmul(a[:, 0:K_TILE], b[0:K_TILE, :])
                    else:
                        acc = pl.matmul_acc(acc, a[:, kb * K_TILE : kb * K_TILE + K_TILE], b[kb * K_TILE : kb * K_TILE + K_TILE, :])
                c[:, :] = acc
            return c

    return Built
