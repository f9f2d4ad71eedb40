# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(lhs: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], rhs: pl.Tensor[[256, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]], bias: pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 256)]) -> pl.Tensor[[32, 64], pl.FP32]:
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_bias_8: pl.Ptr = pl.tile.alloc(pl.Mem.Bias, 256)
        mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_10: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_11: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_12: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_13: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        ma_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        mb_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_0, target_memory=pl.Mem.Left)
        b_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_0, target_memory=pl.Mem.Right)
        bias_t: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_bias_8, pl.const(0, pl.INT64), 256), pl.Mem.Bias] = pl.tile.load(bias, [0, 0], [1, 64], target_memory=pl.Mem.Bias)
        c0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_bias(a_0, b_0, bias_t)
        for ko, (c_iter,) in pl.range(64, 256, 64, init_values=(c0,)):
            ma: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_10, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, ko], [32, 64], target_memory=pl.Mem.Mat)
            mb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_11, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [ko, 0], [64, 64], target_memory=pl.Mem.Mat)
            a: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_12, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma, target_memory=pl.Mem.Left)
            b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_13, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb, target_memory=pl.Mem.Right)
            x: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
            c: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c, [0, 0], out)
        return out
