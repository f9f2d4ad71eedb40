"""GM tensors seen through other views: a 4-D activation and a 3-D output flattened by `pl.reshape`
at orchestration level (one more tensor view of the same storage), a 1-D per-channel scale whose
windows are loaded as `[1, HEAD_DIM]` rows, and a 1-D bias reshaped to one row before its loads.
``head_scale`` scales and shifts every head of every token by its own slice of the two vectors; the
token count is a `pl.dynamic` size."""

import pypto.language as pl

TOKENS = pl.dynamic("TOKENS")
HEADS = 4
HEAD_DIM = 32
FLAT = HEADS * HEAD_DIM
ROW_TILE = 16


@pl.jit
def head_scale(
    x: pl.Tensor[[TOKENS, HEADS, 1, HEAD_DIM], pl.FP32],
    scale: pl.Tensor[[FLAT], pl.FP32],
    bias: pl.Tensor[[FLAT], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, HEADS, HEAD_DIM], pl.BF16]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    x_flat = pl.reshape(x, [tokens, FLAT])
    y_flat = pl.reshape(y, [tokens, FLAT])
    bias_row = pl.reshape(bias, [1, FLAT])
    for tb in pl.parallel(tokens // ROW_TILE):
        t0 = tb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="head_scale"):
            for h in pl.range(HEADS):
                d0 = h * HEAD_DIM
                rows = x_flat[t0 : t0 + ROW_TILE, d0 : d0 + HEAD_DIM]
                head_w = pl.reshape(scale[d0 : d0 + HEAD_DIM], [1, HEAD_DIM])
                head_b = pl.tile.load(bias_row, [0, d0], [1, HEAD_DIM])
                shifted = pl.col_expand_add(pl.col_expand_mul(rows, head_w), head_b)
                y_flat[t0 : t0 + ROW_TILE, d0 : d0 + HEAD_DIM] = pl.cast(shifted, target_type=pl.BF16)
    y = pl.reshape(y_flat, [tokens, HEADS, HEAD_DIM])
    return y
