# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 384], pl.BF16], b: pl.Tensor[[384, 128], pl.BF16], bias: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a_mat: pl.Tile[[128, 384], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 384], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[384, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [384, 128], target_memory=pl.Mem.Mat)
        bias_mat: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        c__l0_a0: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, [128, 128], target_memory=pl.Mem.Left)
        c__l0_b0: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [128, 128], target_memory=pl.Mem.Right)
        c__l0_c0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(c__l0_a0, c__l0_b0, bias_mat)
        for c__l0_ko, (c__l0_c,) in pl.pipeline(128, 384, 128, stage=2, init_values=(c__l0_c0,)):
            c__l0_a: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=pl.Mem.Left)
            c__l0_b: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=pl.Mem.Right)
            c__l0_c_acc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b)
            c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_acc)
        out = pl.tile.store(c, [0, 0], out)
        return out
