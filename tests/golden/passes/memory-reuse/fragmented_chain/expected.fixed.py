# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(lhs: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], rhs: pl.Tensor[[256, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[32, 64], pl.FP32]:
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_8: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        c_init: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        ma_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        mb_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_0, target_memory=pl.Mem.Left)
        b_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_0, target_memory=pl.Mem.Right)
        if 0 == 0:
            f0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_0, b_0)
            p0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f0)
        else:
            x0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_init, a_0, b_0)
            p0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x0)
        ma_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, 64], [32, 64], target_memory=pl.Mem.Mat)
        mb_1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [64, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_1, target_memory=pl.Mem.Left)
        b_1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_1, target_memory=pl.Mem.Right)
        if 64 == 0:
            f1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_1, b_1)
            p1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f1)
        else:
            x1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(p0, a_1, b_1)
            p1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x1)
        ma_2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, 128], [32, 64], target_memory=pl.Mem.Mat)
        mb_2: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [128, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_2, target_memory=pl.Mem.Left)
        b_2: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_2, target_memory=pl.Mem.Right)
        if 128 == 0:
            f2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_2, b_2)
            p2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f2)
        else:
            x2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(p1, a_2, b_2)
            p2: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x2)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(p2, [0, 0], out)
        return out
