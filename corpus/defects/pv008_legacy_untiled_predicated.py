"""Planted defect (legacy only): PV008, a predicated block the old pipeline does not tile (TARGET_FACTS.md,
"Observed on the pre-fix compiler": "a predicated tensor-level `matmul_acc` whose operands exceed L0 was
rejected for L0B capacity instead of being tiled (pypto-verify's fixed pipeline tiles it: the first K
block carries the predicate, the rest accumulate)").

Form 1: `init_cond=(k0 == 0)` on a [256, 512] INT8 weight block (128 KiB, L0B holds 64 KiB).
- legacy: PV008 on the `matmul_acc` (the Right operand does not fit L0B and the old AutoTileMatmulL0 does
  not split a predicated `matmul_acc`). PV008 is the tool's capacity rule for every space; here L0B.
- fixed: the block is split into L0 blocks, the first carrying `k0 == 0`; verifies (no finding).
"""

import pypto.language as pl

M, N, K = 16, 256, 2048
K_TILE = 512


@pl.jit
def pred_big_block_i8(
    x: pl.Tensor[[M, K], pl.INT8],
    w: pl.Tensor[[N, K], pl.INT8],
    y: pl.Out[pl.Tensor[[M, N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="pred_big_block_i8"):
        acc = pl.create_tensor([M, N], dtype=pl.INT32)
        for k0 in pl.pipeline(0, K, K_TILE, stage=2):
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[:, k0 : k0 + K_TILE], b_trans=True, init_cond=(k0 == 0))  # expect[legacy]: PV008
        y[:, :] = acc
    return y
