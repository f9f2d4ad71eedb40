"""Planted defect: PV106 reduction-coverage, the K remainder: `K = 1000` is not a multiple of
`K_TILE = 256`, and the loop runs `K // K_TILE` = 3 blocks, so K [768, 1000) of `x` and `w` is never
accumulated (the classic floor-division tail). Form 1, PV106 on the `matmul_acc`, in both pipelines.
A loop that deliberately covers a sub-range by whole blocks (`corpus/edge_nonzero_start.py`) is not a
defect; a partial block left over is.
"""

import pypto.language as pl

M = 16
K = 1000
N = 128
K_TILE = 256


@pl.jit
def floor_blocks(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="floor_blocks"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(K // K_TILE):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))  # expect: PV106
        y[:, :] = acc
    return y
