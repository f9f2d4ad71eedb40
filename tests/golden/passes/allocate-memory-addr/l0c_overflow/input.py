# pypto-verify IR (Form 3)
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.AIC)
    def main(out: pl.Out[pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)]]) -> pl.Tensor[[128, 128], pl.FP32]:
        mem_acc_1: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 65536)
        mem_acc_2: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 65536)
        mem_acc_3: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 65536)
        acc0: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_acc_1, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        acc1: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_acc_2, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        acc2: pl.Tile[[128, 128], pl.FP32, pl.MemRef(mem_acc_3, pl.const(0, pl.INT64), 65536), pl.Mem.Acc] = pl.tile.create([128, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        out: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)] = pl.tile.store(acc0, [0, 0], out)
        out: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)] = pl.tile.store(acc1, [0, 0], out)
        out: pl.Tensor[[128, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 65536)] = pl.tile.store(acc2, [0, 0], out)
        return out
