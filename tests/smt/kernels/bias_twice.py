"""A biased chain whose bias arm is taken on two iterations (PV104 at kb = 1)."""
import pypto.language as pl

M, N, K, TK = 16, 64, 512, 128


@pl.program
class BiasTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def biased(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32], bias: pl.Tensor[[1, N], pl.FP32],
               out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(0, K // TK, 1, init_values=(c_init,)):
            ta = pl.tile.load(a, [0, kb * TK], [M, TK], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [kb * TK, 0], [TK, N], target_memory=pl.Mem.Mat)
            if kb < 2:
                seeded = pl.tile.matmul_bias(ta, tb, bias_t)  # expect: PV103, PV104
                ph = pl.yield_(seeded)
            else:
                summed = pl.tile.matmul_acc(c_iter, ta, tb)
                ph = pl.yield_(summed)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
