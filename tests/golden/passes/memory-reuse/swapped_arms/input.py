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
        mem_acc_8: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        c_init: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(4, init_values=(c_init,)):
            ma: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(lhs, [0, kb], [32, 64], target_memory=pl.Mem.Mat)
            mb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(rhs, [kb, 0], [64, 64], target_memory=pl.Mem.Mat)
            a: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ma, target_memory=pl.Mem.Left)
            b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(mb, target_memory=pl.Mem.Right)
            if kb != 0:
                x: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a, b)
                ph: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x)
            else:
                fresh: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for ko, (c_in,) in pl.range(0, 64, 32, init_values=(fresh,)):
                    y: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_in, a, b, ko == 0)
                    seeded: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(y)
                ph: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(seeded)
            c: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(ph)
        out: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c, [0, 0], out)
        return out
