# Planted defect: PV006 illegal-acc-reader (TARGET_FACTS.md, "Who may read L0C": only matmul_acc's own
# accumulator operand and the FIXPIPE drain to GM / Mat, plus Acc->Vec on a5, read L0C). Form 3: the
# output of a compiler that forgot to route an epilogue through a drain.
#
# `scale_in_l0c`: the vector multiply `scaled = tile.muls(c, 0.125)` takes the Acc tile `c` as its operand.
# The vector unit cannot address L0C on any target, so this is PV006 on that line whatever the target
# (a5 allows a `tile.move` Acc->Vec, not a vector op on Acc).
# `extract_from_acc`: `tile.extract` of a window of the Acc tile `part` into L0A, feeding the next
# matmul: an L0C -> L0A path that no instruction provides (PV006 on the extract).
# Nothing else is wrong: each accumulator is initialised by its matmul and on one window.
import pypto.language as pl

@pl.program
class AccReaders:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def scale_in_l0c(a__ssa_v0: pl.Tensor[[16, 128], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b__ssa_v0: pl.Tensor[[128, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_7: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_vec_8: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        a_mat__ssa_v0: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        a_l: pl.Tile[[16, 128], pl.BF16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a_mat__ssa_v0, target_memory=pl.Mem.Left)
        b_r: pl.Tile[[128, 64], pl.BF16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(b_mat__ssa_v0, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
        scaled: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_8, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.muls(c, 0.125)  # expect: PV006
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(scaled, [0, 0], out__ssa_v0)
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def extract_from_acc(a__ssa_v0: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], b__ssa_v0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)], c__ssa_v0: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_5: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_mat_6: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 16384)
        mem_left_7: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_8: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_10: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_11: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_12: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        a_mat__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_5, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        c_mat__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_mat_6, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(c__ssa_v0, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        a_l: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.move(a_mat__ssa_v0, target_memory=pl.Mem.Left)
        b_r: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_8, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(b_mat__ssa_v0, target_memory=pl.Mem.Right)
        part: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_l, b_r)
        part_l: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_left_10, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.extract(part, 0, 0, [16, 64], target_memory=pl.Mem.Left)  # expect: PV006
        c_r: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_11, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(c_mat__ssa_v0, target_memory=pl.Mem.Right)
        chained: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_12, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(part_l, c_r)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_3", pl.const(0, pl.INT64), 4096)] = pl.tile.store(chained, [0, 0], out__ssa_v0)
        return out__ssa_v0
