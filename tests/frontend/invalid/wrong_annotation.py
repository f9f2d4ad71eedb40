# A written annotation that contradicts the inferred type: PV000 for `bad_shape` alone.
import pypto.language as pl


@pl.program
class Annotated:
    @pl.function(type=pl.FunctionType.InCore)
    def bad_shape(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16],
                  out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Left)
        tb: pl.Tile[[64, 128], pl.BF16, pl.Mem.Right] = pl.tile.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def good(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        ta: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Left)
        tb: pl.Tile[[64, 128], pl.BF16, pl.Mem.Right] = pl.tile.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        out = pl.tile.store(c, [0, 0], out)
        return out

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 12:9 type annotation of `c`; annotation says [16, 64] FP32 Acc but `pl.tile.matmul` gives [16, 128] FP32 Acc
# expect-functions: good
