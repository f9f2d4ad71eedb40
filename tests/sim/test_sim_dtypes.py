"""dtype emulation: bf16 rounding on bit patterns, f16, integers, bytes round trips."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim.dtypes import (bf16_bits_to_f32, f32_to_bf16_bits, from_bytes, narrow,
                                     to_bytes, widen)

# (f32 bits, bf16 bits) under round half to even
BF16_CASES = [
    (0x3F800000, 0x3F80),  # 1.0, exact
    (0x3F808000, 0x3F80),  # tie, even below
    (0x3F818000, 0x3F82),  # tie, odd below: round up
    (0x3F808001, 0x3F81),  # just above the tie
    (0x3F80FFFF, 0x3F81),
    (0xBF808000, 0xBF80),  # negative tie
    (0x7F7FFFFF, 0x7F80),  # largest finite rounds to +inf
    (0xFF800000, 0xFF80),  # -inf
    (0x00000001, 0x0000),  # smallest subnormal rounds to zero
    (0x80000000, 0x8000),  # -0.0
]


@pytest.mark.parametrize("f32_bits, bf16_bits", BF16_CASES, ids=lambda v: hex(v))
def test_f32_to_bf16_rounds_half_to_even_on_the_bit_pattern(f32_bits: int, bf16_bits: int) -> None:
    value = np.array([f32_bits], dtype=np.uint32).view(np.float32)
    assert int(f32_to_bf16_bits(value)[0]) == bf16_bits


@pytest.mark.parametrize("nan_bits", [0x7F800001, 0x7FC00000, 0xFFFFFFFF, 0x7FBFFFFF])
def test_f32_to_bf16_keeps_nan_a_quiet_nan(nan_bits: int) -> None:
    value = np.array([nan_bits], dtype=np.uint32).view(np.float32)
    bits = int(f32_to_bf16_bits(value)[0])
    assert bits & 0x7F80 == 0x7F80 and bits & 0x0040 and bits >> 15 == nan_bits >> 31


def test_bf16_to_f32_shifts_the_pattern_into_the_high_half() -> None:
    bits = np.array([0x3F80, 0xC040, 0x7FC0], dtype=np.uint16)
    values = bf16_bits_to_f32(bits)
    assert values.view(np.uint32).tolist() == [0x3F800000, 0xC0400000, 0x7FC00000]


def test_narrow_f16_is_numpy_round_half_to_even() -> None:
    values = np.array([1 + 2**-11, 1 + 3 * 2**-11, 70000.0], dtype=np.float32)
    assert narrow(values, "f16").tolist() == [1.0, 1 + 2**-9, np.inf]


def test_narrow_to_integers_rounds_and_saturates() -> None:
    values = np.array([2.5, -2.5, 300.0, -300.0, np.nan], dtype=np.float32)
    assert narrow(values, "i8").tolist() == [2, -2, 127, -128, 0]


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i8", "i32", "i64", "i1"])
def test_bytes_round_trip(dtype: str) -> None:
    values = np.array([0, 1, 0, 1, 1], dtype=np.float32) if dtype == "i1" else \
        np.array([0.0, 1.0, -2.0, 3.0, 64.0], dtype=np.float32)
    raw = to_bytes(values, dtype)
    assert raw.dtype == np.uint8 and raw.size == 5 * {"f32": 4, "f16": 2, "bf16": 2, "i8": 1,
                                                      "i32": 4, "i64": 8, "i1": 1}[dtype]
    np.testing.assert_array_equal(from_bytes(raw, dtype).astype(np.float32), values)


def test_poison_word_reads_as_nan_in_every_float_dtype() -> None:
    raw = np.array([0x7FC07FC0], dtype="<u4").view(np.uint8)
    assert np.isnan(from_bytes(raw, "f32")).all()
    assert np.isnan(from_bytes(raw, "f16")).all()
    assert np.isnan(from_bytes(raw, "bf16")).all()
    assert from_bytes(raw, "i32").tolist() == [0x7FC07FC0]


def test_widen_is_exact_for_every_bf16_pattern() -> None:
    bits = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    values = widen(bits, "bf16")
    finite = np.isfinite(values)
    assert (f32_to_bf16_bits(values[finite]) == bits[finite]).all()
