# Planted defects: PV002 divergent-acc-carry and PV003 inplace-alias (L0C_RULES.md; TARGET_FACTS.md, PTO
# codegen: tile loop carries are not SSA values, and `tmatmul.acc` writes the result's buffer, never
# the IR acc operand's). Form 3: MemoryReuse output with yield fixup skipped.
#
# `carry_moved`: a K loop over 4 blocks whose init, iter_arg and in-place MADs are on mem_acc_4[0:8192]
# but whose return var `c` was given mem_acc_5[0:8192] (its own lifetime, as if it were a fresh value).
# Expected: PV002 on the loop (its return var is on another window than its init / iter_arg / yield);
# PV009 on `c_init` (the chain c_init -> c_iter -> c_new -> c spans both windows). Real: codegen binds
# the carry to mem_acc_4 and the store drains mem_acc_5, which nothing wrote.
#
# `alias_split`: two straight-line K blocks; the accumulate `acc_1 = matmul_acc(acc_0, ...)` is declared
# on mem_acc_9[0:4096] while its acc input `acc_0` is on mem_acc_8[0:4096].
# Expected: PV003 on `acc_1` (an in-place op whose output window differs from its acc input's); PV007 on
# the same line (the MAD accumulates into mem_acc_9, which no path initialised); PV009 on `acc_0` (one
# chain, two windows). All three are real: the emitted `tmatmul.acc ins(mem_acc_9 ...)` adds into
# undefined L0C and drops the first block.
import pypto.language as pl

@pl.program
class BufferMismatch:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def carry_moved(a__ssa_v0: pl.Tensor[[16, 512], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], b__ssa_v0: pl.Tensor[[512, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 262144)], out__ssa_v0: pl.Out[pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)]]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem_mat_2: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 65536)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 8192)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 8192)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 65536)
        c_init: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)  # expect: PV009
        for kb__idx_v0, (c_iter,) in pl.range(0, 4, 1, init_values=(c_init,)):  # expect: PV002
            ta__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_mat_2, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, kb__idx_v0 * 128], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
            tb__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 65536), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [kb__idx_v0 * 128, 0], [128, 128], [128, 128], target_memory=pl.Mem.Mat)
            ta_l: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 8192), pl.Mem.Left] = pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Left)
            tb_r: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 65536), pl.Mem.Right] = pl.tile.move(tb__ssa_v0, target_memory=pl.Mem.Right)
            c_new: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta_l, tb_r, kb__idx_v0 == 0)
            c: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 8192), pl.Mem.Acc] = pl.yield_(c_new)
        out__ssa_v1: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 8192)] = pl.tile.store(c, [0, 0], out__ssa_v0)
        return out__ssa_v0

    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def alias_split(x__ssa_v0: pl.Tensor[[16, 256], pl.INT8, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], w__ssa_v0: pl.Tensor[[256, 32], pl.INT8, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 8192)], y__ssa_v0: pl.Out[pl.Tensor[[16, 32], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)]]) -> pl.Tensor[[16, 32], pl.INT32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_left_5: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        mem_left_7: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_acc_8: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_acc_9: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_right_10: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 4096)
        x_mat__ssa_v0: pl.Tile[[16, 256], pl.INT8, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 4096), pl.Mem.Mat] = pl.tile.load(x__ssa_v0, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Mat)
        w_mat__ssa_v0: pl.Tile[[256, 32], pl.INT8, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(w__ssa_v0, [0, 0], [256, 32], [256, 32], target_memory=pl.Mem.Mat)
        a_0: pl.Tile[[16, 128], pl.INT8, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(x_mat__ssa_v0, 0, 0, [16, 128], target_memory=pl.Mem.Left)
        b_0: pl.Tile[[128, 32], pl.INT8, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(w_mat__ssa_v0, 0, 0, [128, 32], target_memory=pl.Mem.Right)
        acc_0: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_acc_8, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_0, b_0)  # expect: PV009
        a_1: pl.Tile[[16, 128], pl.INT8, pl.MemRef(mem_left_7, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.extract(x_mat__ssa_v0, 0, 128, [16, 128], target_memory=pl.Mem.Left)
        b_1: pl.Tile[[128, 32], pl.INT8, pl.MemRef(mem_right_10, pl.const(0, pl.INT64), 4096), pl.Mem.Right] = pl.tile.extract(w_mat__ssa_v0, 128, 0, [128, 32], target_memory=pl.Mem.Right)
        acc_1: pl.Tile[[16, 32], pl.INT32, pl.MemRef(mem_acc_9, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(acc_0, a_1, b_1)  # expect: PV003 PV007
        y__ssa_v1: pl.Tensor[[16, 32], pl.INT32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 2048)] = pl.tile.store(acc_1, [0, 0], y__ssa_v0)
        return y__ssa_v0
