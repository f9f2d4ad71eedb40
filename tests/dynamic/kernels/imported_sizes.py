"""Output projections whose sizes come from another module (``shard_sizes.py``), too large to simulate
(issue 14 item 4): a size constant the file imports is shrunk in the module that assigns it.

``shard_proj`` writes its output in whole ``COL_TILE``-column tiles: ``N_OUT`` sets only the GM extents and
the loop's trip count, so it is simulated at two tiles with ``N_OUT`` rewritten in ``shard_sizes.py``.
``shard_edge_proj`` writes its last ``EDGE`` columns at ``EDGE_START``, computed here from the imported
``N_OUT_ODD``: at a smaller value that window moves, so the source is not the verified one and it is not shrunk.
``shard_split_proj`` writes the first tile itself and calls ``shard_rest`` (of ``shard_rest.py``, sized by
``shard_sizes.py`` too) for the others: shrunk, its callee is read at the shrunk ``N_OUT``.
"""

import pypto.language as pl

from shard_rest import shard_rest
from shard_sizes import COL_TILE, D_MODEL, N_OUT, N_OUT_ODD, TOKENS

EDGE = N_OUT_ODD % COL_TILE
EDGE_START = N_OUT_ODD - EDGE


@pl.jit
def shard_proj(
    h: pl.Tensor[[TOKENS, D_MODEL], pl.BF16],
    proj: pl.Tensor[[D_MODEL, N_OUT], pl.BF16],
    out: pl.Out[pl.Tensor[[TOKENS, N_OUT], pl.FP32]],
):
    for cb in pl.range(N_OUT // COL_TILE):
        c0 = cb * COL_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard"):
            out[:, c0 : c0 + COL_TILE] = pl.matmul(h, proj[:, c0 : c0 + COL_TILE], out_dtype=pl.FP32)
    return out


@pl.jit
def shard_edge_proj(
    h: pl.Tensor[[TOKENS, D_MODEL], pl.BF16],
    proj: pl.Tensor[[D_MODEL, N_OUT_ODD], pl.BF16],
    out: pl.Out[pl.Tensor[[TOKENS, N_OUT_ODD], pl.FP32]],
):
    for cb in pl.range(N_OUT_ODD // COL_TILE):
        c0 = cb * COL_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard_whole"):
            out[:, c0 : c0 + COL_TILE] = pl.matmul(h, proj[:, c0 : c0 + COL_TILE], out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard_edge"):
        out[:, EDGE_START : EDGE_START + EDGE] = pl.matmul(
            h, proj[:, EDGE_START : EDGE_START + EDGE], out_dtype=pl.FP32
        )
    return out


@pl.jit
def shard_split_proj(
    h: pl.Tensor[[TOKENS, D_MODEL], pl.BF16],
    proj: pl.Tensor[[D_MODEL, N_OUT], pl.BF16],
    out: pl.Out[pl.Tensor[[TOKENS, N_OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shard_first"):
        out[:, 0:COL_TILE] = pl.matmul(h, proj[:, 0:COL_TILE], out_dtype=pl.FP32)
    out = shard_rest(h, proj, out)
    return out
