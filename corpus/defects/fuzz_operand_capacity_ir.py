# Fuzz escape (benchmarks/fuzz.py, generated Form 3 programs: 13 of the 10 000 generated in the first recorded
# run, each a "correct" program whose clones keep their operands on their own windows): the Right (L0B) windows
# of the program need more bytes than L0B holds.
#
# Form 3, checked as given. `sb_0` and `sb_1` are [160, 64] FP32 tiles, 40 KiB each, on two Right allocations
# (mem_right_5, mem_right_6), both live from their extracts to the MADs: 80 KiB of L0B, whose capacity is
# 64 KiB on a2a3 (TARGET_FACTS.md, "Memory spaces"). The simulator rejects the program (PV202: tile %sb_1
# [40960, 81920) exceeds the right capacity of 65536 bytes); statically this is PV008 (co-live buffers exceed
# the target's capacity) at `sb_1`, where the co-live Right bytes first exceed L0B. Both pipelines (Form 3 is
# not lowered). Before the fix it came back verified: PV008 counted only Acc.
import pypto.language as pl

@pl.program
class OperandCapacity:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def main(a: pl.Tensor[[16, 320], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 20480)], b: pl.Tensor[[320, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 81920)], out: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 20480)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 81920)
        mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_3: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 10240)
        mem_left_4: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 10240)
        mem_right_5: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 40960)
        mem_right_6: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 40960)
        a_mat: pl.Tile[[16, 320], pl.FP32, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 20480), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 320], [16, 320], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[320, 64], pl.FP32, pl.MemRef(mem_mat_1, pl.const(0, pl.INT64), 81920), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [320, 64], [320, 64], target_memory=pl.Mem.Mat)
        sa_0: pl.Tile[[16, 160], pl.FP32, pl.MemRef(mem_left_3, pl.const(0, pl.INT64), 10240), pl.Mem.Left] = pl.tile.extract(a_mat, 0, 0, [16, 160], target_memory=pl.Mem.Left)
        sb_0: pl.Tile[[160, 64], pl.FP32, pl.MemRef(mem_right_5, pl.const(0, pl.INT64), 40960), pl.Mem.Right] = pl.tile.extract(b_mat, 0, 0, [160, 64], target_memory=pl.Mem.Right)
        sa_1: pl.Tile[[16, 160], pl.FP32, pl.MemRef(mem_left_4, pl.const(0, pl.INT64), 10240), pl.Mem.Left] = pl.tile.extract(a_mat, 0, 160, [16, 160], target_memory=pl.Mem.Left)
        sb_1: pl.Tile[[160, 64], pl.FP32, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 40960), pl.Mem.Right] = pl.tile.extract(b_mat, 160, 0, [160, 64], target_memory=pl.Mem.Right)  # expect: PV008
        c_0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_2, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(sa_0, sb_0)
        c_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_2, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_0, sa_1, sb_1)
        out_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c_1, [0, 0], out)
        return out
