# Planted defect: PV103 no-lost-partial-sums (L0C_RULES.md, "Z3 obligations": "e.g. a second clone also
# predicated `ko == 0`, or an inner-loop predicate that resets on every outer iteration before the
# store"). Form 3, so there is no source to excuse a reset: the IR is checked as given. Every Acc value
# is on one window, so no Datalog rule fires; the defect is only in the predicates.
#
# `clone_reset`: a stage-2 K loop over 4 blocks of 128, replicated into two clones per iteration. The
# second clone's init_cond was copied from the first (`ko == 0` instead of `ko + 128 == 0`): at ko = 0
# it re-initialises the window and discards block 0, which was never drained. PV103 on that MAD.
# `chunk_reset`: an outer chunk loop (kb) carries the accumulator into an inner K loop (ko) whose
# predicate is its own index (`ko == 0` instead of `kb * 256 + ko == 0`): every outer iteration from
# kb = 1 on throws away the chunks before it, none of which was stored. PV103 on that MAD.
# PV102 holds in both (the first MAD executed initialises), and PV104 does not apply (no bias).
import pypto.language as pl

@pl.program
class LostPartialSums:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def clone_reset(a__ssa_v0: pl.Tensor[[16, 512], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], b__ssa_v0: pl.Tensor[[512, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 65536)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        a_mat__ssa_v0: pl.Tile[[16, 512], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 512], [16, 512], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[512, 64], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 65536), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [512, 64], [512, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.range(0, 512, 256, init_values=(c_init,)):
            sa: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 4096), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, 0, ko, [16, 128], target_memory=pl.Mem.Left)
            sb: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko, 0, [128, 64], target_memory=pl.Mem.Right)
            c_new: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, ko == 0)
            sa_1: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 4096), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, 0, ko + 128, [16, 128], target_memory=pl.Mem.Left)
            sb_1: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko + 128, 0, [128, 64], target_memory=pl.Mem.Right)
            c_new_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_new, sa_1, sb_1, ko == 0)  # expect: PV103
            c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_new_1)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c, [0, 0], out__ssa_v0)
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def chunk_reset(x__ssa_v0: pl.Tensor[[16, 1024], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], w__ssa_v0: pl.Tensor[[1024, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)], y__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        acc__tile: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (acc_iter,) in pl.range(0, 4, 1, init_values=(acc__tile,)):
            for ko, (c_inner,) in pl.range(0, 256, 128, init_values=(acc_iter,)):
                ta: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(x__ssa_v0, [0, kb__idx_v0 * 256 + ko], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
                tb: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [kb__idx_v0 * 256 + ko, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
                sa: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)
                sb: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(tb, target_memory=pl.Mem.Right)
                c_next: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_inner, sa, sb, ko == 0)  # expect: PV103
                acc_tile: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_next)
            acc__rv_v2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc_tile)
        y__tile: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(acc__rv_v2, [0, 0], y__ssa_v0)
        return y__ssa_v0
