"""K loops that do not start at zero: the seed test compares with the start value.

``tail_segment_proj`` projects only the tail feature segment ``[K_START, K_STOP)`` of a
concatenated input (constant bounds). ``packed_segment_proj`` reads each sequence's
segment start from ``seg_starts`` at run time (``0 <= start <= TOTAL_BLOCKS -
SEG_BLOCKS``) and reduces exactly ``SEG_BLOCKS`` blocks from there.
``tail_segment_pred`` is the predicated form with ``init_cond=(kb == K_START)``.
"""

import pypto.language as pl

ROWS = 16
FEATS = 4096
OUT = 256
K_TILE = 256
TOTAL_BLOCKS = FEATS // K_TILE
K_START = 4
K_STOP = 12
SEQS = 4
SEG_BLOCKS = 6
PACK_OUT = 64


@pl.jit
def tail_segment_proj(
    x: pl.Tensor[[ROWS, FEATS], pl.BF16],
    w: pl.Tensor[[OUT, FEATS], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_segment"):
        acc = pl.create_tensor([ROWS, OUT], dtype=pl.FP32)
        for kb in pl.pipeline(K_START, K_STOP, stage=2):
            k0 = kb * K_TILE
            xa = x[:, k0 : k0 + K_TILE]
            wb = w[:, k0 : k0 + K_TILE]
            if kb == K_START:
                acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
            else:
                acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y


@pl.jit
def packed_segment_proj(
    x: pl.Tensor[[SEQS * ROWS, FEATS], pl.BF16],
    w: pl.Tensor[[FEATS, PACK_OUT], pl.BF16],
    seg_starts: pl.Tensor[[SEQS], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQS * ROWS, PACK_OUT], pl.FP32]],
):
    for s in pl.parallel(SEQS):
        k_start = pl.read(seg_starts, [s])
        k_stop = k_start + SEG_BLOCKS
        r0 = s * ROWS
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="packed_segment"):
            acc = pl.create_tensor([ROWS, PACK_OUT], dtype=pl.FP32)
            for kb in pl.pipeline(k_start, k_stop, stage=2):
                k0 = kb * K_TILE
                xa = x[r0 : r0 + ROWS, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, :]
                if kb == k_start:
                    acc = pl.matmul(xa, wb, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[r0 : r0 + ROWS, :] = acc
    return y


@pl.jit
def tail_segment_pred(
    x: pl.Tensor[[ROWS, FEATS], pl.BF16],
    w: pl.Tensor[[OUT, FEATS], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_segment_pred"):
        acc = pl.create_tensor([ROWS, OUT], dtype=pl.FP32)
        for kb in pl.pipeline(K_START, K_STOP, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[:, k0 : k0 + K_TILE], b_trans=True, init_cond=(kb == K_START))
        y[:, :] = acc
    return y
