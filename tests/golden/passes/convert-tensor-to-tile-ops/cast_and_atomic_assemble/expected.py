# pypto-verify IR (Form 2)
import pypto.language as pl


@pl.jit
def cast_and_sum(x: pl.Tensor[[16, 128], pl.BF16], w: pl.Tensor[[128, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.BF16]], total: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="cast_and_sum"):
        xa: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Mat)
        wb: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 64], [128, 64], target_memory=pl.Mem.Mat)
        acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(xa, wb)
        low: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(acc, target_type=pl.BF16, mode="rint")
        y = pl.tile.store(low, [0, 0], y)
        pl.tile.store(acc, [0, 0], total, atomic=pl.AtomicType.Add)
    return y
