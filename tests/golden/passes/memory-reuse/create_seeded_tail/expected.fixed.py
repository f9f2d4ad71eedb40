# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(lhs: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], rhs: pl.Tensor[[256, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]], out1: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 8192)]], flag: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_7: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        acc: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        d0: pl.Scalar[pl.INDEX] = flag * 64
        ma: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, d0], [32, 64], target_memory=pl.Mem.Mat)
        mb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [d0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma, target_memory=pl.Mem.Left)
        b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb, target_memory=pl.Mem.Right)
        if d0 == 0:
            f: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a, b)
            phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f)
        else:
            x: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(acc, a, b)
            phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(phi, [0, 0], out)
        return out
