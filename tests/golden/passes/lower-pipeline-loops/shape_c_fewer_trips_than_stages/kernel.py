# lower: --pipeline legacy
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 1024], pl.FP32], b: pl.Tensor[[1024, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[1024, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 192, 64, init_values=(c_init,), stage=4):
            sa: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [64, 64], target_memory=pl.Mem.Left)
            sb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [64, 64], target_memory=pl.Mem.Right)
            if ko == 0:
                f: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa, sb)
                ph: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f)
            else:
                x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb)
                ph: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x)
            c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
