"""`init_cond=(ko == 1)` on a loop whose first `ko` is 0: the first MAD accumulates (PV102 at ko = 0)."""
import pypto.language as pl

M, N, K, TK = 16, 64, 512, 128


@pl.program
class OffByOne:
    @pl.function(type=pl.FunctionType.InCore)
    def gemm(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, K, TK, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, TK], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [TK, N], target_memory=pl.Mem.Mat)
            c_new = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(ko == 1))  # expect: PV102
            c = pl.yield_(c_new)
        out = pl.tile.store(c, [0, 0], out)
        return out
