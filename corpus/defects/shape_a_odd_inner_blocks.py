"""Shape A variant: a valid kernel whose auto-tiled inner K loops have an odd block count.

Form 1: a user K loop over three blocks of 384 (`pl.range`), `if kb == 0` seeding one FP32 accumulator.
Each [384, 128] BF16 weight block is 96 KiB, more than L0B, so AutoTileMatmulL0 tiles the matmul of each
arm into an inner stage-2 K loop over three L0 blocks of 128: a main iteration plus a literal
straight-line remainder. The seed arm's inner chain starts on its own `tile.create`.

- legacy: the seed arm's value is an inner loop's result, which the old coalescing cannot retarget, and
  yield fixup would need an Acc->Acc move: the old compiler's "cannot reconcile divergent L0C
  accumulator buffers" error, PV001, on the `if` (real for the pre-fix compiler).
- fixed: must verify (TARGET_FACTS.md: "The fixed pipeline must lower such kernels"), so no expectation:
  the seed arm's inner chain is retargeted onto the carry's window (sound: the carry's old value is dead
  in that arm), and the kernel simulates to the reference's values.
"""

import pypto.language as pl

M, N = 16, 128
K_TILE = 384
KB = 3
K = KB * K_TILE


@pl.jit
def odd_inner_blocks(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="odd_inner_blocks"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.range(KB):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[k0 : k0 + K_TILE, :]
            if kb == 0:  # expect[legacy]: PV001
                acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
        y[:, :] = acc
    return y
