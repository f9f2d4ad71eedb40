"""Planted defect: a `break` (and a `continue`) in a K loop (L0C_RULES.md PV000: input the checker cannot model).

Form 1. `early_exit` leaves its K loop after the block at k0 = 256, so the blocks at k0 = 384 are never
accumulated; `skip_odd` skips every other block. The kernel language has no `break` / `continue`, and a
loop whose iterations do not follow its bounds cannot be proved: these were once skipped with a warning
(they name no accumulator) and the kernel came back verified. Expected: PV000 at the `break` and at the
`continue` (both pipelines), never a verified kernel.
"""

import pypto.language as pl

M, N, K = 16, 64, 512
K_TILE = 128


@pl.jit
def early_exit(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="early_exit"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for k0 in pl.range(0, K, K_TILE):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(k0 == 0))
            if k0 == 256:
                break  # expect: PV000
        y[:, :] = acc
    return y


@pl.jit
def skip_odd(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="skip_odd"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            if kb % 2 == 1:
                continue  # expect: PV000
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))
        y[:, :] = acc
    return y
