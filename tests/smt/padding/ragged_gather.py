"""Row-wise gathers of a padded block (PV108), in the style of a rope table interleaved for a ragged last block of
tokens: ``gather(src, dim=-1, index=dup)`` builds row r of its result from row r of `src`, so rows past `src`'s
valid rows are its unfilled padding. ``short_block`` loads 5 of 8 rows and stores all 8 gathered rows (refuted);
``tail_block`` loads `min(8, n_rows - t0)` rows (conditional on `n_rows`); ``filled_block`` fills the padding
first (nothing to pose)."""

import pypto.language as pl

T = 64
TILE_T = 8
W = 16


@pl.jit
def short_block(freqs: pl.Tensor[[T, W], pl.FP32], out: pl.Out[pl.Tensor[[T, 2 * W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_block"):
        ones = pl.full([TILE_T, 2 * W], dtype=pl.FP32, value=1.0)
        ramp = pl.cast(pl.arange(0, [1, 2 * W], dtype=pl.INT32), target_type=pl.FP32)
        dup = pl.cast(pl.mul(pl.col_expand_mul(ones, ramp), 0.5), target_type=pl.INT32, mode="trunc")
        src = pl.slice(freqs, [TILE_T, W], [0, 0], valid_shape=[5, W])
        il = pl.gather(src, dim=-1, index=dup)
        out[0:TILE_T, :] = il
    return out


@pl.jit
def tail_block(freqs: pl.Tensor[[T, W], pl.FP32], out: pl.Out[pl.Tensor[[T, 2 * W], pl.FP32]],
               n_rows: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_block"):
        ones = pl.full([TILE_T, 2 * W], dtype=pl.FP32, value=1.0)
        ramp = pl.cast(pl.arange(0, [1, 2 * W], dtype=pl.INT32), target_type=pl.FP32)
        dup = pl.cast(pl.mul(pl.col_expand_mul(ones, ramp), 0.5), target_type=pl.INT32, mode="trunc")
        for b in pl.range(T // TILE_T):
            t0 = b * TILE_T
            rows = pl.min(TILE_T, n_rows - t0)
            src = pl.slice(freqs, [TILE_T, W], [t0, 0], valid_shape=[rows, W])
            il = pl.gather(src, dim=-1, index=dup)
            out[t0 : t0 + TILE_T, :] = il
    return out


@pl.jit
def filled_block(freqs: pl.Tensor[[T, W], pl.FP32], out: pl.Out[pl.Tensor[[T, 2 * W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="filled_block"):
        ones = pl.full([TILE_T, 2 * W], dtype=pl.FP32, value=1.0)
        ramp = pl.cast(pl.arange(0, [1, 2 * W], dtype=pl.INT32), target_type=pl.FP32)
        dup = pl.cast(pl.mul(pl.col_expand_mul(ones, ramp), 0.5), target_type=pl.INT32, mode="trunc")
        src = pl.slice(freqs, [TILE_T, W], [0, 0], valid_shape=[5, W])
        whole = pl.fillpad(src, pad_value=pl.PadValue.zero)
        il = pl.gather(whole, dim=-1, index=dup)
        out[0:TILE_T, :] = il
    return out
