# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class AutoTiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 384], pl.BF16], b: pl.Tensor[[384, 128], pl.BF16], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a_mat: pl.Tile[[128, 384], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 384], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[384, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [384, 128], target_memory=pl.Mem.Mat)
        c__l0_init: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for c__l0_ko, (c__l0_c,) in pl.range(0, 256, 256, init_values=(c__l0_init,)):
            c__l0_a: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0"})
            c__l0_b: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
            c__l0_c_acc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b, init_cond=c__l0_ko == 0)
            c__l0_a_1: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, c__l0_ko + 128, [128, 128], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1"})
            c__l0_b_1: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, c__l0_ko + 128, 0, [128, 128], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
            c__l0_c_acc_1: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_c_acc, c__l0_a_1, c__l0_b_1, init_cond=c__l0_ko + 128 == 0)
            c_main: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_acc_1)
        c__l0_a_2: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 256, [128, 128], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "1:0"})
        c__l0_b_2: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 256, 0, [128, 128], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "1:0"})
        c__l0_c_acc_2: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_main, c__l0_a_2, c__l0_b_2)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = c__l0_c_acc_2
        out = pl.tile.store(c, [0, 0], out)
        return out
