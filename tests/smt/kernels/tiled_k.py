"""Sources whose lowering the tests mutate: `tiled` has operands too large for L0, so the tiler builds
an inner K loop under the user's `kb` loop (`init_cond` becomes `(kb == 0) and (ko == 0)`); `piped` is
a stage-2 pipeline whose clones see `ko` and `ko + 128`; `dynamic` has a runtime trip count
(`n_blocks` read from `lens`), lowered to a main loop and a runtime remainder."""
import pypto.language as pl

ROWS, N, K, TK = 16, 128, 2048, 512
M2, N2, K2, TK2 = 16, 64, 512, 128


@pl.jit
def tiled(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tiled"):
        acc = pl.create_tensor([ROWS, N], dtype=pl.FP32)
        for kb in pl.range(K // TK):
            k0 = kb * TK
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + TK], w[k0 : k0 + TK, :], init_cond=(kb == 0))
        y[:, :] = acc
    return y


@pl.program
class Piped:
    @pl.function(type=pl.FunctionType.InCore)
    def piped(self, a: pl.Tensor[[M2, K2], pl.BF16], b: pl.Tensor[[K2, N2], pl.BF16],
              out: pl.Out[pl.Tensor[[M2, N2], pl.FP32]]) -> pl.Tensor[[M2, N2], pl.FP32]:
        c_init = pl.tile.create([M2, N2], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for ko, (c_iter,) in pl.pipeline(0, K2, TK2, init_values=(c_init,), stage=2):
            ta = pl.tile.load(a, [0, ko], [M2, TK2], target_memory=pl.Mem.Mat)
            tb = pl.tile.load(b, [ko, 0], [TK2, N2], target_memory=pl.Mem.Mat)
            c_new = pl.tile.matmul_acc(c_iter, ta, tb, init_cond=(ko == 0))
            c = pl.yield_(c_new)
        out = pl.tile.store(c, [0, 0], out)
        return out


@pl.jit
def dynamic(x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, 64], pl.BF16], lens: pl.Tensor[[4], pl.INT32],
            y: pl.Out[pl.Tensor[[4 * ROWS, 64], pl.FP32]]):
    for b in pl.parallel(4):
        n_blocks = pl.read(lens, [b])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="dynamic"):
            acc = pl.create_tensor([ROWS, 64], dtype=pl.FP32)
            for kb in pl.pipeline(n_blocks, stage=2):
                k0 = kb * 128
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + 128], w[k0 : k0 + 128, :], init_cond=(kb == 0))
            y[b * ROWS : b * ROWS + ROWS, :] = acc
    return y
