"""Planted defect: PV011 unused-bias (L0C_RULES.md: "a tile written to the bias table is added to an
accumulator").

Form 2. The bias table's one reader is `tile.matmul_bias`, which starts the accumulator from the bias row.
`peeled_seed_unbiased` is the peeled biased K loop of `corpus/edge_tile_matmul_bias.py` with its seed
written `tile.matmul` (found by `benchmarks/fuzz.py`, mutant #2427 of the recorded run: `fresh_to_acc` then
`acc_to_fresh` on the seed): the chain is a well-formed plain matmul, so no other rule objects, and the
kernel stores A @ B where its author loaded the bias for A @ B + bias. `if_seed_unbiased` seeds in an `if`
whose seed arm also forgot the bias. Expected: PV011 on each bias load (both pipelines); nothing else.
"""

import pypto.language as pl

M, N, K = 16, 64, 512
K_TILE = 128


@pl.program
class BiasNeverAdded:
    @pl.function(type=pl.FunctionType.InCore)
    def peeled_seed_unbiased(
        self,
        a: pl.Tensor[[M, K], pl.FP32],
        b: pl.Tensor[[K, N], pl.FP32],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)  # expect: PV011
        ta0 = pl.tile.load(a, [0, 0], [M, K_TILE], target_memory=pl.Mem.Mat)
        tb0 = pl.tile.load(b, [0, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
        c0 = pl.tile.matmul(ta0, tb0)
        for kb, (c_iter,) in pl.range(1, K // K_TILE, 1, init_values=(c0,)):
            ta = pl.tile.load(a, [0, kb * K_TILE], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [kb * K_TILE, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            summed = pl.tile.matmul_acc(c_iter, ta, tb)
            c = pl.yield_(summed)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def if_seed_unbiased(
        self,
        a: pl.Tensor[[M, K], pl.BF16],
        b: pl.Tensor[[K, N], pl.BF16],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)  # expect: PV011
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, K, K_TILE, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            if ko == 0:
                seeded = pl.tile.matmul(ta, tb)
                ph = pl.yield_(seeded)
            else:
                summed = pl.tile.matmul_acc(c_iter, ta, tb)
                ph = pl.yield_(summed)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out
