"""Planted defect: PV103 no-lost-partial-sums (L0C_RULES.md: "no re-initialisation discards accumulated
values that were never drained ... in the source and in the lowering alike").

Form 1, three peeled K loops whose seed condition is wrong, each the way an author gets it wrong:
`every_other_block` seeds on `kb % 2 == 0` (the sum restarts at kb = 2), `always_seeds` on `kb >= 0`
(every block restarts it), and `acc_arm_fresh` writes `pl.matmul` in the accumulate arm too. Nothing is
stored between the blocks, so each reset throws away the partial sums of the blocks before it: PV103 on the
MAD that resets, in both pipelines. The lowering mirrors the source faithfully (PV101 and PV105 hold):
the defect is the kernel's, and PV103 says so.
"""

import pypto.language as pl

M = 16
K = 1024
N = 128
K_TILE = 256


@pl.jit
def every_other_block(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="every_other_block"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            if kb % 2 == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)  # expect: PV103
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y


@pl.jit
def always_seeds(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="always_seeds"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            if kb >= 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)  # expect: PV103
            else:
                acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :])
        y[:, :] = acc
    return y


@pl.jit
def acc_arm_fresh(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="acc_arm_fresh"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            if kb == 0:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)
            else:
                acc = pl.matmul(x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], out_dtype=pl.FP32)  # expect: PV103
        y[:, :] = acc
    return y
