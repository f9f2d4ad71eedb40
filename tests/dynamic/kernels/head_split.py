"""Windows of an accumulator at run-time offsets: a projection accumulated over K is drained head by head and row
tile by row tile, each window `acc[r0 : r0 + ROW_TILE, h * HEAD : (h + 1) * HEAD]` one FIXPIPE store of a sub-view of
the one L0C buffer."""

import pypto.language as pl

M = 32
K = 256
N = 128
K_TILE = 128
HEADS = 2
HEAD = N // HEADS
ROW_TILE = 16


@pl.jit
def head_split(
    x: pl.Tensor[[M, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[HEADS * M, HEAD], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="head_split"):
        acc = pl.create_tensor([M, N], dtype=pl.FP32)
        for kb in pl.pipeline(K // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, :], init_cond=(kb == 0))
        for h in pl.range(HEADS):
            for r0 in pl.range(0, M, ROW_TILE):
                y[h * M + r0 : h * M + r0 + ROW_TILE, :] = acc[r0 : r0 + ROW_TILE, h * HEAD : h * HEAD + HEAD]
    return y
