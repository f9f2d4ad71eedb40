"""Element types of the PTO subset: their storage encoding and their conversions.

Owns the mapping from a PTO dtype name (`f32 f16 bf16 i8 i16 i32 i64 i1 ui8 ui16 ui32`) to the numpy array that
holds its bits ("storage"), and every conversion the simulator performs:

- `to_bytes(values, dtype)` / `from_bytes(raw, dtype)`: values <-> raw little-endian bytes;
- `narrow(f32 array, dtype)`: f32 values -> storage of `dtype`, round half to even (the FIXPIPE
  and `pto.tcvt` rounding);
- `widen(storage, dtype)`: storage -> f32 values for float dtypes (exact), int64 for integers.

Decisions (docs/pto-subset.md is silent on them):
- bf16 is stored as uint16 bit patterns; f32 -> bf16 rounds half to even on the bit pattern, a NaN
  stays NaN (made quiet, sign and top payload bits kept), overflow rounds to infinity.
- i1 is stored as one byte (0 or 1) per element.
- Narrowing a float to an integer dtype rounds half to even and saturates to the dtype's range;
  NaN becomes 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Final

import numpy as np


@dataclass(frozen=True, slots=True)
class DType:
    """One PTO element type and the numpy dtype its bits live in."""

    name: str
    storage: np.dtype
    is_float: bool

    @property
    def size(self) -> int:
        """Bytes per element."""
        return self.storage.itemsize


DTYPES: Final[dict[str, DType]] = {
    "f32": DType("f32", np.dtype("<f4"), True),
    "f16": DType("f16", np.dtype("<f2"), True),
    "bf16": DType("bf16", np.dtype("<u2"), True),
    "i8": DType("i8", np.dtype("i1"), False),
    "i32": DType("i32", np.dtype("<i4"), False),
    "i64": DType("i64", np.dtype("<i8"), False),
    "i1": DType("i1", np.dtype("u1"), False),
    "i16": DType("i16", np.dtype("<i2"), False),
    "ui8": DType("ui8", np.dtype("u1"), False),
    "ui16": DType("ui16", np.dtype("<u2"), False),
    "ui32": DType("ui32", np.dtype("<u4"), False),
}

_INT_RANGES: Final[dict[str, tuple[int, int]]] = {
    "i8": (-(2**7), 2**7 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "i1": (0, 1),
    "i16": (-(2**15), 2**15 - 1),
    "ui8": (0, 2**8 - 1),
    "ui16": (0, 2**16 - 1),
    "ui32": (0, 2**32 - 1),
}


def dtype(name: str) -> DType:
    """The `DType` called *name*; `KeyError` when it is not a tile/tensor dtype of the subset."""
    return DTYPES[name]


_CHUNK: Final[int] = 1 << 16
"""Elements converted per pass: the rounding steps then run in cache, not in memory."""


def f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (uint16) of f32 *values*, round half to even; NaN stays a quiet NaN."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.reshape(-1).view(np.uint32)
    result = np.empty(bits.size, dtype=np.uint16)
    scratch = np.empty(min(_CHUNK, bits.size), dtype=np.uint32)
    for start in range(0, bits.size, _CHUNK):
        chunk = bits[start:start + _CHUNK]
        rounded = scratch[:chunk.size]
        # + 0x7FFF + lsb, then the high half: ties go to the even pattern
        np.right_shift(chunk, 16, out=rounded)
        np.bitwise_and(rounded, 1, out=rounded)
        np.add(rounded, 0x7FFF, out=rounded)
        np.add(rounded, chunk, out=rounded)
        np.right_shift(rounded, 16, out=rounded)
        result[start:start + _CHUNK] = rounded
    if bits.size and np.isnan(values.max()):
        _quiet_nans(result, bits)
    return result.reshape(values.shape)


def _quiet_nans(result: np.ndarray, bits: np.ndarray) -> None:
    """Set the bf16 pattern of every f32 NaN in *bits*: its high half, made quiet."""
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    result[nan] = ((bits[nan] >> 16) | 0x0040).astype(np.uint16)


def _exact_bf16_view(values: np.ndarray) -> np.ndarray | None:
    """The bf16 patterns of contiguous f32 *values* as a view of their words' high halves, when
    rounding would change nothing: every low half is zero and no value is a NaN (to be quietened)."""
    words = values.reshape(-1).view(np.uint32)
    if not words.size or np.bitwise_or.reduce(words) & 0xFFFF or np.isnan(values.max()):
        return None
    return values.view(np.uint16)[..., 1::2]  # little-endian: the high half comes second


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """f32 values of bf16 bit patterns (exact: the pattern becomes the high half of the word)."""
    return np.left_shift(bits, 16, dtype=np.uint32).view(np.float32)


def narrow(values: np.ndarray, name: str) -> np.ndarray:
    """Storage of dtype *name* holding f32 (or integer) *values*, rounded half to even."""
    dt = DTYPES[name]
    values = np.asarray(values)
    if name == "bf16":
        return f32_to_bf16_bits(values.astype(np.float32, copy=False))
    if dt.is_float:
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(dt.storage)
    if values.dtype.kind == "f":
        low, high = _INT_RANGES[name]
        values = np.nan_to_num(np.rint(values.astype(np.float64)), nan=0.0)
        return np.clip(values, low, high).astype(dt.storage)
    return values.astype(dt.storage)


def widen(storage: np.ndarray, name: str) -> np.ndarray:
    """Values held by *storage* of dtype *name*: f32 for float dtypes, int64 for integers."""
    if name == "bf16":
        return bf16_bits_to_f32(storage)
    if DTYPES[name].is_float:
        return storage.astype(np.float32, copy=False)
    return storage.astype(np.int64)


def to_storage(values: object, name: str, copy: bool = True) -> np.ndarray:
    """Storage of dtype *name* for caller-given *values* (a bf16 uint16 array is taken as bits).

    With `copy=False` the result may share memory with *values* when no conversion is needed.
    f32 values that are all bf16 values already (the usual input) take the cheap path: their words'
    high halves, gathered, instead of a rounding.
    """
    array = np.asarray(values)
    if name == "bf16" and array.dtype != np.uint16:
        array = np.ascontiguousarray(array, dtype=np.float32)
        high = _exact_bf16_view(array)
        return f32_to_bf16_bits(array) if high is None else high.copy()
    if name == "i1":
        return (array != 0).astype(np.uint8)
    return np.array(array, dtype=DTYPES[name].storage, copy=copy or None)


def to_values(storage: np.ndarray, name: str) -> np.ndarray:
    """The caller-facing values of *storage*: bf16 widened to f32, i1 as bool, others as stored."""
    if name == "bf16":
        return bf16_bits_to_f32(storage)
    if name == "i1":
        return storage != 0
    return storage.copy()


def to_bytes(values: object, name: str) -> np.ndarray:
    """Raw little-endian bytes (uint8) of *values* encoded as dtype *name*."""
    storage = np.ascontiguousarray(to_storage(values, name))
    return storage.reshape(-1).view(np.uint8)


def from_bytes(raw: np.ndarray, name: str) -> np.ndarray:
    """Values (see `to_values`) encoded by the little-endian bytes *raw* as dtype *name*."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8).reshape(-1)
    storage = raw.view(DTYPES[name].storage)
    return to_values(storage, name)


