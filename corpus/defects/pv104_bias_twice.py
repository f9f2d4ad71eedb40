"""Planted defect: PV104 bias-once (L0C_RULES.md: "a biased chain adds the bias on exactly one iteration per
output tile").

Form 2: `tile.matmul_bias` has no init_cond, so a biased K loop seeds in a branch. The author meant "first
block of each 256-wide half" but the output tile is the whole K range: `if ko % 256 == 0` takes the biased
seed at ko = 0 and again at ko = 256, so the output tile gets the bias added twice (and the ko = 256 seed
restarts the sum). Expected: PV104 on the `matmul_bias`, and PV103 on it too: the ko = 256 seed throws
away the partial sums of ko = 0 and 128, never drained (a reset the source itself makes is a kernel bug,
not an excuse). Both pipelines. PV102 holds (ko = 0 seeds).
"""

import pypto.language as pl

M, N, K = 16, 64, 512
K_TILE = 128


@pl.program
class BiasTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def biased_halves(
        self,
        a: pl.Tensor[[M, K], pl.BF16],
        b: pl.Tensor[[K, N], pl.BF16],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, K, K_TILE, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            if ko % 256 == 0:
                seeded = pl.tile.matmul_bias(ta, tb, bias_t)  # expect: PV103, PV104
                ph = pl.yield_(seeded)
            else:
                summed = pl.tile.matmul_acc(c_iter, ta, tb)
                ph = pl.yield_(summed)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
