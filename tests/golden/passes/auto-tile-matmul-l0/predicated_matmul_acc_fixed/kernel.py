# lower: --pipeline fixed
import pypto.language as pl


@pl.program
class Tiled:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 512], pl.BF16], b: pl.Tensor[[512, 256], pl.BF16],
             first: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        a_mat: pl.Tile[[16, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 512], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 256], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        c: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_init, a_mat, b_mat, init_cond=(first == 1))
        out = pl.tile.store(c, [0, 0], out)
        return out
