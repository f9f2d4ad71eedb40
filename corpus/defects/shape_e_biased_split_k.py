"""Shape E, clean: the biased K split in a stage-2 pipeline with an odd block count (L0C_RULES.md, "The
shapes every engine test covers"; TARGET_FACTS.md, "Reviewer's regression").

`tile.matmul_bias` has no init_cond, so a biased K loop keeps the `if ko == 0: matmul_bias / else:
matmul_acc` branch; with an odd block count the pipeline's literal tail clone is an Acc phi. Once the
legacy coalescing is gone, such a kernel must still lower to one valid L0C buffer, with the bias added on
exactly one block.

- `auto_split`: one [16, 1280] x [1280, 64] BF16 `matmul_bias`; the right operand (160 KiB) exceeds L0B, so
  AutoTileMatmulL0 splits K into five blocks of 256. The fixed tiler peels the first block
  (`matmul_bias`) and accumulates the other four in a uniform `matmul_acc` loop.
- `user_split_odd`: the user-written branch over five blocks of 64 in `pl.pipeline(..., stage=2)`.

No expectation: this file must give no finding (error or warning) in either pipeline.
"""

import pypto.language as pl

M, N = 16, 64
K_BIG = 1280
K_ODD = 320
K_TILE = 64


@pl.program
class BiasedSplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def auto_split(
        self,
        a: pl.Tensor[[M, K_BIG], pl.BF16],
        b: pl.Tensor[[K_BIG, N], pl.BF16],
        bias: pl.Tensor[[1, N], pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [M, K_BIG], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [K_BIG, N], target_memory=pl.Mem.Mat)
        bias_t = pl.tile.load(bias, [0, 0], [1, N], target_memory=pl.Mem.Bias)
        c = pl.tile.matmul_bias(a_mat, b_mat, bias_t)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def user_split_odd(
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
