"""Kernels that call other functions (`pl.jit.inline` callees of this file and one imported from
`inline_rows.py`): the simulation splices each callee's lowered body into the caller's PTO in the call's place,
its parameters bound to the arguments and its result returned, and the reference runs the callee's source there;
a callee that reads its block index reads the caller's launch (siminline brief, items 1 and 2).

``shift_bands`` calls ``_shift_band`` (which reads its block index) in each block of its launch, then halves the
band the callee wrote (as every caller here);
``scale_then_shift`` calls ``_scale_rows`` with its arguments by keyword and uses the tensor it returns;
``centre_all`` calls the imported ``centre_band``; ``split_tail`` copies each band through one of two callees,
picked by how many rows are left (a full band, or the ragged last one through a `valid_shape` load). ``_shift_band`` itself, run on its own, is a kernel
whose block index its launcher gives at run time: it is simulated as a launch of a sample block count.
The twins are wrong: ``shift_bands_overlap`` calls ``_shift_band_short``, which writes each band 4 rows short of
where it read it (neighbouring blocks write one row with different values), and ``shift_bands_aliased`` binds
the callee's output to its input tensor, so a block reads the band the next one wrote (the result depends on the
order the blocks run in); ``_shift_band_short`` alone mismatches the same way at its sample block count.
``tile_across_call`` reads a tile it loaded before a call after it: not simulated (each callee keeps the buffers
its own lowering gave it), and it says why. ``launch_then_call`` launches blocks of its own, then calls
``_shift_band`` outside them: which launch that block index reads is not said, so it is not simulated either.
"""

import pypto.language as pl

from inline_rows import centre_band

ROWS = 32
COLS = 128
TILE = 8
BANDS = ROWS // TILE
TOKENS = pl.dynamic("TOKENS")


@pl.jit.inline
def _shift_band(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32]):
    r0 = pl.tile.get_block_idx() * TILE
    band = pl.load(x, [r0, 0], [TILE, COLS])
    shifted = pl.add(band, 1.0)
    y = pl.store(shifted, [r0, 0], y)
    return y


@pl.jit.inline
def _shift_band_short(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32]):
    blk = pl.tile.get_block_idx()
    band = pl.load(x, [blk * TILE, 0], [TILE, COLS])
    shifted = pl.add(band, 1.0)
    y = pl.store(shifted, [blk * (TILE - 4), 0], y)
    return y


@pl.jit.inline
def _next_band(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[ROWS, COLS], pl.FP32]):
    blk = pl.tile.get_block_idx()
    band = pl.load(x, [(blk + 1) * TILE, 0], [TILE, COLS])
    doubled = pl.mul(band, 2.0)
    y = pl.store(doubled, [blk * TILE, 0], y)
    return y


@pl.jit.inline
def _scale_rows(src: pl.Tensor[[ROWS, COLS], pl.FP32], gain: pl.Tensor[[1, COLS], pl.FP32],
                dst: pl.Tensor[[ROWS, COLS], pl.FP32]):
    g = pl.load(gain, [0, 0], [1, COLS])
    for rb in pl.range(BANDS):
        rows = pl.load(src, [rb * TILE, 0], [TILE, COLS])
        scaled = pl.col_expand_mul(rows, g)
        dst = pl.store(scaled, [rb * TILE, 0], dst)
    return dst


@pl.jit.inline
def _full_band(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Tensor[[TOKENS, COLS], pl.FP32]):
    r0 = pl.tile.get_block_idx() * TILE
    band = pl.load(x, [r0, 0], [TILE, COLS])
    y = pl.store(band, [r0, 0], y)
    return y


@pl.jit.inline
def _tail_band(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Tensor[[TOKENS, COLS], pl.FP32]):
    r0 = pl.tile.get_block_idx() * TILE
    left = pl.min(TILE, pl.tensor.dim(x, 0) - r0)
    band = pl.load(x, [r0, 0], [TILE, COLS], valid_shape=[left, COLS])
    y = pl.store(band, [r0, 0], y)
    return y


@pl.jit
def shift_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS, name_hint="shift_bands") as shift_tid:
        _shift_band(x, y)
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(y, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    return y


@pl.jit
def scale_then_shift(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    gain: pl.Tensor[[1, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    scaled = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    scaled = _scale_rows(dst=scaled, gain=gain, src=x)
    with pl.spmd(BANDS, name_hint="shift_scaled") as shift_tid:
        _shift_band(scaled, y)
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(y, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    return y


@pl.jit
def centre_all(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS, name_hint="centre_all") as centre_tid:
        centre_band(x, y)
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(y, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    return y


@pl.jit
def split_tail(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[TOKENS, COLS], pl.FP32]]):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    with pl.spmd((tokens + TILE - 1) // TILE, name_hint="split_tail") as split_tid:
        r0 = pl.tile.get_block_idx() * TILE
        if pl.min(TILE, tokens - r0) == TILE:
            _full_band(x, y)
        else:
            _tail_band(x, y)
    return y


@pl.jit
def shift_bands_overlap(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS, name_hint="shift_bands_overlap") as shift_tid:
        _shift_band_short(x, y)
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(y, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    return y


@pl.jit
def shift_bands_aliased(x: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS - 1, name_hint="shift_bands_aliased") as shift_tid:
        _next_band(x, x)
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(x, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        x = pl.store(halved, [r0, 0], x)
    return x


@pl.jit
def tile_across_call(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS, name_hint="tile_across_call") as shift_tid:
        r0 = pl.tile.get_block_idx() * TILE
        kept = pl.load(x, [r0, 0], [TILE, COLS])
        _shift_band(x, y)
        y = pl.store(kept, [r0, 0], y)
    return y


@pl.jit
def launch_then_call(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BANDS, name_hint="launch_then_call") as halve_tid:
        r0 = pl.tile.get_block_idx() * TILE
        band = pl.load(x, [r0, 0], [TILE, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    _shift_band(x, y)
    return y
