# An INT8 K loop with the `if kb == 0: matmul else: matmul_acc` phi body (the hand-peel shape, all
# on one Acc window): the phi is an alloc_tile of its own window before the scf.if, Mat -> L0 goes
# through tmov, and the INT32 accumulator's 16 valid rows occupy 32 physical rows on a2a3.
import pypto.language as pl

@pl.program
class Int8Phi:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 256], pl.INT8], b: pl.Tensor[[256, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]) -> pl.Tensor[[16, 64], pl.INT32]:
        mem_acc_0: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 1024)
        mem_right_4: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        c_init: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.INT32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(4, init_values=(c_init,)):
            ta: pl.Tile[[16, 64], pl.INT8, pl.MemRef(mem_mat_1, pl.const(0, pl.INT64), 1024), pl.Mem.Mat] = pl.tile.load(a, [0, kb * 64], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
            tb: pl.Tile[[64, 64], pl.INT8, pl.MemRef(mem_mat_2, pl.const(1024, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(b, [kb * 64, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
            ta_l: pl.Tile[[16, 64], pl.INT8, pl.MemRef(mem_left_3, pl.const(0, pl.INT64), 1024), pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
            tb_r: pl.Tile[[64, 64], pl.INT8, pl.MemRef(mem_right_4, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
            if kb == 0:
                f: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul(ta_l, tb_r)
                ph: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(f)
            else:
                x: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta_l, tb_r)
                ph: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(x)
            c: pl.Tile[[16, 64], pl.INT32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(ph)
        out: pl.Tensor[[16, 64], pl.INT32] = pl.tile.store(c, [0, 0], out)
        return out
