# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def expert_proj(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[4, 64, 256], pl.BF16], y: pl.Out[pl.Tensor[[4, 16, 64], pl.FP32]]):
    for e in pl.parallel(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="expert_proj"):
            acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            for kb, (acc__iter_v1,) in pl.pipeline(2, stage=2, init_values=(acc,)):
                k0 = kb * 128
                xa: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, k0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
                wb: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [e, 0, k0], [1, 64, 128], [1, 64, 128], target_memory=pl.Mem.Mat)
                if k0 == 0:
                    wb_t: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb)
                    acc__ssa_v2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xa, wb_t)
                    acc__phi_v4: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v2)
                else:
                    wb_t_1: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb)
                    acc__ssa_v3: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, xa, wb_t_1)
                    acc__phi_v4: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3)
                acc__rv_v5: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__phi_v4)
            y = pl.tile.store(acc__rv_v5, [e, 0, 0], y)
    return y
