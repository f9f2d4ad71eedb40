"""Packed unsigned codes dequantised on the vector unit, then rotated on the cube (a UINT8 cache)."""

import pypto.language as pl

ROWS = 16
HALF = 64
OUT = 128


@pl.jit
def unpack_rotate(
    codes: pl.Tensor[[ROWS, HALF], pl.UINT8],
    rot: pl.Tensor[[OUT, HALF], pl.BF16],
    out: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unpack_rotate"):
        wide = pl.cast(pl.cast(codes, target_type=pl.FP16), target_type=pl.FP32)
        low = pl.fmods(wide, 16.0)
        low_bf16 = pl.cast(low, target_type=pl.BF16)
        turned = pl.matmul(low_bf16, rot, b_trans=True, out_dtype=pl.FP32)
        out[:, :] = turned
    return out


@pl.jit
def unpack_inline(
    codes: pl.Tensor[[ROWS, HALF], pl.UINT8],
    scale: pl.Tensor[[ROWS, 1], pl.FP32],
    rot: pl.Tensor[[OUT, HALF], pl.BF16],
    out: pl.Out[pl.Tensor[[ROWS, OUT], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unpack_inline"):
        wide = pl.cast(pl.cast(codes, target_type=pl.FP16), target_type=pl.FP32)
        scaled = pl.row_expand_mul(pl.div(wide, 16.0), scale)
        turned = pl.matmul(pl.cast(scaled, target_type=pl.BF16), rot, b_trans=True, out_dtype=pl.FP32)
        out[:, :] = turned
    return out
