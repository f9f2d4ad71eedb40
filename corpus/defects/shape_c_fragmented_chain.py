"""Planted defect: shape C, the fragmented unrolled chain (L0C_RULES.md, "The shapes every engine test
covers"; TARGET_FACTS.md, "Coalescing, unsound case 2" and "Observed on the pre-fix compiler").

Form 2, a valid tile-level program: `pl.pipeline(0, 192, 64, stage=4)` with the `if ko == 0: matmul /
else: matmul_acc(c_iter)` body. Three blocks and stage 4 leave no main loop, only three literal tail
clones (ko = 0, 64, 128). The legacy pipeline's accumulator if-phi coalescing resolves each clone's phi
against pre-coalesce buffers, so the chain lands on one L0C allocation per block: clone 2's and clone
3's `matmul_acc` each accumulate into a window their (moved) input is not on and that nothing
initialised. The fixed pipeline predicates the body (`init_cond=(ko == 0)`), folds the literal clones
and keeps the whole chain on one window: no finding.

Expected, legacy only (each checked against the rule's definition):
- PV009 on `c_init`: one chain (c_init -> phi -> matmul_acc -> phi -> ...) spans three Acc windows.
- PV003 twice on the `matmul_acc` line: clones 2 and 3 write a window other than their acc input's.
- PV007 twice on the same line: those two MADs accumulate into windows no path initialised.
- PV201 on `def main`: the emitted PTO, simulated, reads undefined L0C at the drain (the simulator's
  poison value) where the reference has the product: the silent wrong result of the pre-fix compiler.
"""

import pypto.language as pl

M, N, K = 16, 64, 192
K_TILE = 64


@pl.program
class FragmentedChain:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],  # expect[legacy]: PV201
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        a_mat: pl.Tile[[M, K], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
        b_mat: pl.Tile[[K, N], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat)
        c_init: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)  # expect[legacy]: PV009
        for ko, (c_iter,) in pl.pipeline(0, K, K_TILE, init_values=(c_init,), stage=4):
            sa: pl.Tile[[M, K_TILE], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [M, K_TILE], target_memory=pl.Mem.Left)
            sb: pl.Tile[[K_TILE, N], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [K_TILE, N], target_memory=pl.Mem.Right)
            if ko == 0:
                c_first: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(sa, sb)
                c_phi: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(c_first)
            else:
                c_acc: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb)  # expect[legacy]: PV003 PV003 PV007 PV007
                c_phi: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(c_acc)
            c: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(c_phi)
        out = pl.tile.store(c, [0, 0], out)
        return out
