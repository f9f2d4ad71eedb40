"""Projections onto a vocabulary too large to simulate (2**21 columns: 302 million input elements), simulated
with ``VOCAB`` shrunk (issue 14 item 4).

``vocab_proj`` walks the vocabulary in whole ``V_TILE``-column tiles: ``VOCAB`` sets only the GM extents and
the loop's trip count, so the simulation runs it at two tiles. ``vocab_tail_proj`` has a vocabulary that is
not a multiple of the tile and stores its last ``TAIL`` columns at an offset computed from ``VOCAB_T``: at any
smaller value that window moves, so the lowering is not the verified one and the kernel is not shrunk.
``vocab_split_proj`` projects the first tile itself and calls ``_vocab_rest`` for the others: shrunk, its callee
is read at the shrunk ``VOCAB`` too.
"""

import pypto.language as pl

HIDDEN = 128
ROWS = 16
V_TILE = 64
VOCAB = 2**21
VOCAB_T = 2**21 + 32
TAIL = VOCAB_T % V_TILE
TAIL_START = VOCAB_T - TAIL


@pl.jit
def vocab_proj(
    x: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, VOCAB], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, VOCAB], pl.FP32]],
):
    for ob in pl.range(VOCAB // V_TILE):
        o0 = ob * V_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab"):
            y[:, o0 : o0 + V_TILE] = pl.matmul(x, w[:, o0 : o0 + V_TILE], out_dtype=pl.FP32)
    return y


@pl.jit
def vocab_tail_proj(
    x: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, VOCAB_T], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, VOCAB_T], pl.FP32]],
):
    for ob in pl.range(VOCAB_T // V_TILE):
        o0 = ob * V_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab_whole"):
            y[:, o0 : o0 + V_TILE] = pl.matmul(x, w[:, o0 : o0 + V_TILE], out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab_tail"):
        y[:, TAIL_START : TAIL_START + TAIL] = pl.matmul(x, w[:, TAIL_START : TAIL_START + TAIL], out_dtype=pl.FP32)
    return y


@pl.jit.inline
def _vocab_rest(
    x: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, VOCAB], pl.BF16],
    y: pl.Tensor[[ROWS, VOCAB], pl.FP32],
):
    for ob in pl.range(1, VOCAB // V_TILE):
        o0 = ob * V_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab_rest"):
            y[:, o0 : o0 + V_TILE] = pl.matmul(x, w[:, o0 : o0 + V_TILE], out_dtype=pl.FP32)
    return y


@pl.jit
def vocab_split_proj(
    x: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, VOCAB], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, VOCAB], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="vocab_first"):
        y[:, 0:V_TILE] = pl.matmul(x, w[:, 0:V_TILE], out_dtype=pl.FP32)
    y = _vocab_rest(x, w, y)
    return y
