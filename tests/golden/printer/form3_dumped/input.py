import pypto.language as pl


@pl.program
class Dumped:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[64, 256], pl.FP32], b: pl.Tensor[[256, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 16384)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 16384)
        a_mat: pl.Tile[[64, 256], pl.FP32, pl.MemRef(mem_mat_0, 0, 65536), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 256], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[256, 64], pl.FP32, pl.MemRef(mem_mat_1, 0, 65536), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.range(0, 256, 64, init_values=(c_init,)):
            sa: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_left_2, 0, 16384), pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [64, 64], target_memory=pl.Mem.Left)
            sb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_3, 0, 16384), pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [64, 64], target_memory=pl.Mem.Right)
            c_new: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)
            c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.yield_(c_new)
        ta: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_left_2, 0, 16384), pl.Mem.Left] = pl.tile.extract(a_mat, 0, 192, [64, 64], target_memory=pl.Mem.Left)
        tb: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_3, 0, 16384), pl.Mem.Right] = pl.tile.extract(b_mat, 192, 0, [64, 64], target_memory=pl.Mem.Right)
        if pl.const(128, pl.INDEX) == pl.const(0, pl.INDEX):
            f: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 16384, slots=2)[1], pl.Mem.Acc] = pl.tile.matmul(ta, tb)
            p: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.yield_(f)
        else:
            p: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_acc_4, 0, 16384), pl.Mem.Acc] = pl.yield_(c)
        out: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(p, [0, 0], out)
        return out
