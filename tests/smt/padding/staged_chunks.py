"""Ragged token chunks staged through casts and a reshape before they are assembled (PV108), in the style of a
prefill layer copying a `[1, 1, T, H]` window of a combine buffer into a `[T, H]` GM tile.

``staged_rows``: cast, reshape, cast of a window valid over `min(T, n - t0)` rows, assembled: the reshape only
drops unit dimensions, so the value keeps the window's valid rows and the assemble moves only those (nothing to
pose). ``staged_sum``: the same chunk added to a whole block first, which reads its padding rows (conditional on
`n`). ``staged_whole``: a static valid_shape that is the whole window (nothing padded). ``mixed_rows``: two
chunks valid over different run-time row counts added, whose sum pypto-verify does not give a valid region:
stale rows are written unless both chunks are whole (conditional on `n` and `m`). ``mixed_short``: one of the
chunks is always short (a literal 24 of 32 rows), so it is whole for no run-time value (stays inconclusive).
``mixed_tail``: one chunk is short only in its last block of a literal 100 rows (4 of 32), whatever `n` is:
inconclusive there too."""

import pypto.language as pl

T = 32
H = 64
LIVE = 24
SEQ = 128
TAIL = 100


@pl.jit
def staged_rows(
    buf: pl.Tensor[[2, 1, SEQ, H], pl.BF16],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.BF16]],
):
    n = pl.tensor.read(lens, [0])
    for tb in pl.range((n + T - 1) // T):
        t0 = tb * T
        rows = pl.min(T, n - t0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_rows"):
            wide = pl.reshape(
                pl.cast(pl.slice(buf, [1, 1, T, H], [1, 0, t0, 0], valid_shape=[1, 1, rows, H]),
                        target_type=pl.FP32),
                [T, H],
            )
            chunk = pl.cast(wide, target_type=pl.BF16)
            y = pl.assemble(y, chunk, [t0, 0])
    return y


@pl.jit
def staged_sum(
    buf: pl.Tensor[[2, 1, SEQ, H], pl.FP32],
    base: pl.Tensor[[SEQ, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.FP32]],
):
    n = pl.tensor.read(lens, [0])
    for tb in pl.range((n + T - 1) // T):
        t0 = tb * T
        rows = pl.min(T, n - t0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_sum"):
            chunk = pl.reshape(
                pl.cast(pl.slice(buf, [1, 1, T, H], [1, 0, t0, 0], valid_shape=[1, 1, rows, H]),
                        target_type=pl.BF16),
                [T, H],
            )
            whole = pl.slice(base, [T, H], [t0, 0])
            y = pl.assemble(y, pl.add(whole, pl.cast(chunk, target_type=pl.FP32)), [t0, 0])
    return y


@pl.jit
def staged_whole(
    buf: pl.Tensor[[2, 1, SEQ, H], pl.BF16],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.BF16]],
):
    for tb in pl.range(SEQ // T):
        t0 = tb * T
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="staged_whole"):
            wide = pl.reshape(
                pl.cast(pl.slice(buf, [1, 1, T, H], [1, 0, t0, 0], valid_shape=[1, 1, T, H]),
                        target_type=pl.FP32),
                [T, H],
            )
            y = pl.assemble(y, pl.cast(wide, target_type=pl.BF16), [t0, 0])
    return y


@pl.jit
def mixed_rows(
    a: pl.Tensor[[SEQ, H], pl.FP32],
    b: pl.Tensor[[SEQ, H], pl.FP32],
    lens: pl.Tensor[[2], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.FP32]],
):
    n = pl.tensor.read(lens, [0])
    m = pl.tensor.read(lens, [1])
    for tb in pl.range(SEQ // T):
        t0 = tb * T
        rows_a = pl.min(T, n - t0)
        rows_b = pl.min(T, m - t0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed_rows"):
            left = pl.slice(a, [T, H], [t0, 0], valid_shape=[rows_a, H])
            right = pl.slice(b, [T, H], [t0, 0], valid_shape=[rows_b, H])
            y = pl.assemble(y, pl.add(left, right), [t0, 0])
    return y


@pl.jit
def mixed_short(
    a: pl.Tensor[[SEQ, H], pl.FP32],
    b: pl.Tensor[[SEQ, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.FP32]],
):
    n = pl.tensor.read(lens, [0])
    for tb in pl.range((n + T - 1) // T):
        t0 = tb * T
        rows = pl.min(T, n - t0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed_short"):
            left = pl.slice(a, [T, H], [t0, 0], valid_shape=[LIVE, H])
            right = pl.slice(b, [T, H], [t0, 0], valid_shape=[rows, H])
            y = pl.assemble(y, pl.add(left, right), [t0, 0])
    return y


@pl.jit
def mixed_tail(
    a: pl.Tensor[[SEQ, H], pl.FP32],
    b: pl.Tensor[[SEQ, H], pl.FP32],
    lens: pl.Tensor[[1], pl.INT32],
    y: pl.Out[pl.Tensor[[SEQ, H], pl.FP32]],
):
    n = pl.tensor.read(lens, [0])
    for tb in pl.range((n + T - 1) // T):
        t0 = tb * T
        rows = pl.min(T, n - t0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed_tail"):
            left = pl.slice(a, [T, H], [t0, 0], valid_shape=[pl.min(T, TAIL - t0), H])
            right = pl.slice(b, [T, H], [t0, 0], valid_shape=[rows, H])
            y = pl.assemble(y, pl.add(left, right), [t0, 0])
    return y
