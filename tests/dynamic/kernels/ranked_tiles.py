"""Tiles of rank 3 (PyPTO's FlattenTileNdTo2D: a Vec tile `[4, 1, W]` is the 2-D tile `[4, W]`, loaded from and
stored into windows of the tensors' own rank). ``lane_copy`` copies a band of tokens of one lane of a
`[TOKENS, LANES, WIDTH]` tensor per block, each into the next lane, as the MoE tail of a prefill layer stages
its input (`x_moe_ready[t0 : t0 + 4, lane : lane + 1, :] = pl.slice(x, [4, 1, W], [t0, lane, 0])`);
``block_swap`` moves `[2, 3, W]` blocks, whose leading axes do not merge into evenly spaced rows, between the two
halves of a plane; ``stacked_lanes`` does the same through a 4-D tensor; ``lane_scale`` reshapes a band of one lane
to 2-D and scales it, as the sparse attention of a prefill reshapes its rope rows (`tile.reshape`: a view of the
band's bytes); ``head_rows`` copies the first `counts[lane]` tokens of each lane, a valid shape read at run time
(`valid_shape=[n, 1, W]`: the window's leading extent and the tile's valid rows)."""

import pypto.language as pl

TOKENS = 8
LANES = 4
WIDTH = 64
BAND = 4
PLANES = 4
ROWS = 6
HALF_ROWS = ROWS // 2
PAIR = 2


@pl.jit
def lane_copy(
    x: pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32]],
):
    with pl.spmd((TOKENS // BAND) * LANES, name_hint="lane_copy"):
        block = pl.tile.get_block_idx()
        t0 = (block // LANES) * BAND
        lane = block % LANES
        to = (lane + 1) % LANES
        y[t0 : t0 + BAND, to : to + 1, 0:WIDTH] = pl.slice(x, [BAND, 1, WIDTH], [t0, lane, 0])
    return y


@pl.jit
def block_swap(
    x: pl.Tensor[[PLANES, ROWS, WIDTH], pl.BF16],
    y: pl.Out[pl.Tensor[[PLANES, ROWS, WIDTH], pl.BF16]],
):
    with pl.spmd((PLANES // PAIR) * 2, name_hint="block_swap"):
        block = pl.tile.get_block_idx()
        p0 = (block // 2) * PAIR
        r0 = (block % 2) * HALF_ROWS
        other = HALF_ROWS - r0
        y[p0 : p0 + PAIR, other : other + HALF_ROWS, :] = pl.slice(x, [PAIR, HALF_ROWS, WIDTH], [p0, r0, 0])
    return y


@pl.jit
def stacked_lanes(
    x: pl.Tensor[[PAIR, TOKENS, LANES, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[PAIR, TOKENS, LANES, WIDTH], pl.FP32]],
):
    with pl.spmd(LANES, name_hint="stacked_lanes"):
        lane = pl.tile.get_block_idx()
        back = LANES - 1 - lane
        y[:, 0:TOKENS, back : back + 1, :] = pl.slice(x, [PAIR, TOKENS, 1, WIDTH], [0, 0, lane, 0])
    return y


@pl.jit
def lane_scale(
    x: pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32],
    gain: pl.Tensor[[1, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[LANES * TOKENS, WIDTH], pl.FP32]],
):
    with pl.spmd(LANES, name_hint="lane_scale"):
        lane = pl.tile.get_block_idx()
        band = pl.load(x, [0, lane, 0], [TOKENS, 1, WIDTH], target_memory=pl.Mem.Vec)
        rows = pl.reshape(band, [TOKENS, WIDTH])
        g = pl.load(gain, [0, 0], [1, WIDTH], target_memory=pl.Mem.Vec)
        scaled = pl.col_expand_mul(rows, g)
        y = pl.store(scaled, [lane * TOKENS, 0], y)
    return y


@pl.jit
def head_rows(
    x: pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32],
    counts: pl.Tensor[[LANES], pl.INT32],
    y: pl.Out[pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32]],
):
    with pl.spmd(LANES, name_hint="head_rows"):
        lane = pl.tile.get_block_idx()
        n = pl.tensor.read(counts, [lane])
        band = pl.load(x, [0, lane, 0], [TOKENS, 1, WIDTH], valid_shape=[n, 1, WIDTH], target_memory=pl.Mem.Vec)
        y = pl.store(band, [0, lane, 0], y)
    return y
