"""Two accumulators carried by one K loop whose final `pl.yield_` reuses the names of the MADs that seed
them (issue 13): `acc0, acc1 = pl.yield_(next0, next1)` names the loop's results, as in PyPTO, so the stores
after the loop drain the accumulated sums, and each chain is carried in its own iter_arg. `dual_seeded`
proves; its twin `dual_seeded_skips` reads the second weight one K block behind (PV106)."""
import pypto.language as pl

M, N, K, TK = 16, 128, 512, 64


@pl.jit
def dual_seeded(a: pl.Tensor[[M, K], pl.BF16], w0: pl.Tensor[[K, N], pl.BF16], w1: pl.Tensor[[K, N], pl.BF16],
                out: pl.Out[pl.Tensor[[M, 2 * N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="dual_seeded"):
        a_mat_0 = pl.tile.load(a, [0, 0], [M, TK], target_memory=pl.MemorySpace.Mat)
        a_left_0 = pl.move(a_mat_0, target_memory=pl.MemorySpace.Left)
        w0_mat_0 = pl.tile.load(w0, [0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
        w0_right_0 = pl.move(w0_mat_0, target_memory=pl.MemorySpace.Right)
        w1_mat_0 = pl.tile.load(w1, [0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
        w1_right_0 = pl.move(w1_mat_0, target_memory=pl.MemorySpace.Right)
        acc0 = pl.tile.matmul(a_left_0, w0_right_0)
        acc1 = pl.tile.matmul(a_left_0, w1_right_0)
        for k0, (acc0_iter, acc1_iter) in pl.pipeline(TK, K, TK, stage=2, init_values=(acc0, acc1)):
            a_mat = pl.tile.load(a, [0, k0], [M, TK], target_memory=pl.MemorySpace.Mat)
            a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)
            w0_mat = pl.tile.load(w0, [k0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
            w0_right = pl.move(w0_mat, target_memory=pl.MemorySpace.Right)
            next0 = pl.tile.matmul_acc(acc0_iter, a_left, w0_right)
            w1_mat = pl.tile.load(w1, [k0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
            w1_right = pl.move(w1_mat, target_memory=pl.MemorySpace.Right)
            next1 = pl.tile.matmul_acc(acc1_iter, a_left, w1_right)
            acc0, acc1 = pl.yield_(next0, next1)
        out = pl.tile.store(acc0, [0, 0], out)
        out = pl.tile.store(acc1, [0, N], out)
    return out


@pl.jit
def dual_seeded_skips(a: pl.Tensor[[M, K], pl.BF16], w0: pl.Tensor[[K, N], pl.BF16], w1: pl.Tensor[[K, N], pl.BF16],
                      out: pl.Out[pl.Tensor[[M, 2 * N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="dual_seeded_skips"):
        a_mat_0 = pl.tile.load(a, [0, 0], [M, TK], target_memory=pl.MemorySpace.Mat)
        a_left_0 = pl.move(a_mat_0, target_memory=pl.MemorySpace.Left)
        w0_mat_0 = pl.tile.load(w0, [0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
        w0_right_0 = pl.move(w0_mat_0, target_memory=pl.MemorySpace.Right)
        w1_mat_0 = pl.tile.load(w1, [0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
        w1_right_0 = pl.move(w1_mat_0, target_memory=pl.MemorySpace.Right)
        acc0 = pl.tile.matmul(a_left_0, w0_right_0)
        acc1 = pl.tile.matmul(a_left_0, w1_right_0)
        for k0, (acc0_iter, acc1_iter) in pl.pipeline(TK, K, TK, stage=2, init_values=(acc0, acc1)):
            a_mat = pl.tile.load(a, [0, k0], [M, TK], target_memory=pl.MemorySpace.Mat)
            a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)
            w0_mat = pl.tile.load(w0, [k0, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
            w0_right = pl.move(w0_mat, target_memory=pl.MemorySpace.Right)
            next0 = pl.tile.matmul_acc(acc0_iter, a_left, w0_right)
            w1_mat = pl.tile.load(w1, [k0 - TK, 0], [TK, N], target_memory=pl.MemorySpace.Mat)
            w1_right = pl.move(w1_mat, target_memory=pl.MemorySpace.Right)
            next1 = pl.tile.matmul_acc(acc1_iter, a_left, w1_right)  # expect: PV106
            acc0, acc1 = pl.yield_(next0, next1)
        out = pl.tile.store(acc0, [0, 0], out)
        out = pl.tile.store(acc1, [0, N], out)
    return out
