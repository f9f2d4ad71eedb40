"""Padded tiles whose padding a stored value may take (PV108), each with its fixed twin.

`tail_residual` adds a residual block whose rows past a run-time token count were never loaded to a whole
block and stores all of it; `tail_residual_filled` zero-fills the padding first. `short_residual` does the
same with a literal 24 of 32 rows; `short_residual_rows` stores only the 24 valid rows. `short_k` multiplies
an activation padded along K (48 of 64 columns loaded); `short_k_filled` fills it first. `all_rows` loads
every row it declares valid (a whole region: nothing to read)."""

import pypto.language as pl

T = 32
H = 64
LIVE = 24
K = 64
KV = 48
N = 32


@pl.jit
def tail_residual(
    h: pl.Tensor[[T, H], pl.FP32],
    r: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_residual"):
        n = pl.tensor.read(lens, [0])
        live = pl.min(T, n)
        base = pl.load(h, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        res = pl.load(r, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        total = pl.add(base, res)
        y[:, :] = total
    return y


@pl.jit
def tail_residual_filled(
    h: pl.Tensor[[T, H], pl.FP32],
    r: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_residual_filled"):
        n = pl.tensor.read(lens, [0])
        live = pl.min(T, n)
        base = pl.load(h, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        res = pl.load(r, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        total = pl.add(base, pl.fillpad(res, pad_value=pl.PadValue.zero))
        y[:, :] = total
    return y


@pl.jit
def short_residual(
    h: pl.Tensor[[T, H], pl.FP32],
    r: pl.Tensor[[T, H], pl.FP32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_residual"):
        base = pl.load(h, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        res = pl.load(r, [0, 0], [T, H], valid_shape=[LIVE, H], target_memory=pl.MemorySpace.Vec)
        scaled = pl.mul(res, 0.5)
        y[:, :] = pl.add(base, scaled)
    return y


@pl.jit
def short_residual_rows(
    h: pl.Tensor[[T, H], pl.FP32],
    r: pl.Tensor[[T, H], pl.FP32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_residual_rows"):
        res = pl.load(r, [0, 0], [T, H], valid_shape=[LIVE, H], target_memory=pl.MemorySpace.Vec)
        base = pl.load(h, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        scaled = pl.mul(res, 0.5)
        y[:, :] = pl.add(scaled, base)
    return y


@pl.jit
def short_k(
    x: pl.Tensor[[16, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[16, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_k"):
        a = pl.slice(x, [16, K], [0, 0], valid_shape=[16, KV])
        y[:, :] = pl.matmul(a, w, out_dtype=pl.FP32)
    return y


@pl.jit
def short_k_filled(
    x: pl.Tensor[[16, K], pl.BF16],
    w: pl.Tensor[[K, N], pl.BF16],
    y: pl.Out[pl.Tensor[[16, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="short_k_filled"):
        a = pl.slice(x, [16, K], [0, 0], valid_shape=[16, KV])
        filled = pl.fillpad(a, pad_value=pl.PadValue.zero)
        y[:, :] = pl.matmul(filled, w, out_dtype=pl.FP32)
    return y


@pl.jit
def all_rows(
    h: pl.Tensor[[T, H], pl.FP32],
    r: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="all_rows"):
        n = pl.tensor.read(lens, [0])
        live = pl.min(T, n)
        base = pl.load(h, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        res = pl.load(r, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        y[:, :] = pl.add(base, res)
    return y


@pl.jit
def tail_block(
    h: pl.Tensor[[2, T, H], pl.BF16],
    acc: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[2], pl.INT32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_block"):
        n = pl.tensor.read(lens, [1])
        live = pl.min(T, n)
        block = pl.reshape(pl.cast(pl.slice(h, [1, T, H], [1, 0, 0], valid_shape=[1, live, H]), target_type=pl.FP32),
                           [T, H])
        base = pl.load(acc, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        y[:, :] = pl.add(base, block)
    return y


@pl.jit
def tail_block_filled(
    h: pl.Tensor[[2, T, H], pl.BF16],
    acc: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[2], pl.INT32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_block_filled"):
        n = pl.tensor.read(lens, [1])
        live = pl.min(T, n)
        block = pl.reshape(pl.cast(pl.slice(h, [1, T, H], [1, 0, 0], valid_shape=[1, live, H]), target_type=pl.FP32),
                           [T, H])
        base = pl.load(acc, [0, 0], [T, H], target_memory=pl.MemorySpace.Vec)
        y[:, :] = pl.add(base, pl.fillpad(block, pad_value=pl.PadValue.zero))
    return y


@pl.jit
def flat_copy(
    h: pl.Tensor[[1, 1, T, H], pl.FP32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flat_copy"):
        rows = pl.slice(h, [1, 1, T, H], [0, 0, 0, 0], valid_shape=[1, 1, LIVE, H])
        flat = pl.reshape(rows, [T, H])
        y = pl.assemble(y, flat, [0, 0])
    return y


@pl.jit
def flat_copy_filled(
    h: pl.Tensor[[1, 1, T, H], pl.FP32],
    y: pl.Out[pl.Tensor[[T, H], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flat_copy_filled"):
        rows = pl.slice(h, [1, 1, T, H], [0, 0, 0, 0], valid_shape=[1, 1, LIVE, H])
        flat = pl.fillpad(pl.reshape(rows, [T, H]), pad_value=pl.PadValue.zero)
        y = pl.assemble(y, flat, [0, 0])
    return y


@pl.jit
def tail_peak_narrowed(
    x: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[1, T], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_peak_narrowed"):
        n = pl.tensor.read(lens, [0])
        live = pl.min(T, n)
        rows = pl.load(x, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        peaks = pl.reshape(pl.row_max(pl.abs(rows)), [1, T])
        floor = pl.full([1, T], dtype=pl.FP32, value=1e-4)
        scale = pl.recip(pl.maximum(floor, peaks))
        y[:, :] = pl.set_validshape(scale, 1, live)
    return y


@pl.jit
def tail_peak_whole(
    x: pl.Tensor[[T, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[1, T], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail_peak_whole"):
        n = pl.tensor.read(lens, [0])
        live = pl.min(T, n)
        rows = pl.load(x, [0, 0], [T, H], valid_shape=[live, H], target_memory=pl.MemorySpace.Vec)
        peaks = pl.reshape(pl.row_max(pl.abs(rows)), [1, T])
        floor = pl.full([1, T], dtype=pl.FP32, value=1e-4)
        y[:, :] = pl.recip(pl.maximum(floor, peaks))
    return y
