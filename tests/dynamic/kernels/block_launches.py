"""Kernels that read their block index (`pl.tile.get_block_idx()` in a `pl.spmd` launch): the simulation runs
every instance of the launch over one GM (issue 14, item 2).

``band_scale`` scales one row band per block (``band_rows`` too, by its loop variable); ``band_proj`` projects one column band per block on the cube;
``rotate_bands`` stages every band in GM, waits for every block at a `pl.system.syncall` barrier, then
reads its neighbour's band. ``token_norm`` takes its launch size from a `pl.dynamic` token count (`pl.tensor.dim`), ``band_of_dim``
from the static extent of its input; ``band_of_view`` views its input with another shape before the launch. The twins are wrong:
``band_scale_overlap`` writes each band 4 rows short of where it read it (neighbouring blocks write one row
with different values), ``band_chain`` reads the band the previous block writes (its result depends on the
order the blocks run in), ``rotate_bands_unsynced`` reads its neighbour's band with no barrier.
``blocks_at_run_time`` launches a runtime number of blocks and ``two_launches`` reads the block index in one of
two launches of a function: each launch is a `pto.launch` step. ``push_band`` stores each band into a peer rank's
window, ``barrier_in_loop`` waits at a barrier inside a loop: neither can be simulated, and each says why.
"""

import pypto.language as pl
import pypto.language.distributed as pld

ROWS = 64
COLS = 128
BLOCKS = 4
BAND = ROWS // BLOCKS
HIDDEN = 256
OUT = 256
N_BAND = OUT // BLOCKS
K_TILE = 128
TOKENS = pl.dynamic("TOKENS")
TOKEN_TILE = 8


@pl.jit
def band_scale(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS, name_hint="band_scale") as band_tid:
        blk = pl.tile.get_block_idx()
        r0 = blk * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        scaled = pl.mul(band, 2.0)
        y = pl.store(scaled, [r0, 0], y)
    return y


@pl.jit
def band_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    for rb in pl.spmd(BLOCKS, name_hint="band_rows"):
        band = pl.load(x, [rb * BAND, 0], [BAND, COLS])
        shifted = pl.add(band, 1.0)
        y = pl.store(shifted, [rb * BAND, 0], y)
    return y


