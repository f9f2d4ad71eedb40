# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class HandPeel:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 256], pl.FP32], b: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        c_init: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(4, init_values=(c_init,)):
            ta: pl.Tile[[32, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, kb * 64], [32, 64], target_memory=pl.Mem.Mat)
            tb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [kb * 64, 0], [64, 64], target_memory=pl.Mem.Mat)
            if kb == 0:
                ta_Left: pl.Tile[[32, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
                tb_Right: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
                f: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_Left, tb_Right)
                ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f)
            else:
                ta_Left_1: pl.Tile[[32, 64], pl.FP32, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
                tb_Right_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
                x: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta_Left_1, tb_Right_1)
                ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x)
            c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
