# lower: --pipeline legacy
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[128, 384], pl.BF16], b: pl.Tensor[[384, 128], pl.BF16],
             bias: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a_mat: pl.Tile[[128, 384], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 384], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[384, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [384, 128], target_memory=pl.Mem.Mat)
        bias_mat: pl.Tile[[1, 128], pl.FP32, pl.Mem.Mat] = pl.tile.load(bias, [0, 0], [1, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_bias(a_mat, b_mat, bias_mat)
        out = pl.tile.store(c, [0, 0], out)
        return out
