# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 1024], pl.FP32], b: pl.Tensor[[1024, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat: pl.Tile[[64, 1024], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[1024, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        sa: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0"})
        sb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:0"})
        f: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa, sb)
        sa_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 64, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1"})
        sb_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, 64, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:1"})
        x_1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(f, sa_1, sb_1)
        sa_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Left] = pl.tile.extract(a_mat, 0, 128, [64, 64], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:2"})
        sb_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.extract(b_mat, 128, 0, [64, 64], target_memory=pl.Mem.Right, attrs={"pipeline_membership": "0:2"})
        x_2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(x_1, sa_2, sb_2)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = x_2
        out = pl.tile.store(c, [0, 0], out)
        return out
