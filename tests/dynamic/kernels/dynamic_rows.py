"""Row-tiled projections over a `pl.dynamic` number of tokens (the simulation binds it to samples).

``rows_proj`` divides the tokens into whole ``ROW_TILE``-row tiles (a size must be a multiple of 16), and
``rows_step_proj`` steps through them by ``ROW_TILE`` rows (no division: the slices give the tiling);
``rows_tail_proj`` also has a remainder path: the rows past the last whole tile go through
``TAIL_ROWS``-row tiles, so the samples include a tail case. ``two_sizes_proj`` has two sizes, each tiled
its own way (16 tokens, 32 page rows).
"""

import pypto.language as pl

TOKENS = pl.dynamic("TOKENS")
PAGES = pl.dynamic("PAGES")
HIDDEN = 128
OUT = 64
ROW_TILE = 16
TAIL_ROWS = 8
PAGE_ROWS = 32


@pl.jit
def rows_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    for rb in pl.parallel(tokens // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):
            y[r0 : r0 + ROW_TILE, :] = pl.matmul(x[r0 : r0 + ROW_TILE, :], w, out_dtype=pl.FP32)
    return y


@pl.jit
def rows_tail_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    whole = tokens // ROW_TILE
    for rb in pl.parallel(whole):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="whole_rows"):
            y[r0 : r0 + ROW_TILE, :] = pl.matmul(x[r0 : r0 + ROW_TILE, :], w, out_dtype=pl.FP32)
    tail_start = whole * ROW_TILE
    for tb in pl.parallel((tokens % ROW_TILE) // TAIL_ROWS):
        t0 = tail_start + tb * TAIL_ROWS
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_rows"):
            y[t0 : t0 + TAIL_ROWS, :] = pl.matmul(x[t0 : t0 + TAIL_ROWS, :], w, out_dtype=pl.FP32)
    return y


@pl.jit
def rows_step_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    for r0 in pl.range(0, pl.tensor.dim(x, 0), ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_steps"):
            y[r0 : r0 + ROW_TILE, :] = pl.matmul(x[r0 : r0 + ROW_TILE, :], w, out_dtype=pl.FP32)
    return y


@pl.jit
def two_sizes_proj(
    x: pl.Tensor[[TOKENS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
    z: pl.Tensor[[PAGES, HIDDEN], pl.BF16],
    y: pl.Out[pl.Tensor[[TOKENS, OUT], pl.FP32]],
    v: pl.Out[pl.Tensor[[PAGES, OUT], pl.FP32]],
):
    for rb in pl.parallel(pl.tensor.dim(x, 0) // ROW_TILE):
        r0 = rb * ROW_TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="token_rows"):
            y[r0 : r0 + ROW_TILE, :] = pl.matmul(x[r0 : r0 + ROW_TILE, :], w, out_dtype=pl.FP32)
    for pb in pl.parallel(pl.tensor.dim(z, 0) // PAGE_ROWS):
        p0 = pb * PAGE_ROWS
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="page_rows"):
            v[p0 : p0 + PAGE_ROWS, :] = pl.matmul(z[p0 : p0 + PAGE_ROWS, :], w, out_dtype=pl.FP32)
    return y, v
