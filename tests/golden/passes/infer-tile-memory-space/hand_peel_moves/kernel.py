# lower: --pipeline legacy
import pypto.language as pl


@pl.program
class HandPeel:
    """The hand-written peel inside the loop that carries the accumulator."""

    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 256], pl.FP32], b: pl.Tensor[[256, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        c_init: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(0, 4, 1, init_values=(c_init,)):
            ta: pl.Tile[[32, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, kb * 64], [32, 64], target_memory=pl.Mem.Mat)
            tb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [kb * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            if kb == 0:
                f: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
                ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f)
            else:
                x: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta, tb)
                ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x)
            c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
