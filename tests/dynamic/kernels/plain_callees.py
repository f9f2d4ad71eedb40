"""Kernels calling `pl.jit.inline` helpers that are not kernels (no tile op, no matmul): the static stages do not
lower them, the simulation lowers each one a kernel reaches, transitively, and splices it in the call's place
(simcallee brief, issue 14).

``bump_bands`` calls ``_bump`` (one tensor-level op; the tile it returns is handed back through GM, as PyPTO's exit
store of an InCore function's returned tile); ``copy_bands`` calls ``_copy_band_at``, which only moves tensors (a GM
window copied into another) and itself calls ``_band_start`` (scalar code only: where a band starts; nested calls).
The twins are wrong: ``copy_bands_swapped`` calls ``_copy_band_swapped``, which passes ``_band_start``'s arguments in
the wrong order (block `b` copies rows `b` to `b + 8`, not its own band: the neighbouring bands it overwrites are
another block's), and ``copy_bands_shifted`` calls ``_copy_band_next``, which writes its copy one band down (into
the band the next block reads and adds to). Both leave the result depending on the order the blocks run in, which
the simulation shows as a mismatch.
``picked_bands`` calls ``_copy_picked_band``, which reads the band to copy from the kernel's ``picks`` (a scalar
read in a callee: the tensor is filled with a sample value, as one the kernel reads itself). ``copy_then_return``
ends in `return _copy_band_at(...)`: the call's writes are done before the kernel ends, in the PTO and the
reference alike.
"""

import pypto.language as pl

ROWS = 32
COLS = 64
TILE = 8
BANDS = ROWS // TILE


@pl.jit.inline
def _band_start(band: pl.Scalar[pl.INDEX], first: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    return first + band * TILE


@pl.jit.inline
def _bump(band: pl.Tensor[[TILE, COLS], pl.FP32]) -> pl.Tensor[[TILE, COLS], pl.FP32]:
    return pl.add(band, 1.0)


@pl.jit.inline
def _copy_band_at(src: pl.Tensor[[ROWS, COLS], pl.FP32], dst: pl.Tensor[[ROWS, COLS], pl.FP32],
                  band: pl.Scalar[pl.INDEX]):
    r0 = _band_start(band, 0)
    dst[r0 : r0 + TILE, :] = src[r0 : r0 + TILE, :]
    return dst


@pl.jit.inline
def _copy_band_swapped(src: pl.Tensor[[ROWS, COLS], pl.FP32], dst: pl.Tensor[[ROWS, COLS], pl.FP32],
                       band: pl.Scalar[pl.INDEX]):
    r0 = _band_start(0, band)
    dst[r0 : r0 + TILE, :] = src[r0 : r0 + TILE, :]
    return dst


@pl.jit.inline
def _copy_band_next(src: pl.Tensor[[ROWS, COLS], pl.FP32], dst: pl.Tensor[[ROWS, COLS], pl.FP32],
                    band: pl.Scalar[pl.INDEX]):
    r0 = _band_start(band, 0)
    r1 = (r0 + TILE) % ROWS
    dst[r1 : r1 + TILE, :] = src[r0 : r0 + TILE, :]
    return dst


@pl.jit
def bump_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.spmd(BANDS, name_hint="bump_bands"):
        r0 = b * TILE
        band = pl.slice(x, [TILE, COLS], [r0, 0])
        bumped = _bump(band)
        rows = pl.load(bumped, [0, 0], [TILE, COLS])
        doubled = pl.mul(rows, 2.0)
        y = pl.store(doubled, [r0, 0], y)
    return y


@pl.jit
def copy_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.spmd(BANDS, name_hint="copy_bands"):
        y = _copy_band_at(x, y, b)
        r0 = b * TILE
        rows = pl.load(y, [r0, 0], [TILE, COLS])
        shifted = pl.add(rows, 0.5)
        y = pl.store(shifted, [r0, 0], y)
    return y


@pl.jit
def copy_bands_swapped(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.spmd(BANDS, name_hint="copy_bands_swapped"):
        y = _copy_band_swapped(x, y, b)
        r0 = b * TILE
        rows = pl.load(y, [r0, 0], [TILE, COLS])
        shifted = pl.add(rows, 0.5)
        y = pl.store(shifted, [r0, 0], y)
    return y


@pl.jit
def copy_bands_shifted(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.spmd(BANDS, name_hint="copy_bands_shifted"):
        y = _copy_band_next(x, y, b)
        r0 = b * TILE
        rows = pl.load(y, [r0, 0], [TILE, COLS])
        shifted = pl.add(rows, 0.5)
        y = pl.store(shifted, [r0, 0], y)
    return y


@pl.jit.inline
def _copy_picked_band(src: pl.Tensor[[ROWS, COLS], pl.FP32], dst: pl.Tensor[[ROWS, COLS], pl.FP32],
                      picks: pl.Tensor[[BANDS], pl.INT32], band: pl.Scalar[pl.INDEX]):
    picked = pl.cast(pl.read(picks, [band]), pl.INDEX) % BANDS
    dst[band * TILE : band * TILE + TILE, :] = src[picked * TILE : picked * TILE + TILE, :]
    return dst


@pl.jit
def picked_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], picks: pl.Tensor[[BANDS], pl.INT32],
                 y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for b in pl.spmd(BANDS, name_hint="picked_bands"):
        y = _copy_picked_band(x, y, picks, b)
        r0 = b * TILE
        rows = pl.load(y, [r0, 0], [TILE, COLS])
        shifted = pl.add(rows, 0.5)
        y = pl.store(shifted, [r0, 0], y)
    return y


@pl.jit
def copy_then_return(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_first"):
        rows = pl.load(x, [0, 0], [TILE, COLS])
        y = pl.store(rows, [0, 0], y)
    return _copy_band_at(x, y, 1)
