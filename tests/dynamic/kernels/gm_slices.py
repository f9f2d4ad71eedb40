"""GM slices that stay GM tensors: views of the same storage at an offset (PyPTO's orchestration
`tensor.slice`, a `ChipTensor` view; in PTO a `pto.addptr` and a `make_tensor_view` with the source's
strides). ``row_gain`` takes one row of a gain table per token at a position read at run time, outside
its InCore scope; ``band_mean`` slices a band of a scratch tensor and then a window of the band;
``stacked_rows`` slices one plane of a 3-D tensor and flattens it. The token count is a `pl.dynamic`
size. ``swapped_halves`` is the contrast: a slice of a computed value, sliced again, stays a tile (a
`tile.slice` view of its buffer), as in PyPTO."""

import pypto.language as pl

TOKENS = pl.dynamic("TOKENS")
TABLE = 64
WIDTH = 64
HALF = WIDTH // 2
TILE = 8
HALF_TILE = TILE // 2
PLANES = 3


@pl.jit
def row_gain(
    x: pl.Tensor[[TOKENS, WIDTH], pl.FP32],
    table: pl.Tensor[[TABLE, WIDTH], pl.FP32],
    positions: pl.Tensor[[TOKENS], pl.INT32],
    y: pl.Out[pl.Tensor[[TOKENS, WIDTH], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    for t in pl.range(tokens):
        pos = pl.tensor.read(positions, [t])
        gain_lo = table[pos : pos + 1, 0:HALF]
        gain_hi = table[pos : pos + 1, HALF:WIDTH]
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="row_gain"):
            lo = pl.mul(x[t : t + 1, 0:HALF], pl.tile.load(gain_lo, [0, 0], [1, HALF]))
            hi = pl.mul(x[t : t + 1, HALF:WIDTH], pl.tile.load(gain_hi, [0, 0], [1, HALF]))
            y[t : t + 1, 0:HALF] = hi
            y[t : t + 1, HALF:WIDTH] = lo
    return y


@pl.jit
def band_mean(
    x: pl.Tensor[[TOKENS, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, HALF], pl.FP32]],
):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    for t0 in pl.range(0, tokens, TILE):
        scratch = pl.create_tensor([TILE, WIDTH], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="square"):
            rows = x[t0 : t0 + TILE, :]
            scratch = pl.assemble(scratch, pl.mul(rows, rows), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="band"):
            band = pl.slice(scratch, [TILE, WIDTH], [0, 0])
            right = pl.slice(band, [TILE, HALF], [0, HALF])
            y[t0 : t0 + TILE, :] = pl.add(pl.tile.load(right, [0, 0], [TILE, HALF]), 1.0)
    return y


@pl.jit
def stacked_rows(
    stack: pl.Tensor[[PLANES, TOKENS, WIDTH], pl.BF16],
    plane: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[TOKENS, WIDTH], pl.FP32]],
):
    stack.bind_dynamic(1, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(stack, 1)
    p = pl.tensor.read(plane, [0])
    picked_3d = pl.slice(stack, [1, tokens, WIDTH], [p, 0, 0])
    picked = pl.reshape(picked_3d, [tokens, WIDTH])
    for tb in pl.range(tokens // TILE):
        t0 = tb * TILE
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="widen"):
            y[t0 : t0 + TILE, :] = pl.cast(pl.tile.load(picked, [t0, 0], [TILE, WIDTH]), target_type=pl.FP32)
    return y


@pl.jit
def swapped_halves(
    x: pl.Tensor[[TILE, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[TILE, WIDTH], pl.FP32]],
):
    with pl.spmd(2, name_hint="swapped_halves"):
        r0 = pl.tile.get_block_idx() * HALF_TILE
        scaled = pl.muls(x[r0 : r0 + HALF_TILE, :], 2.0)[0:HALF_TILE, :]
        lo = scaled[:, 0:HALF]
        hi = scaled[:, HALF:WIDTH]
        y[r0 : r0 + HALF_TILE, 0:HALF] = hi
        y[r0 : r0 + HALF_TILE, HALF:WIDTH] = pl.adds(lo, 1.0)
    return y
