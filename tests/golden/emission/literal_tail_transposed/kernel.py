# A bf16 projection `y = x @ w.T` after a stage-2 pipeline was lowered: a main loop of two clones
# with runtime predicates, then a literal tail clone (`pl.const(128) == pl.const(0)`, one form: the
# accumulating MAD). `w` is read through `tile.transpose_view` (textract {transpose = true}); the
# accumulator drains twice: narrowed to bf16, and atomically added into fp32.
import pypto.language as pl

@pl.program
class LiteralTail:
    @pl.function(type=pl.FunctionType.AIC)
    def proj(x: pl.Tensor[[16, 192], pl.BF16], w: pl.Tensor[[32, 192], pl.BF16], y: pl.Out[pl.Tensor[[16, 32], pl.BF16]], z: pl.InOut[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.BF16]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 6144)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 12288)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
        xm: pl.Tile[[16, 192], pl.BF16, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 6144), pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 192], [16, 192], target_memory=pl.Mem.Mat)
        wm: pl.Tile[[32, 192], pl.BF16, pl.MemRef(mem_mat_1, pl.const(6144, pl.INT64), 12288), pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 192], [32, 192], target_memory=pl.Mem.Mat)
        wt: pl.Tile[[192, 32], pl.BF16, pl.MemRef(mem_mat_1, pl.const(6144, pl.INT64), 12288), pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(wm)
        c_init: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.range(0, 128, 128, init_values=(c_init,)):
            a0: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(xm, 0, ko, [16, 64], target_memory=pl.Mem.Left)
            b0: pl.Tile[[64, 32], pl.BF16, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(wt, ko, 0, [64, 32], target_memory=pl.Mem.Right)
            c0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a0, b0, init_cond=(ko == 0))
            a1: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(xm, 0, ko + 64, [16, 64], target_memory=pl.Mem.Left)
            b1: pl.Tile[[64, 32], pl.BF16, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(wt, ko + 64, 0, [64, 32], target_memory=pl.Mem.Right)
            c1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul_acc(c0, a1, b1, init_cond=(ko + 64 == 0))
            c_main: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.yield_(c1)
        a2: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(xm, 0, 128, [16, 64], target_memory=pl.Mem.Left)
        b2: pl.Tile[[64, 32], pl.BF16, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(wt, 128, 0, [64, 32], target_memory=pl.Mem.Right)
        c2: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul_acc(c_main, a2, b2, pl.const(128, pl.INDEX) == pl.const(0, pl.INDEX))
        y: pl.Tensor[[16, 32], pl.BF16] = pl.tile.store(c2, [0, 0], y)
        z: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(c2, [0, 0], z, atomic=pl.AtomicType.Add)
        return y
