import pypto.language as pl


@pl.program
class Gemm:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 512], pl.BF16], b: pl.Tensor[[512, 64], pl.BF16],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        a_mat: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 512, 128, init_values=(c_init,), stage=2):
            sa: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [128, 128], target_memory=pl.Mem.Left)
            sb: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [128, 64], target_memory=pl.Mem.Right)
            c_new: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, init_cond=(ko == 0))
            c: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new)
        out = pl.tile.store(c, [0, 0], out)
        return out
