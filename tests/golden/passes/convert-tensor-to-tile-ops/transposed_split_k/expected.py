# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def proj(x: pl.Tensor[[16, 2048], pl.BF16], w: pl.Tensor[[256, 2048], pl.BF16], y: pl.Out[pl.Tensor[[16, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
        acc: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for kb, (acc__iter_v1,) in pl.pipeline(8, stage=2, init_values=(acc,)):
            k0 = kb * 256
            xa: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, k0], [16, 256], [16, 256], target_memory=pl.Mem.Mat)
            wb: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, k0], [256, 256], [256, 256], target_memory=pl.Mem.Mat)
            if k0 == 0:
                wb_t: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb)
                acc__ssa_v2: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xa, wb_t)
                acc__phi_v4: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v2)
            else:
                wb_t_1: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.transpose_view(wb)
                acc__ssa_v3: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc__iter_v1, xa, wb_t_1)
                acc__phi_v4: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.yield_(acc__ssa_v3)
            acc__rv_v5: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.yield_(acc__phi_v4)
        y = pl.tile.store(acc__rv_v5, [0, 0], y)
    return y
