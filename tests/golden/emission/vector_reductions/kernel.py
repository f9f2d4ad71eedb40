# Row / column vector ops of the PTO subset on Vec tiles (an RMS-norm shaped chain): trowsum,
# tmuls / tadds, trsqrt, trowexpandmul, tcolexpandmul, texpands (f32 and the hex spelling of -inf),
# tmaxs / tmins, tdivs, trowmax, trowexpandsub, trecip and tcolexpandadd.
import pypto.language as pl

@pl.program
class VectorReductions:
    @pl.function(type=pl.FunctionType.AIV)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], gamma: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]], m: pl.Out[pl.Tensor[[8, 1], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256)
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 32)
        tx: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
        sq: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.mul(tx, tx)
        ss: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4352, pl.INT64), 32), pl.Mem.Vec] = pl.tile.row_sum(sq)
        ms: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4352, pl.INT64), 32), pl.Mem.Vec] = pl.tile.mul(ss, 0.015625)
        me: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4352, pl.INT64), 32), pl.Mem.Vec] = pl.tile.add(ms, 1e-06)
        inv: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_4, pl.const(4384, pl.INT64), 32), pl.Mem.Vec] = pl.tile.rsqrt(me)
        xn: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.row_expand_mul(tx, inv)
        tg: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(4096, pl.INT64), 256), pl.Mem.Vec] = pl.tile.load(gamma, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        xg: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.col_expand_mul(xn, tg)
        hi: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.maximum(xg, -4.0)
        lo: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.minimum(hi, 4.0)
        dv: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.div(lo, 3.0)
        mx: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4352, pl.INT64), 32), pl.Mem.Vec] = pl.tile.row_max(dv)
        floor: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_4, pl.const(4384, pl.INT64), 32), pl.Mem.Vec] = pl.tile.full([8, 1], dtype=pl.FP32, value=-1e999)
        top: pl.Tile[[8, 1], pl.FP32, pl.MemRef(mem_vec_3, pl.const(4352, pl.INT64), 32), pl.Mem.Vec] = pl.tile.maximum(mx, floor)
        m: pl.Tensor[[8, 1], pl.FP32] = pl.tile.store(top, [0, 0], m)
        cen: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.row_expand_sub(dv, top)
        sh: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.add(cen, 2.0)
        rc: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(2048, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.recip(sh)
        one: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(4096, pl.INT64), 256), pl.Mem.Vec] = pl.tile.full([1, 64], dtype=pl.FP32, value=0.5)
        out: pl.Tile[[8, 64], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.col_expand_add(rc, one)
        y: pl.Tensor[[8, 64], pl.FP32] = pl.tile.store(out, [0, 0], y)
        return y
