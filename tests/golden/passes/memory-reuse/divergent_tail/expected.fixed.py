# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(lhs: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], rhs: pl.Tensor[[256, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[32, 64], pl.FP32]:
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        c_init: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, 128, 128, stage=1, init_values=(c_init,)):
            ma_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, ko], [32, 64], target_memory=pl.Mem.Mat)
            mb_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [ko, 0], [64, 64], target_memory=pl.Mem.Mat)
            a_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_0, target_memory=pl.Mem.Left)
            b_0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_0, target_memory=pl.Mem.Right)
            if ko == 0:
                f_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_0, b_0)
                p_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f_0)
            else:
                x_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a_0, b_0)
                p_0: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x_0)
            ma_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, ko], [32, 64], target_memory=pl.Mem.Mat)
            mb_1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [ko, 0], [64, 64], target_memory=pl.Mem.Mat)
            a_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_1, target_memory=pl.Mem.Left)
            b_1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_1, target_memory=pl.Mem.Right)
            if ko + 64 == 0:
                f_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_1, b_1)
                p_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f_1)
            else:
                x_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(p_0, a_1, b_1)
                p_1: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x_1)
            c_main: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(p_1)
        ma_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, 128], [32, 64], target_memory=pl.Mem.Mat)
        mb_t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [128, 0], [64, 64], target_memory=pl.Mem.Mat)
        a_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_t, target_memory=pl.Mem.Left)
        b_t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_t, target_memory=pl.Mem.Right)
        if 128 == 0:
            f: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(a_t, b_t)
            c_phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f)
        else:
            x: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_main, a_t, b_t)
            c_phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c_phi, [0, 0], out)
        return out
