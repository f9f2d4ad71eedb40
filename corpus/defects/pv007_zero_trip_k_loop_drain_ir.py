# Planted defect: PV007 uninitialised-accumulate on a drain (L0C_RULES.md PV007; TARGET_FACTS.md:
# `tile.create` emits no instruction, L0C is undefined until a MAD writes it). Form 3: a split-K stage as
# the compiler prints it after Simplify folded the slice's block count K_SLICE // K_TILE = 64 // 128 to 0.
# Checked as given (no lowering), the same in both pipelines.
#
# `literal_bounds`: the K loop `pl.range(0, 0, 1)` with the predicated MAD (`init_cond` kb == 0) never
# runs; it returns its init `c_init`, the `tile.create` on mem_acc_4[0:4096], and the store drains it.
# Expected: PV007 on the store (no path from the create to it writes mem_acc_4; the loop body, the only
# writer, is unreachable).
#
# `folded_block_count`: the block count is a scalar binding of two literals, `n_blocks = 64 // 128`, and
# the loop seeds with an `if kb == 0: matmul / else: matmul_acc` phi. The count folds to 0 (a literal trip
# count, as `if 128 == 0:` is a literal condition), so the same holds: PV007 on the store.
#
# Nothing else is wrong: each accumulator chain stays on one window and would initialise on its first
# block, if it had one.
import pypto.language as pl

@pl.program
class ZeroTripDrain:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def literal_bounds(x__ssa_v0: pl.Tensor[[16, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], w__ssa_v0: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], y__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        c_init: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (c_iter,) in pl.range(0, 0, 1, init_values=(c_init,)):
            ta__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_2, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(x__ssa_v0, [0, kb__idx_v0 * 128], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            tb__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [kb__idx_v0 * 128, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
            ta_l: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Left)
            tb_r: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(tb__ssa_v0, target_memory=pl.Mem.Right)
            c_new: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta_l, tb_r, kb__idx_v0 == 0)
            c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_new)
        y__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c, [0, 0], y__ssa_v0)  # expect: PV007
        return y__ssa_v0

    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def folded_block_count(x__ssa_v0: pl.Tensor[[16, 64], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], w__ssa_v0: pl.Tensor[[64, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], y__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        n_blocks__ssa_v0: pl.Scalar[pl.INDEX] = 64 // 128
        acc__tile: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb__idx_v0, (acc_iter,) in pl.range(0, n_blocks__ssa_v0, 1, init_values=(acc__tile,)):
            ta__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_2, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(x__ssa_v0, [0, kb__idx_v0 * 128], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            tb__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [kb__idx_v0 * 128, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
            ta_l: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Left)
            tb_r: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(tb__ssa_v0, target_memory=pl.Mem.Right)
            if kb__idx_v0 == 0:
                seed: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(ta_l, tb_r)
                acc_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(seed)
            else:
                step: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc_iter, ta_l, tb_r)
                acc_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(step)
            acc__rv_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(acc_phi)
        y__tile: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(acc__rv_v1, [0, 0], y__ssa_v0)  # expect: PV007
        return y__ssa_v0
