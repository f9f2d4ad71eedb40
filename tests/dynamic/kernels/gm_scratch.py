"""GM scratch tensors whose shape is a run-time size: ``padded_rows`` stages a `pl.dynamic` token count
padded up to at least one tile (`pl.max`) in a scratch, then scales it back out; ``active_rows`` sizes its
scratch from a scalar parameter rounded up to whole tiles. The simulation gives the scratch the shape of the
values it runs with."""

import pypto.language as pl

TOKENS = pl.dynamic("TOKENS")
WIDTH = 64
TILE = 16


@pl.jit
def padded_rows(
    x: pl.Tensor[[TOKENS, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, WIDTH], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    rows = pl.max(tokens, TILE)
    staged = pl.create_tensor([rows, WIDTH], dtype=pl.FP32)
    for tb in pl.range(tokens // TILE):
        t0 = tb * TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage"):
            staged[t0 : t0 + TILE, :] = pl.muls(pl.tile.load(x, [t0, 0], [TILE, WIDTH]), 2.0)
    for tb in pl.range(tokens // TILE):
        t0 = tb * TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="unstage"):
            y[t0 : t0 + TILE, :] = pl.adds(pl.tile.load(staged, [t0, 0], [TILE, WIDTH]), 1.0)
    return y


@pl.jit
def active_rows(
    x: pl.Tensor[[64, WIDTH], pl.FP32],
    active: pl.Scalar[pl.INDEX],
    y: pl.Out[pl.Tensor[[64, WIDTH], pl.FP32]],
):
    tiles = (active + TILE - 1) // TILE
    padded = tiles * TILE
    staged = pl.create_tensor([padded, WIDTH], dtype=pl.FP32)
    for tb in pl.range(tiles):
        t0 = tb * TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage"):
            staged[t0 : t0 + TILE, :] = pl.neg(pl.tile.load(x, [t0, 0], [TILE, WIDTH]))
    for tb in pl.range(tiles):
        t0 = tb * TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="unstage"):
            y[t0 : t0 + TILE, :] = pl.tile.load(staged, [t0, 0], [TILE, WIDTH])
    return y
