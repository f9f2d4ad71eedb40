# Planted defect: shape D, the IterArg blind spot (L0C_RULES.md, "The shapes every engine test covers";
# TARGET_FACTS.md, "The defects": IterArg blind spot). Form 3: MemoryReuse output of the old compiler,
# whose `As<Var>` test skipped a phi arm / loop init that is an enclosing loop's iter_arg, so the reuse
# step moved the phi / the inner loop's carry onto another buffer and yield fixup never saw it.
#
# `guarded_tail`: a K loop over 4 blocks whose block is skipped when `kb >= live_blocks` (runtime); the
# phi `ph` picks the predicated MAD `x` or the IterArg `c_iter`.
# Expected, and why each is real:
# - PV001 twice on the `if`: `ph` is on mem_acc_6[0:2048] while its then arm `x` and its else arm, the
#   IterArg `c_iter`, are both on mem_acc_4[0:2048] (one finding per divergent arm).
# - PV002 on the `kb` loop: the loop yields `ph` (mem_acc_6) into an iter_arg / return var on mem_acc_4.
# - PV009 on `c_init`: the chain c_init -> c_iter -> x -> ph -> c spans mem_acc_4 and mem_acc_6.
#
# `chunk_carry`: a user K loop (iter_arg `acc_iter`, mem_acc_3) whose body the tiler split into an inner
# K loop seeded with the IterArg `acc_iter`; the inner carry was given the reused buffer mem_acc_8.
# Expected, and why each is real:
# - PV009 on `acc__tile`: the chain spans mem_acc_3 and mem_acc_8.
# - PV002 on the outer `kb` loop: it yields `acc_tile` (mem_acc_8) into `acc_iter` (mem_acc_3).
# - PV002 twice on the inner `ko` loop: its init `acc_iter` / iter_arg `c_inner` are on mem_acc_3 but its
#   yield `c_next` and its return var `acc_tile` are on mem_acc_8 (one finding per mismatching member).
# - PV003 on `c_next`: an in-place matmul_acc writing mem_acc_8 over an acc input on mem_acc_3.
# No PV007: `c_next` has init_cond `k0 + ko == 0`, an initialising MAD of mem_acc_8 on the first block.
import pypto.language as pl

@pl.program
class IterArgBlindSpot:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def guarded_tail(a__ssa_v0: pl.Tensor[[16, 512], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], b__ssa_v0: pl.Tensor[[512, 32], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], live_blocks: pl.Scalar[pl.INDEX], out__ssa_v0: pl.Out[pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[16, 32], pl.FP32]:
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_acc_6: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 2048)
        mem_mat_7: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        c_init__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)  # expect: PV009
        for kb__idx_v0, (c_iter,) in pl.range(4, init_values=(c_init__ssa_v0,)):  # expect: PV002
            ta__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, kb__idx_v0 * 128], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            tb__ssa_v0: pl.Tile[[128, 32], pl.BF16, pl.MemRef(mem_mat_7, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [kb__idx_v0 * 128, 0], [128, 32], [128, 32], target_memory=pl.Mem.Mat)
            if kb__idx_v0 < live_blocks:  # expect: PV001 PV001
                ta__ssa_v0_Left: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Left)
                tb__ssa_v0_Right: pl.Tile[[128, 32], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 8192), pl.Mem.Right] = pl.tile.move(tb__ssa_v0, target_memory=pl.Mem.Right)
                x__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta__ssa_v0_Left, tb__ssa_v0_Right, kb__idx_v0 == 0)
                ph__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.yield_(x__ssa_v0)
            else:
                ph__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.yield_(c_iter)
            c__rv_v0: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 2048), pl.Mem.Acc] = pl.yield_(ph__rv_v0)
        out__ssa_v1: pl.Tensor[[16, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)] = pl.tile.store(c__rv_v0, [0, 0], out__ssa_v0)
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def chunk_carry(x__ssa_v0: pl.Tensor[[16, 2048], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)], w__ssa_v0: pl.Tensor[[2048, 128], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 524288)], y__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 131072)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 65536)
        mem_acc_8: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        acc__tile: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)  # expect: PV009
        for kb__idx_v0, (acc_iter,) in pl.range(0, 4, 1, init_values=(acc__tile,)):  # expect: PV002
            k0__ssa_v0: pl.Scalar[pl.INDEX] = kb__idx_v0 * 512
            xa__tile: pl.Tile[[16, 512], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(x__ssa_v0, [0, k0__ssa_v0], [16, 512], [16, 512], target_memory=pl.Mem.Mat)
            wb__tile: pl.Tile[[512, 128], pl.BF16, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 131072), pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [k0__ssa_v0, 0], [512, 128], [512, 128], target_memory=pl.Mem.Mat)
            for ko, (c_inner,) in pl.range(0, 512, 256, init_values=(acc_iter,)):  # expect: PV002 PV002
                sa: pl.Tile[[16, 256], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.extract(xa__tile, 0, ko, [16, 256], target_memory=pl.Mem.Left)
                sb: pl.Tile[[256, 128], pl.BF16, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 65536), pl.Mem.Right] = pl.tile.extract(wb__tile, ko, 0, [256, 128], target_memory=pl.Mem.Right)
                c_next: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_inner, sa, sb, k0__ssa_v0 + ko == 0)  # expect: PV003
                acc_tile: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(c_next)
            acc__rv_v2: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(acc_tile)
        y__tile: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(acc__rv_v2, [0, 0], y__ssa_v0)
        return y__ssa_v0
