"""Form 1 matmuls with no user K loop, which the lowering auto-tiles into one: `y[:, :] = pl.matmul(...)`
is one MAD over the whole K range (the call is an operand of the assemble), and the lowered chain is
the tiled loop whose first block resets (fixed: `init_cond=(ko == 0)`; legacy: `if ko == 0: matmul
else: matmul_acc`). `plain` has K = 384 (a main loop and a literal tail clone), `plain512` K = 512;
`acc_blocks` is the predicated form whose 384-wide blocks are tiled again under the user's `kb`,
`acc_once` a `matmul_acc` with `init_cond=True` as the operand of the assemble."""
import pypto.language as pl

M, N = 16, 128


@pl.jit
def plain(x: pl.Tensor[[M, 384], pl.BF16], w: pl.Tensor[[384, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="plain"):
        y[:, :] = pl.matmul(x[0:16, 0:384], w[0:384, 0:128])
    return y


@pl.jit
def plain512(x: pl.Tensor[[M, 512], pl.BF16], w: pl.Tensor[[512, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="plain512"):
        y[:, :] = pl.matmul(x[0:16, 0:512], w[0:512, 0:128])
    return y


@pl.jit
def acc_blocks(x: pl.Tensor[[M, 768], pl.BF16], w: pl.Tensor[[768, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="acc_blocks"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(2):
            k0 = kb * 384
            acc = pl.matmul_acc(acc, x[0:16, k0 : k0 + 384], w[k0 : k0 + 384, 0:128], init_cond=(kb == 0))
        y[:, :] = acc
    return y


@pl.jit
def acc_once(x: pl.Tensor[[M, 384], pl.BF16], w: pl.Tensor[[384, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="acc_once"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        y[:, :] = pl.matmul_acc(acc, x[0:16, 0:384], w[0:384, 0:128], init_cond=True)
    return y
