"""Accumulators carried through an enclosing loop.

``chunked_k``: the reduction is split into an outer chunk loop and an inner pipelined
block loop; the seed test is on the global offset, so only the very first block seeds
and the chain runs across all chunks. ``tile_sweep``: one accumulator name is reused
for consecutive output tiles; each tile is stored before the next one is seeded.
"""

import pypto.language as pl

ROWS = 16
K = 4096
K_TILE = 256
CHUNKS = 4
BLOCKS_PER_CHUNK = K // (K_TILE * CHUNKS)
N = 256
SWEEP_N = 512
SWEEP_TILE = 64
SWEEP_K = 1024


@pl.jit
def chunked_k(
    x: pl.Tensor[[ROWS, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="chunked_k"):
        acc = pl.create_tensor([ROWS, N], dtype=pl.FP32)
        for kc in pl.range(CHUNKS):
            for kb in pl.pipeline(BLOCKS_PER_CHUNK, stage=2):
                k0 = (kc * BLOCKS_PER_CHUNK + kb) * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[:, k0 : k0 + K_TILE]
                if k0 == 0:
                    acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
        y[:, :] = acc
    return y


@pl.jit
def tile_sweep(
    x: pl.Tensor[[ROWS, SWEEP_K], pl.FP32],
    w: pl.Tensor[[SWEEP_K, SWEEP_N], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, SWEEP_N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile_sweep"):
        acc = pl.create_tensor([ROWS, SWEEP_TILE], dtype=pl.FP32)
        for nb in pl.range(SWEEP_N // SWEEP_TILE):
            n0 = nb * SWEEP_TILE
            for kb in pl.pipeline(SWEEP_K // K_TILE, stage=2):
                k0 = kb * K_TILE
                xa = x[:, k0 : k0 + K_TILE]
                wb = w[k0 : k0 + K_TILE, n0 : n0 + SWEEP_TILE]
                if kb == 0:
                    acc = pl.matmul(xa, wb)
                else:
                    acc = pl.matmul_acc(acc, xa, wb)
            y[:, n0 : n0 + SWEEP_TILE] = acc
    return y
