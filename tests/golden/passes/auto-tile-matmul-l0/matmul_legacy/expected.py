# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 512], pl.BF16], b: pl.Tensor[[512, 128], pl.BF16], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a_mat: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 128], target_memory=pl.Mem.Mat)
        c__l0_init: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for c__l0_ko, (c__l0_c,) in pl.pipeline(0, 512, 128, stage=2, init_values=(c__l0_init,)):
            c__l0_a: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=pl.Mem.Left)
            c__l0_b: pl.Tile[[128, 128], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=pl.Mem.Right)
            if c__l0_ko == 0:
                c__l0_c_first: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(c__l0_a, c__l0_b)
                c__l0_c_phi: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_first)
            else:
                c__l0_c_acc: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b)
                c__l0_c_phi: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_acc)
            c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_phi)
        out = pl.tile.store(c, [0, 0], out)
        return out
