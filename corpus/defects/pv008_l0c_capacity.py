"""Planted defect: PV008 l0c-capacity with INT32 row padding (TARGET_FACTS.md, "Memory spaces": L0C is 128 KiB
on a2a3, and an INT32 accumulator's rows are padded to 32 there, so a logical [16, N] INT32 tile occupies
[32, N]; "Capacity checks use the padded (physical) size").

Form 1, W8A8 Q and K projections seeded in one `if`: two co-live INT32 [16, 768] accumulators. Logical
size 48 KiB each (96 KiB together, which would fit); padded 96 KiB each, 192 KiB together > 128 KiB.
Expected: PV008 on the second accumulator's `create_tensor` (where the co-live total first exceeds L0C),
in both pipelines. On a5 (256 KiB, no INT32 row padding) the same kernel fits.
"""

import pypto.language as pl

M, N, K = 16, 768, 512
K_TILE = 64


@pl.jit
def padded_pair_i8(
    x: pl.Tensor[[M, K], pl.INT8],
    wq: pl.Tensor[[N, K], pl.INT8],
    wk: pl.Tensor[[N, K], pl.INT8],
    q: pl.Out[pl.Tensor[[M, N], pl.INT32]],
    k: pl.Out[pl.Tensor[[M, N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="padded_pair_i8"):
        q_acc = pl.create_tensor([M, N], dtype=pl.INT32)
        k_acc = pl.create_tensor([M, N], dtype=pl.INT32)  # expect: PV008
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            if kb == 0:
                q_acc = pl.matmul(xa, wq[:, k0 : k0 + K_TILE], b_trans=True)
                k_acc = pl.matmul(xa, wk[:, k0 : k0 + K_TILE], b_trans=True)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wq[:, k0 : k0 + K_TILE], b_trans=True)
                k_acc = pl.matmul_acc(k_acc, xa, wk[:, k0 : k0 + K_TILE], b_trans=True)
        q[:, :] = q_acc
        k[:, :] = k_acc
    return q, k
