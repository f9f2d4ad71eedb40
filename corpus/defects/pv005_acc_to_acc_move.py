"""Planted defect: PV005 acc-to-acc-move (TARGET_FACTS.md, "Who may read L0C": there is no Acc->Acc copy on
any target; `tile.move` Acc->Acc and `pto.tmov` acc->acc are illegal).

Form 2: a kernel author copies the finished accumulator into a second L0C tile before storing it,
`c_copy = pl.tile.move(c, target_memory=pl.Mem.Acc)`. Expected: PV005 on that move, in both pipelines
(the lowering keeps the move: it is the author's, and L0C -> L0C has no instruction). Nothing else:
`c` is initialised by its matmul and drained only through the (illegal) copy.
"""

import pypto.language as pl

M, N, K = 16, 64, 128


@pl.program
class AccCopy:
    @pl.function(type=pl.FunctionType.InCore)
    def copy_then_store(
        self,
        a: pl.Tensor[[M, K], pl.BF16],
        b: pl.Tensor[[K, N], pl.BF16],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        a_mat = pl.tile.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat)
        b_mat = pl.tile.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat)
        a_l = pl.tile.move(a_mat, target_memory=pl.Mem.Left)
        b_r = pl.tile.move(b_mat, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(a_l, b_r)
        c_copy = pl.tile.move(c, target_memory=pl.Mem.Acc)  # expect: PV005
        out = pl.tile.store(c_copy, [0, 0], out)
        return out
