"""Shape (B), post-if read (TARGET_FACTS.md "The defects"): the accumulator `acc` is read after an `if`
that seeds a phi from a fresh matmul. The pre-fix coalescing retargets the seed onto `acc`'s buffer,
so the post-if store of `acc` returns the seed's data on the iteration that takes the seed arm."""

import pypto.language as pl

M = 16
N = 64
K = 128
TK = 64


@pl.program
class PostIfRead:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        a: pl.Tensor[[M, K], pl.FP32],
        b: pl.Tensor[[K, N], pl.FP32],
        out_acc: pl.Out[pl.Tensor[[M, N], pl.FP32]],
        out_phi: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        c_init: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.create([M, N], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c_iter,) in pl.range(0, K // TK, 1, init_values=(c_init,)):
            ta: pl.Tile[[M, TK], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, kb * TK], [M, TK], target_memory=pl.Mem.Mat)
            tb: pl.Tile[[TK, N], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [kb * TK, 0], [TK, N], target_memory=pl.Mem.Mat)
            acc: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(kb == 0))
            if kb == 1:
                seed: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
                ph: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(seed)
            else:
                ph: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(acc)
            out_phi = pl.tile.store(ph, [0, 0], out_phi)
            out_acc = pl.tile.store(acc, [0, 0], out_acc)
            c: pl.Tile[[M, N], pl.FP32, pl.Mem.Acc] = pl.yield_(acc)
        return out_acc
