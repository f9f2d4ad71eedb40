# Planted defect: shape A, divergent tail phi (L0C_RULES.md, "The shapes every engine test covers";
# TARGET_FACTS.md, "The defects": divergent phi). Form 3: MemoryReuse output as the compiler prints it.
#
# Source (not in this file): `for ko in pl.pipeline(0, 192, 64, init_values=(c_init,), stage=2)` over a
# [16, 192] x [192, 64] BF16 product, body `if ko == 0: matmul else: matmul_acc(c_iter)` (the old tiler's
# K loop). Pipeline lowering made one main iteration (two clones: ko, ko + 64) and one literal tail
# clone for ko = 128. Every Acc value is on mem_acc_5[0:4096] except the tail clone's seed arm.
#
# Expected, and why each is real:
# - PV001 on the tail `if 128 == 0:`: the phi `c_phi_2` is on mem_acc_5[0:4096] while its then arm yields
#   `c_first_2` on mem_acc_10[0:4096]; one L0C phi, two windows, and no Acc->Acc copy can join them.
# - PV009 on `c_init`: the chain c_init -> c_iter -> ... -> c_phi_2 is linked through that phi, so one
#   reduction chain spans mem_acc_5 and mem_acc_10.
# Nothing else: every matmul_acc writes its acc input's window (no PV003), the then arm of the tail is
# dead at run time but its window is initialised by its own matmul (no PV007), and the store drains the
# phi (a legal Acc reader).
import pypto.language as pl

@pl.program
class TailPhi:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def main(a__ssa_v0: pl.Tensor[[16, 192], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 6144)], b__ssa_v0: pl.Tensor[[192, 64], pl.BF16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 24576)], out__ssa_v0: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 6144)
        mem_mat_4: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 24576)
        mem_acc_5: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        mem_left_6: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_7: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_left_8: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 2048)
        mem_right_9: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 8192)
        mem_acc_10: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 4096)
        a_mat__ssa_v0: pl.Tile[[16, 192], pl.BF16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 6144), pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 192], [16, 192], target_memory=pl.Mem.Mat)
        b_mat__ssa_v0: pl.Tile[[192, 64], pl.BF16, pl.MemRef(mem_mat_4, pl.const(0, pl.INT64), 24576), pl.Mem.Mat] = pl.tile.load(b__ssa_v0, [0, 0], [192, 64], [192, 64], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)  # expect: PV009
        for ko__idx_v0, (c_iter,) in pl.range(0, 128, 128, init_values=(c_init,)):
            a_0: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 2048), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, 0, ko__idx_v0, [16, 64], target_memory=pl.Mem.Left)
            b_0: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 8192), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko__idx_v0, 0, [64, 64], target_memory=pl.Mem.Right)
            a_1: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_8, pl.const(0, pl.INT64), 2048), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, 0, ko__idx_v0 + 64, [16, 64], target_memory=pl.Mem.Left)
            b_1: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_right_9, pl.const(0, pl.INT64), 8192), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, ko__idx_v0 + 64, 0, [64, 64], target_memory=pl.Mem.Right)
            if ko__idx_v0 == 0:
                c_first: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_0, b_0)
                c_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_first)
            else:
                c_acc: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, a_0, b_0)
                c_phi: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_acc)
            if ko__idx_v0 + 64 == 0:
                c_first_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_1, b_1)
                c_phi_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_first_1)
            else:
                c_acc_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c_phi, a_1, b_1)
                c_phi_1: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_acc_1)
            c__rv_v0: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_phi_1)
        a_2: pl.Tile[[16, 64], pl.BF16, pl.MemRef(mem_left_6, pl.const(0, pl.INT64), 2048), pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(a_mat__ssa_v0, 0, 128, [16, 64], target_memory=pl.Mem.Left)
        b_2: pl.Tile[[64, 64], pl.BF16, pl.MemRef(mem_right_7, pl.const(0, pl.INT64), 8192), pl.Mem.Right] = pl.tile.extract(b_mat__ssa_v0, 128, 0, [64, 64], target_memory=pl.Mem.Right)
        if pl.const(128, pl.INDEX) == pl.const(0, pl.INDEX):  # expect: PV001
            c_first_2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_10, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_2, b_2)
            c_phi_2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_first_2)
        else:
            c_acc_2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul_acc(c__rv_v0, a_2, b_2)
            c_phi_2: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_5, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.yield_(c_acc_2)
        out__ssa_v1: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c_phi_2, [0, 0], out__ssa_v0)
        return out__ssa_v0
