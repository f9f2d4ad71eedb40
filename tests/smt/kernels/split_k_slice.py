"""A split-K slice whose loop starts at a runtime `k_base`: `init_cond=(ko == 0)` leaves the first MAD
accumulating whenever `k_base != 0` (PV102); `init_cond=(ko == k_base)` is correct and proves."""
import pypto.language as pl

M, N, K, K_SLICE, TK = 16, 64, 4096, 512, 128


@pl.program
class SplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def slice_zero(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],
                   k_base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(k_base, k_base + K_SLICE, TK, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, TK], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [TK, N], target_memory=pl.Mem.Mat)
            c_new = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(ko == 0))  # expect: PV102
            c = pl.yield_(c_new)
        out = pl.tile.store(c, [0, 0], out, atomic=pl.AtomicType.Add)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def slice_base(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],
                   k_base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(k_base, k_base + K_SLICE, TK, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, TK], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [TK, N], target_memory=pl.Mem.Mat)
            c_new = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(ko == k_base))
            c = pl.yield_(c_new)
        out = pl.tile.store(c, [0, 0], out, atomic=pl.AtomicType.Add)
        return out
