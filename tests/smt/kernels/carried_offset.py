"""A K offset carried by the loop as a scalar (`k0 = 0` before it, `k0 = k0 + K_TILE` in it): the
frontend makes `k0` an iter_arg (init 0, yield `k0 + K_TILE`), valued `0 + kb * K_TILE` in iteration
`kb`. `carried` seeds on `k0 == 0` in an `if`, `carried_pred` in `init_cond` under a stage-2 pipeline,
`carried_runtime` advances by a runtime stride; `carried_wrong` seeds on `k0 == K_TILE`, so the first
MAD accumulates into an uninitialised accumulator (PV102 at kb = 0)."""
import pypto.language as pl

M, N, K, K_TILE = 16, 64, 512, 128


@pl.jit
def carried(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="carried"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k0 = 0
        for kb in pl.range(4):
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
            k0 = k0 + K_TILE
        y[:, :] = acc
    return y


@pl.jit
def carried_pred(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="carried_pred"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k0 = 0
        for kb in pl.pipeline(4, stage=2):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(k0 == 0))
            k0 = k0 + K_TILE
        y[:, :] = acc
    return y


@pl.jit
def carried_runtime(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], strides: pl.Tensor[[1], pl.INT32],
                    y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="carried_runtime"):
        stride = pl.read(strides, [0])
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k0 = 0
        for kb in pl.range(4):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(k0 == 0))
            k0 = k0 + stride
        y[:, :] = acc
    return y


@pl.jit
def carried_wrong(x: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="carried_wrong"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k0 = 0
        for kb in pl.range(4):
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if k0 == K_TILE:
                acc = pl.matmul(xa, wb)  # expect: PV103
            else:
                acc = pl.matmul_acc(acc, xa, wb)  # expect: PV102
            k0 = k0 + K_TILE
        y[:, :] = acc
    return y
