# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 272], pl.BF16], b: pl.Tensor[[272, 256], pl.BF16], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        a_mat: pl.Tile[[16, 272], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 272], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[272, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [272, 256], target_memory=pl.Mem.Mat)
        c__l0_init: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for c__l0_ko, (c__l0_c,) in pl.pipeline(0, 256, 64, stage=2, init_values=(c__l0_init,)):
            c__l0_a: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, c__l0_ko, [16, 64], target_memory=pl.Mem.Left)
            c__l0_b: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, c__l0_ko, 0, [64, 256], target_memory=pl.Mem.Right)
            c__l0_c_acc: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b, init_cond=c__l0_ko == 0)
            c__l0_kmain: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(c__l0_c_acc)
        c__l0_at: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 256, [16, 16], target_memory=pl.Mem.Left)
        c__l0_bt: pl.Tile[[16, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, 256, 0, [16, 256], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c__l0_kmain, c__l0_at, c__l0_bt)
        out = pl.tile.store(c, [0, 0], out)
        return out
