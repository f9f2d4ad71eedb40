"""An int8 projection whose INT32 accumulator fills L0C (128 x 256 x 4 bytes), drained 16 rows at a time: each
window of the accumulator is a view of its bytes, so the last one ends where the accumulator ends (an INT32
Acc tile of its own would pad its rows to 32)."""

import pypto.language as pl

M = 128
K = 32
N = 256
ROW_TILE = 16


@pl.jit
def int32_acc_rows(
    a: pl.Tensor[[M, K], pl.INT8],
    b: pl.Tensor[[K, N], pl.INT8],
    out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="int32_acc_rows"):
        acc = pl.matmul(a, b, out_dtype=pl.INT32)
        for r0 in pl.range(0, M, ROW_TILE):
            rows = acc[r0 : r0 + ROW_TILE, :]
            out[r0 : r0 + ROW_TILE, :] = pl.cast(rows, target_type=pl.FP32, mode="none")
    return out
