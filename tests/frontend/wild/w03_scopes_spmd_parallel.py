"""Wild construct: `with pl.at(level=..., name_hint=...)`, `for i in pl.spmd(n, name_hint=...)`,
`with pl.spmd(...) as tid` and `pl.parallel(n)`; task ids passed on through `deps=`."""

import pypto.language as pl

T = 16
D = 2048
N_OUT = 512
N_TILE = 128
K_TILE = 256
BLOCKS = N_OUT // N_TILE


@pl.jit
def spmd_proj(x: pl.Tensor[[T, D], pl.BF16], w: pl.Tensor[[D, N_OUT], pl.BF16], y: pl.Out[pl.Tensor[[T, N_OUT], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="zero") as zero_tid:
        y = pl.assemble(y, pl.full([T, N_OUT], dtype=pl.FP32, value=0.0), [0, 0])
    with pl.spmd(BLOCKS, name_hint="proj", deps=[zero_tid]) as proj_tid:
        blk = pl.tile.get_block_idx()
        n0 = blk * N_TILE
        acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, n0 : n0 + N_TILE], out_dtype=pl.FP32)
        for kb in pl.pipeline(1, D // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, n0 : n0 + N_TILE])
        y = pl.assemble(y, acc, [0, n0], atomic=pl.AtomicType.Add)
    for nb in pl.spmd(BLOCKS, name_hint="scale", deps=[proj_tid]):
        y[:, nb * N_TILE : nb * N_TILE + N_TILE] = pl.mul(y[:, nb * N_TILE : nb * N_TILE + N_TILE], 2.0)
    for r in pl.parallel(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="touch"):
            y[r * 4 : r * 4 + 4, :] = pl.add(y[r * 4 : r * 4 + 4, :], 1.0)
    return y
