"""The projection of every output tile but the first, called by ``imported_sizes.shard_split_proj``: its
parameters are sized by ``shard_sizes.py`` too, so a shrunk ``N_OUT`` must reach it."""

import pypto.language as pl

from shard_sizes import COL_TILE, D_MODEL, N_OUT, TOKENS


@pl.jit.inline
def shard_rest(
    h: pl.Tensor[[TOKENS, D_MODEL], pl.BF16],
    proj: pl.Tensor[[D_MODEL, N_OUT], pl.BF16],
    out: pl.Tensor[[TOKENS, N_OUT], pl.FP32],
):
    for cb in pl.range(1, N_OUT // COL_TILE):
        c0 = cb * COL_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard_rest"):
            out[:, c0 : c0 + COL_TILE] = pl.matmul(h, proj[:, c0 : c0 + COL_TILE], out_dtype=pl.FP32)
    return out
