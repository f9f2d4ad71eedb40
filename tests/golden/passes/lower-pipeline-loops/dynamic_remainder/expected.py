# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 1024], pl.FP32], b: pl.Tensor[[1024, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[1024, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        unroll_main_end: pl.Scalar[pl.INDEX] = (n + 63) // 64 // 2 * 128
        for ko, (c_iter,) in pl.range(0, unroll_main_end, 128, init_values=(c_init,)):
            sa: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0"})
            sb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
            c_new: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, init_cond=ko == 0)
            sa_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko + 64, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1"})
            sb_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, ko + 64, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
            c_new_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_new, sa_1, sb_1, init_cond=ko + 64 == 0)
            c_main: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new_1)
        unroll_rem: pl.Scalar[pl.INDEX] = (n + 63) // 64 - (n + 63) // 64 // 2 * 2
        if unroll_rem == 1:
            sa_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, unroll_main_end, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:0"})
            sb_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, unroll_main_end, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:0"})
            c_new_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_main, sa_2, sb_2, init_cond=unroll_main_end == 0)
            c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new_2)
        else:
            c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_main)
        out = pl.tile.store(c, [0, 0], out)
        return out
