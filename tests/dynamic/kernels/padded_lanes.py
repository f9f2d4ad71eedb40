"""Padded tiles: a score tile whose last lanes are padding. `lane_softmax` loads 4 real lanes into an
8-lane tile (`valid_shape=`), shifts them below zero, fills the padding with the minimum before the row
max (so the padding never wins it and adds exp(-inf) = 0 to the sum) and stores all 8 lanes.
`bare_lane_softmax` forgets the fill: it widens the valid shape over padding nothing wrote.
`short_batch` multiplies a 16-row window of an 8-row activation (`valid_shape=` the 8 real rows) and
stores the 8 real rows of the product. `block_peaks` lays the row peaks of the 2 live rows of an 8-row block
along one row (a padded reshape), fills the rest with the minimum and raises all 8 to a floor;
`bare_block_peaks` forgets the fill, so the floor's maximum reads the 6 padding lanes."""

import pypto.language as pl

ROWS = 16
LANES = 4
PAD = 8
TOKENS = 8
TILE_M = 16
K = 64
N = 32


@pl.jit
def lane_softmax(
    x: pl.Tensor[[ROWS, 16], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, PAD], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_softmax"):
        lanes = pl.load(x, [0, 4], [ROWS, PAD], valid_shape=[ROWS, LANES], target_memory=pl.MemorySpace.Vec)
        shifted = pl.sub(lanes, 2.0)
        filled = pl.fillpad(shifted, pad_value=pl.PadValue.min)
        peak = pl.row_max(filled)
        spread = pl.exp(pl.row_expand_sub(filled, peak))
        total = pl.row_sum(spread)
        y[:, :] = pl.row_expand_div(spread, total)
    return y


@pl.jit
def bare_lane_softmax(
    x: pl.Tensor[[ROWS, 16], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, PAD], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bare_lane_softmax"):
        lanes = pl.load(x, [0, 4], [ROWS, PAD], valid_shape=[ROWS, LANES], target_memory=pl.MemorySpace.Vec)
        shifted = pl.sub(lanes, 2.0)
        widened = pl.set_validshape(shifted, ROWS, PAD)
        peak = pl.row_max(widened)
        spread = pl.exp(pl.row_expand_sub(widened, peak))
        total = pl.row_sum(spread)
        y[:, :] = pl.row_expand_div(spread, total)
    return y


@pl.jit
def short_batch(
    x: pl.Tensor[[TOKENS, K], pl.BF16],
    w: pl.Tensor[[N, K], pl.BF16],
    y: pl.Out[pl.Tensor[[TOKENS, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_batch"):
        rows = pl.slice(x, [TILE_M, K], [0, 0], valid_shape=[TOKENS, K])
        acc = pl.matmul(rows, w, b_trans=True)
        y[:, :] = acc
    return y


BLOCK = 8
LIVE = 2


@pl.jit
def block_peaks(
    x: pl.Tensor[[LIVE, K], pl.FP32],
    floor: pl.Tensor[[1, BLOCK], pl.FP32],
    y: pl.Out[pl.Tensor[[1, BLOCK], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="block_peaks"):
        rows = pl.load(x, [0, 0], [BLOCK, K], valid_shape=[LIVE, K], target_memory=pl.MemorySpace.Vec)
        peaks = pl.reshape(pl.row_max(pl.abs(rows)), [1, BLOCK])
        filled = pl.fillpad(peaks, pad_value=pl.PadValue.min)
        y[:, :] = pl.maximum(floor[:, :], filled)
    return y


@pl.jit
def bare_block_peaks(
    x: pl.Tensor[[LIVE, K], pl.FP32],
    floor: pl.Tensor[[1, BLOCK], pl.FP32],
    y: pl.Out[pl.Tensor[[1, BLOCK], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bare_block_peaks"):
        rows = pl.load(x, [0, 0], [BLOCK, K], valid_shape=[LIVE, K], target_memory=pl.MemorySpace.Vec)
        peaks = pl.reshape(pl.row_max(pl.abs(rows)), [1, BLOCK])
        y[:, :] = pl.maximum(floor[:, :], peaks)
    return y
