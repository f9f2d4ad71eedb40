# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(lhs: pl.Tensor[[32, 256], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], rhs: pl.Tensor[[256, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out: pl.Out[pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[32, 64], pl.FP32]:
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_7: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        c_main: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        if 128 == 0:
            fresh: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for k_t, (c_t,) in pl.range(0, 128, 64, init_values=(fresh,)):
                ma_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, k_t], [32, 64], target_memory=pl.Mem.Mat)
                mb_t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [k_t, 0], [64, 64], target_memory=pl.Mem.Mat)
                a_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_t, target_memory=pl.Mem.Left)
                b_t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_t, target_memory=pl.Mem.Right)
                r_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_t, a_t, b_t, k_t == 0)
                o_t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(r_t)
            phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(o_t)
        else:
            for k_e, (c_e,) in pl.range(0, 128, 64, init_values=(c_main,)):
                ma_e: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, k_e], [32, 64], target_memory=pl.Mem.Mat)
                mb_e: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [k_e, 0], [64, 64], target_memory=pl.Mem.Mat)
                a_e: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma_e, target_memory=pl.Mem.Left)
                b_e: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb_e, target_memory=pl.Mem.Right)
                r_e: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_e, a_e, b_e)
                o_e: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(r_e)
            phi: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(o_e)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(phi, [0, 0], out)
        return out
