"""Planted defect: shape A, the divergent tail phi the legacy pipeline cannot reconcile (L0C_RULES.md,
"The shapes every engine test covers"; TARGET_FACTS.md, "Observed on the pre-fix compiler": "a stage-2
user K loop with an odd trip count, two accumulators in one `if`, and operands large enough that each
arm's matmul is auto-tiled into an inner K loop").

Form 1, a valid kernel: three K blocks of 512 in a stage-2 pipeline, `if kb == 0` seeding a Q and a K
accumulator; each [96, 512] BF16 weight block is 96 KiB, more than L0B, so every matmul of both arms is
tiled into an inner K loop. After pipeline lowering the tail clone (kb = 2) is a live `if 2 == 0:` whose
seed arm starts an inner chain on a fresh L0C buffer while the else arm continues on the carry's.

- legacy: coalescing cannot retarget a seed that is an inner loop's result, and yield fixup would need
  an Acc->Acc move: the old compiler's internal "cannot reconcile divergent L0C accumulator buffers"
  error, PV001, on the `if` (it stops at the first accumulator, `q_acc`).
- fixed: the body is predicated and the literal tail folded; both chains stay on one window each, the
  kernel verifies and simulates to the reference (no finding).
"""

import pypto.language as pl

M, N, K = 16, 96, 1536
K_TILE = 512


@pl.jit
def qk_odd_blocks(
    x: pl.Tensor[[M, K], pl.BF16],
    wq: pl.Tensor[[N, K], pl.BF16],
    wk: pl.Tensor[[N, K], pl.BF16],
    q: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    k: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="qk_odd_blocks"):
        q_acc = pl.create_tensor([M, N], dtype=pl.FP32)
        k_acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wqb = wq[:, k0 : k0 + K_TILE]
            wkb = wk[:, k0 : k0 + K_TILE]
            if kb == 0:  # expect[legacy]: PV001
                q_acc = pl.matmul(xa, wqb, b_trans=True, out_dtype=pl.FP32)
                k_acc = pl.matmul(xa, wkb, b_trans=True, out_dtype=pl.FP32)
            else:
                q_acc = pl.matmul_acc(q_acc, xa, wqb, b_trans=True)
                k_acc = pl.matmul_acc(k_acc, xa, wkb, b_trans=True)
        q[:, :] = q_acc
        k[:, :] = k_acc
    return q, k
