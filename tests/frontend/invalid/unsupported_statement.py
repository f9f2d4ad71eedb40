# Statements outside the kernel language that touch an accumulator: one PV000 each, for that kernel
# alone; `fine` still parses (its `assert` has no effect and is accepted).
import pypto.language as pl

M, K, N, TK = 16, 512, 64, 128


@pl.jit
def while_loop(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="while_loop"):
        acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
        k0 = TK
        while k0 < K:
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + TK], w[k0 : k0 + TK, :])
            k0 = k0 + TK
        y[:, :] = acc
    return y


@pl.jit
def try_block(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="try_block"):
        try:
            acc = pl.matmul(x, w, out_dtype=pl.FP32)
        except ValueError:
            acc = pl.create_tensor([M, N], dtype=pl.FP32)
        y[:, :] = acc
    return y


@pl.jit
def global_acc(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    global acc
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="global_acc"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y[:, :] = acc
    return y


@pl.jit
def lambda_acc(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="lambda_acc"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y[:, :] = pl.reshape(acc, [M, N], key=lambda t: acc)
    return y


@pl.jit
def listcomp_acc(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="listcomp_acc"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        parts = [pl.matmul(x[:, k : k + TK], w[k : k + TK, :], out_dtype=pl.FP32) for k in range(0, K, TK)]
        y[:, :] = parts
    return y


@pl.jit
def fine(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    assert K % TK == 0
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="fine"):
        acc = pl.matmul(x, w, out_dtype=pl.FP32)
        y[:, :] = acc
    return y

# Expected diagnostics (asserted by tests/frontend/test_frontend_invalid.py), one per line:
# expect: 13:9 `while` loop inside kernel `while_loop`; not in the kernel language, and it touches the accumulator `acc`
# expect: 23:9 `try` statement inside kernel `try_block`; not in the kernel language, and it touches the accumulator `acc`
# expect: 33:5 `global` statement inside kernel `global_acc`; not in the kernel language, and it touches the accumulator `acc`
# expect: 44:47 `lambda` inside kernel `lambda_acc`; not in the kernel language, and it touches the accumulator `acc`
# expect: 52:17 list comprehension inside kernel `listcomp_acc`; not in the kernel language, and it touches a `pl.matmul`
# expect-functions: fine
