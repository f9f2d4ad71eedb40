# pypto.program: DivergentPhi
# Shape (A), Form 3 as the pre-fix compiler printed it after AllocateMemoryAddr: a stage-2 pipeline
# of two K blocks replicated into one main-loop iteration of two clones. In clone 0 the seed arm
# `f` lives on mem_acc_5 (D) while the phi `ph` and the carry live on mem_acc_4 (A): when `ko == 0`
# takes the seed arm, A is never written, clone 1 accumulates onto undefined L0C and the drain reads
# poison.
import pypto.language as pl

@pl.program
class DivergentPhi:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def main(a__ssa_v0: pl.Tensor[[16, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], b__ssa_v0: pl.Tensor[[128, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_0: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        mem_mat_1: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 32768)
        mem_left_2: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 4096)
        mem_right_3: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 16384)
        mem_acc_4: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        a_mat__ssa_v0: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 8192), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[128, 64], pl.FP32, pl.MemRef(mem_mat_1, pl.const(8192, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        c_init__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko__idx_v0, (c_iter,) in pl.range(0, 128, 128, init_values=(c_init__ssa_v0,)):
            sa__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.extract(a_mat__ssa_v0, 0, ko__idx_v0, [16, 64], target_memory=pl.Mem.Left)
            sb__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko__idx_v0, 0, [64, 64], target_memory=pl.Mem.Right)
            if ko__idx_v0 == 0:
                f__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(4096, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(sa__ssa_v0, sb__ssa_v0)
                ph__phi_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(f__ssa_v0)
            else:
                x__ssa_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa__ssa_v0, sb__ssa_v0)
                ph__phi_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(x__ssa_v0)
            sa__ssa_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_left_2, pl.const(0, pl.INT64), 4096), pl.Mem.Left] = pl.tile.extract(a_mat__ssa_v0, 0, ko__idx_v0 + 64, [16, 64], target_memory=pl.Mem.Left)
            sb__ssa_v1: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_right_3, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko__idx_v0 + 64, 0, [64, 64], target_memory=pl.Mem.Right)
            if ko__idx_v0 + 64 == 0:
                f__ssa_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(4096, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(sa__ssa_v1, sb__ssa_v1)
                ph__phi_v2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(f__ssa_v1)
            else:
                x__ssa_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(ph__phi_v1, sa__ssa_v1, sb__ssa_v1)
                ph__phi_v2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(x__ssa_v1)
            c__rv_v1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(ph__phi_v2)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c__rv_v1, [0, 0], out__ssa_v0)
        return out__ssa_v1
