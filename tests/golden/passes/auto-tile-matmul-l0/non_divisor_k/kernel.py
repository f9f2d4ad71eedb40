# lower: --pipeline fixed
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 272], pl.BF16], b: pl.Tensor[[272, 256], pl.BF16],
             out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        a_mat: pl.Tile[[16, 272], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 272], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[272, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [272, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat)
        out = pl.tile.store(c, [0, 0], out)
        return out
