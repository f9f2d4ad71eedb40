"""Biased K reductions at tile level (``pl.tile.matmul_bias`` has no ``init_cond``).

``bias_if_range`` seeds with ``matmul_bias`` under ``if kb == 0`` in a ``pl.range``
loop; ``bias_if_pipeline_odd`` is the same body software-pipelined over an odd
number of blocks (three), so one block runs as the pipeline's remainder;
``bias_peeled`` adds the bias in a peeled first block and accumulates from block 1.
The bias row is FP32 in the bias table.
"""

import pypto.language as pl

M = 16
N = 64
K = 512
K_ODD = 384
K_TILE = 128


@pl.program
class TileMatmulBias:
    @pl.function(type=pl.FunctionType.InCore)
    def bias_if_range(
        self,
        a: pl.Tensor[[M, K], pl.FP32],
        b: pl.Tensor[[K, N], pl.FP32],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(0, K // K_TILE, 1, init_values=(c_init,)):
            ta = pl.tile.load(a, [0, kb * K_TILE], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [kb * K_TILE, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            if kb == 0:
                seeded = pl.tile.matmul_bias(ta, tb, bias_t)
                ph = pl.yield_(seeded)
            else:
                summed = pl.tile.matmul_acc(c_iter, ta, tb)
                ph = pl.yield_(summed)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def bias_if_pipeline_odd(
        self,
        a: pl.Tensor[[M, K_ODD], pl.BF16],
        b: pl.Tensor[[K_ODD, N], pl.BF16],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        c_init = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, K_ODD, K_TILE, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            if ko == 0:
                seeded = pl.tile.matmul_bias(ta, tb, bias_t)
                ph = pl.yield_(seeded)
            else:
                summed = pl.tile.matmul_acc(c_iter, ta, tb)
                ph = pl.yield_(summed)
            c = pl.yield_(ph)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def bias_peeled(
        self,
        a: pl.Tensor[[M, K], pl.FP32],
        b: pl.Tensor[[K, N], pl.FP32],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        ta0 = pl.tile.load(a, [0, 0], [M, K_TILE], target_memory=pl.Mem.Mat)
        tb0 = pl.tile.load(b, [0, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
        c0 = pl.tile.matmul_bias(ta0, tb0, bias_t)
        for kb, (c_iter,) in pl.range(1, K // K_TILE, 1, init_values=(c0,)):
            ta = pl.tile.load(a, [0, kb * K_TILE], [M, K_TILE], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [kb * K_TILE, 0], [K_TILE, N], target_memory=pl.Mem.Mat)
            summed = pl.tile.matmul_acc(c_iter, ta, tb)
            c = pl.yield_(summed)
        out = pl.tile.store(c, [0, 0], out)
        return out
