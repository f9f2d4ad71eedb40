"""Wild construct: kernels as methods of a `@pl.program` class (`@pl.function(type=...)` Opaque,
Orchestration, InCore), calling each other through `self`; several kernels in one file."""

import pypto.language as pl

BATCH = 16
HIDDEN = 1024
OUT = 256
K_TILE = 128


@pl.program
class TwoStage:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[BATCH, HIDDEN], pl.FP32], xs: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.BF16]]):
        t = pl.tile.load(x, [0, 0], [BATCH, HIDDEN], target_memory=pl.Mem.Vec)
        u = pl.tile.cast(pl.tile.mul(t, 0.5), target_type=pl.BF16)
        xs = pl.tile.store(u, [0, 0], xs)
        return xs

    @pl.function(type=pl.FunctionType.Opaque)
    def project(self, xs: pl.Tensor[[BATCH, HIDDEN], pl.BF16], w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
                y: pl.Out[pl.Tensor[[BATCH, OUT], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="project"):
            acc = pl.create_tensor([BATCH, OUT], dtype=pl.FP32)
            for kb in pl.pipeline(HIDDEN // K_TILE, stage=2):
                k0 = kb * K_TILE
                if k0 == 0:
                    acc = pl.matmul(xs[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xs[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
            y[:, :] = acc
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def run(self, x: pl.Tensor[[BATCH, HIDDEN], pl.FP32], w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
            y: pl.Out[pl.Tensor[[BATCH, OUT], pl.FP32]]):
        xs = pl.create_tensor([BATCH, HIDDEN], dtype=pl.BF16)
        xs = self.scale(x, xs)
        y = self.project(xs, w, y)
        return y
