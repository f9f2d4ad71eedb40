"""Planted defect: shape B, the post-if read after coalescing (L0C_RULES.md, "The shapes every engine test
covers"; TARGET_FACTS.md, "Coalescing, unsound case 1" and "Observed on the pre-fix compiler").

Form 2, tile level. Two K blocks accumulate into `acc_1`; then, on the first row block (`r == 0`), a fresh
product `seed` starts a new chain and the phi `head` picks `seed` or `acc_1`. `acc_1` is still read after
the `if`, by its own name (stored to `partial`). As a value program this is valid.

- legacy: the accumulator if-phi coalescing moves `seed` onto `acc_1`'s buffer, checking liveness only to
  the end of the seed's arm. On the path through the then arm the store of `acc_1` reads the seed's data:
  PV004 on that store (the window of `acc_1` was overwritten by `seed` after `acc_1` was defined), and
  PV201 on `def main`: simulated, `partial` holds the third block's product instead of the two-block sum.
- fixed: no coalescing. `head` would need `seed` and `acc_1` on one window, but `acc_1` is live after the
  `if`, so `seed` cannot take its window, and no Acc->Acc copy can bring `acc_1` to the seed's: the
  lowering leaves the phi divergent, PV001 on the `if`. A kernel author fixes it by storing `partial` before the `if`.
"""

import pypto.language as pl

M, N, K = 16, 64, 192
K_TILE = 64


@pl.program
class PostIfRead:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16],  # expect[legacy]: PV201
             partial: pl.Out[pl.Tensor[[M, N], pl.FP32]],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        x_mat = pl.tile.load(x, [0, 0], [M, K], target_memory=pl.Mem.Mat)
        w_mat = pl.tile.load(w, [0, 0], [K, N], target_memory=pl.Mem.Mat)
        for r in pl.range(0, K_TILE, K_TILE):
            a_0 = pl.tile.extract(x_mat, 0, r, [M, K_TILE], target_memory=pl.Mem.Left)
            b_0 = pl.tile.extract(w_mat, r, 0, [K_TILE, N], target_memory=pl.Mem.Right)
            acc_0 = pl.tile.matmul(a_0, b_0)
            a_1 = pl.tile.extract(x_mat, 0, r + K_TILE, [M, K_TILE], target_memory=pl.Mem.Left)
            b_1 = pl.tile.extract(w_mat, r + K_TILE, 0, [K_TILE, N], target_memory=pl.Mem.Right)
            acc_1 = pl.tile.matmul_acc(acc_0, a_1, b_1)
            a_2 = pl.tile.extract(x_mat, 0, r + 2 * K_TILE, [M, K_TILE], target_memory=pl.Mem.Left)
            b_2 = pl.tile.extract(w_mat, r + 2 * K_TILE, 0, [K_TILE, N], target_memory=pl.Mem.Right)
            if r == 0:  # expect[fixed]: PV001
                seed = pl.tile.matmul(a_2, b_2)
                head = pl.yield_(seed)
            else:
                head = pl.yield_(acc_1)
            partial = pl.tile.store(acc_1, [0, 0], partial)  # expect[legacy]: PV004
            out = pl.tile.store(head, [0, 0], out)
        return out