@pl.jit
def band_proj(
    x: pl.Tensor[[ROWS, HIDDEN], pl.BF16],
    w: pl.Tensor[[HIDDEN, OUT], pl.BF16],
    y: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    for nb in pl.spmd(BLOCKS, name_hint="band_proj"):
        n0 = pl.get_block_idx() * N_BAND
        acc = pl.matmul(x[:, 0:K_TILE], w[0:K_TILE, n0 : n0 + N_BAND], out_dtype=pl.FP32)
        for kb in pl.pipeline(1, HIDDEN // K_TILE, stage=2):
            k0 = kb * K_TILE
            acc = pl.matmul_acc(acc, x[:, k0 : k0 + K_TILE], w[k0 : k0 + K_TILE, n0 : n0 + N_BAND])
        y[:, n0 : n0 + N_BAND] = acc
    return y


@pl.jit
def token_norm(x: pl.Tensor[[TOKENS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[TOKENS, COLS], pl.FP32]]):
    x.bind_dynamic(0, TOKENS)
    y.bind_dynamic(0, TOKENS)
    tokens = pl.tensor.dim(x, 0)
    with pl.spmd(tokens // TOKEN_TILE, name_hint="token_norm") as norm_tid:
        t0 = pl.tile.get_block_idx() * TOKEN_TILE
        rows = pl.load(x, [t0, 0], [TOKEN_TILE, COLS])
        peak = pl.row_max(rows)
        centred = pl.row_expand_sub(rows, peak)
        y = pl.store(centred, [t0, 0], y)
    return y


@pl.jit
def band_of_dim(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    rows = pl.tensor.dim(x, 0)
    bands = rows // BAND
    with pl.spmd(bands, name_hint="band_of_dim") as band_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        halved = pl.mul(band, 0.5)
        y = pl.store(halved, [r0, 0], y)
    return y


@pl.jit
def band_of_view(x: pl.Tensor[[ROWS // 2, COLS * 2], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    x_rows = pl.reshape(x, [ROWS, COLS])
    with pl.spmd(BLOCKS, name_hint="band_of_view") as band_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x_rows, [r0, 0], [BAND, COLS])
        y = pl.store(band, [r0, 0], y)
    return y


@pl.jit
def rotate_bands(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.spmd(BLOCKS, name_hint="rotate_bands") as rotate_tid:
        blk = pl.tile.get_block_idx()
        band = pl.load(x, [blk * BAND, 0], [BAND, COLS])
        doubled = pl.mul(band, 2.0)
        staged = pl.store(doubled, [blk * BAND, 0], staged)
        pl.system.syncall(core_type="mix")
        neighbour = (blk + 1) % BLOCKS
        theirs = pl.load(staged, [neighbour * BAND, 0], [BAND, COLS])
        y = pl.store(theirs, [blk * BAND, 0], y)
    return y


@pl.jit
def rotate_bands_unsynced(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.spmd(BLOCKS, name_hint="rotate_bands_unsynced") as rotate_tid:
        blk = pl.tile.get_block_idx()
        band = pl.load(x, [blk * BAND, 0], [BAND, COLS])
        doubled = pl.mul(band, 2.0)
        staged = pl.store(doubled, [blk * BAND, 0], staged)
        neighbour = (blk + 1) % BLOCKS
        theirs = pl.load(staged, [neighbour * BAND, 0], [BAND, COLS])
        y = pl.store(theirs, [blk * BAND, 0], y)
    return y


@pl.jit
def band_scale_overlap(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS, name_hint="band_scale_overlap") as band_tid:
        blk = pl.tile.get_block_idx()
        band = pl.load(x, [blk * BAND, 0], [BAND, COLS])
        scaled = pl.mul(band, 2.0)
        y = pl.store(scaled, [blk * (BAND - 4), 0], y)
    return y


@pl.jit
def band_chain(x: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS - 1, name_hint="band_chain") as band_tid:
        blk = pl.tile.get_block_idx()
        band = pl.load(x, [blk * BAND, 0], [BAND, COLS])
        scaled = pl.mul(band, 2.0)
        x = pl.store(scaled, [(blk + 1) * BAND, 0], x)
    return x


@pl.jit
def blocks_at_run_time(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], blocks: pl.Scalar[pl.INDEX]
):
    with pl.spmd(blocks, name_hint="blocks_at_run_time") as band_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        scaled = pl.mul(band, 2.0)
        y = pl.store(scaled, [r0, 0], y)
    return y


@pl.jit
def two_launches(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS, name_hint="scale") as scale_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        scaled = pl.mul(band, 2.0)
        y = pl.store(scaled, [r0, 0], y)
    for half in pl.spmd(2, name_hint="shift"):
        h0 = half * (ROWS // 2)
        rows = pl.load(y, [h0, 0], [ROWS // 2, COLS])
        shifted = pl.add(rows, 1.0)
        y = pl.store(shifted, [h0, 0], y)
    return y


@pl.jit
def push_band(
    x: pl.Tensor[[ROWS, COLS], pl.FP32], window: pld.DistributedTensor[[ROWS, COLS], pl.FP32], peer: pl.Scalar[pl.INT32]
):
    with pl.spmd(BLOCKS, name_hint="push_band") as push_tid:
        r0 = pl.tile.get_block_idx() * BAND
        band = pl.load(x, [r0, 0], [BAND, COLS])
        pld.tile.remote_store(band, window, peer, [r0, 0])
    return window


@pl.jit
def barrier_in_loop(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):
    with pl.spmd(BLOCKS, name_hint="barrier_in_loop") as loop_tid:
        blk = pl.tile.get_block_idx()
        for half in pl.range(2):
            r0 = blk * BAND + half * (BAND // 2)
            rows = pl.load(x, [r0, 0], [BAND // 2, COLS])
            y = pl.store(rows, [r0, 0], y)
            pl.system.syncall(core_type="mix")
    return y
