# Vector ops of the PTO subset on Vec tiles: tadd, trelu, tmuls (scalar 0.5), texp, tadds, tcvt to
# bf16, and a runtime row offset (a scalar parameter) in the load's partition view.
import pypto.language as pl

@pl.program
class VectorOps:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], row: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        ta: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(a, [row, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(ta, tb)
        r: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.relu(s)
        h: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(r, 0.5)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(4096, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.exp(h)
        p: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.adds(e, 1.0)
        q: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_vec_2, pl.const(8192, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.cast(p, target_type=pl.BF16)
        y: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(q, [0, 0], y)
        return y