ROUND_MODES: Final[dict[str, str]] = {
    "CAST_RINT": "rint", "CAST_ROUND": "round", "CAST_FLOOR": "floor", "CAST_CEIL": "ceil",
    "CAST_TRUNC": "trunc"}
"""`pto.tcvt`'s `rmode` (`#pto<round_mode CAST_X>`) -> its rounding: `rint` to nearest, ties to even;
`round` to nearest, ties away from zero; `floor`, `ceil`, `trunc` directed."""
_INT_ROUNDING: Final[dict[str, Callable[[np.ndarray], np.ndarray]]] = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
                        "round": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x)}


def narrow_rounded(values: np.ndarray, name: str, mode: str) -> np.ndarray:
    """Storage of dtype *name* holding *values* (f32 / f64 / integer) rounded by *mode* (`ROUND_MODES`);
    an integer dtype saturates (NaN -> 0) as `narrow` does."""
    if mode == "rint":
        return narrow(values, name)
    x = np.asarray(values).astype(np.float64)
    if not DTYPES[name].is_float:
        low, high = _INT_RANGES[name]
        with np.errstate(invalid="ignore"):
            return np.clip(np.nan_to_num(_INT_ROUNDING[mode](x), nan=0.0), low, high).astype(DTYPES[name].storage)
    nearest = x.astype(np.float32) if name == "f32" else narrow(x.astype(np.float32), name)
    r = widen(nearest, name).astype(np.float64)
    inexact = np.isfinite(x) & (r != x)
    if not inexact.any():
        return nearest
    xi, ri = x[inexact], r[inexact]
    other = _grid_neighbour(nearest[inexact], ri, xi > ri, name)
    low, high = np.minimum(ri, other), np.maximum(ri, other)
    if mode == "floor":
        picked = low
    elif mode == "ceil":
        picked = high
    elif mode == "trunc":
        picked = np.where(xi > 0, low, high)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            tie = xi == (low + high) / 2
        picked = np.where(tie, np.where(xi > 0, high, low), ri)
    out = nearest.copy()
    out[inexact] = narrow(picked.astype(np.float32), name)  # on the grid: exact
    return out


def _grid_neighbour(storage: np.ndarray, values: np.ndarray, up: np.ndarray, name: str) -> np.ndarray:
    """The next value of dtype *name* after each of *values* (held as *storage*) upward where *up*,
    downward elsewhere, as float64: one step of the bit pattern."""
    if name == "bf16":
        bits = storage.astype(np.int64)
        negative = (bits & 0x8000) != 0
        zero = (bits & 0x7FFF) == 0
        away = up != negative  # a larger magnitude: the pattern grows
        stepped = np.where(away, bits + 1, bits - 1)
        stepped = np.where(zero, np.where(up, 0x0001, 0x8001), stepped)
        return bf16_bits_to_f32(stepped.astype(np.uint16)).astype(np.float64)
    kind = np.float16 if name == "f16" else np.float32
    toward = np.where(up, np.inf, -np.inf).astype(kind)
    with np.errstate(over="ignore"):
        return np.nextafter(storage.astype(kind), toward).astype(np.float64)
