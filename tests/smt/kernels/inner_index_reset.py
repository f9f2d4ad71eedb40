"""As given (no source): an inner K loop whose predicate is its own index, inside the outer K loop that
carries the accumulator, re-initialises on every outer iteration before anything is stored (PV103 at
kb = 1, ko = 0). `drained_per_tile` stores each tile before the next one starts and proves."""
import pypto.language as pl

M, N, K, TK, TKO = 16, 64, 1024, 256, 128


@pl.program
class InnerIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def inner_reset(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],
                    out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_outer,) in pl.range(0, K // TK, 1, init_values=(c_init,)):
            for ko, (c_inner,) in pl.range(0, TK, TKO, init_values=(c_outer,)):
                ta = pl.tile.load(a, [0, kb * TK + ko], [M, TKO], target_memory=pl.Mem.Mat)
                tb = pl.tile.load(b, [kb * TK + ko, 0], [TKO, N], target_memory=pl.Mem.Mat)
                c_new = pl.tile.matmul_acc(c_inner, ta, tb, init_cond=(ko == 0))  # expect: PV103
                c_k = pl.yield_(c_new)
            c_kb = pl.yield_(c_k)
        out = pl.tile.store(c_kb, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def drained_per_tile(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, 4 * N], pl.BF16],
                         out: pl.Out[pl.Tensor[[M, 4 * N], pl.FP32]]) -> pl.Tensor[[M, 4 * N], pl.FP32]:
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for nb, (c_tile,) in pl.range(0, 4, 1, init_values=(c_init,)):
            for ko, (c_inner,) in pl.range(0, K, TK, init_values=(c_tile,)):
                ta = pl.tile.load(a, [0, ko], [M, TK], target_memory=pl.Mem.Mat)
                tb = pl.tile.load(b, [ko, nb * N], [TK, N], target_memory=pl.Mem.Mat)
                c_new = pl.tile.matmul_acc(c_inner, ta, tb, init_cond=(ko == 0))
                c_k = pl.yield_(c_new)
            out = pl.tile.store(c_k, [0, nb * N], out)
            c_nb = pl.yield_(c_k)
        return out
