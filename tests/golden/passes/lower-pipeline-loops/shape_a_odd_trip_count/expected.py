# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 1024], pl.FP32], b: pl.Tensor[[1024, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[1024, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.range(0, 128, 128, init_values=(c_init,)):
            sa: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0"})
            sb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
            if ko == 0:
                f: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa, sb)
                ph: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f)
            else:
                x: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb)
                ph: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x)
            sa_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko + 64, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1"})
            sb_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, ko + 64, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
            if ko + 64 == 0:
                f_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa_1, sb_1)
                ph_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f_1)
            else:
                x_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(ph, sa_1, sb_1)
                ph_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x_1)
            c_main: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(ph_1)
        sa_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 128, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:0"})
        sb_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, 128, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:0"})
        if 128 == 0:
            f_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa_2, sb_2)
            ph_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f_2)
        else:
            x_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_main, sa_2, sb_2)
            ph_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x_2)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = ph_2
        out = pl.tile.store(c, [0, 0], out)
        return out
