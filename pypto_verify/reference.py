"""The value-semantic reference: what a *source* kernel computes, with no buffers at all.

Owns: an interpreter of the source IR (KERNEL_LANGUAGE.md Form 1 tensor level and Form 2 tile level)
on numpy arrays, the right-hand side of the dynamic check PV201 (L0C_RULES.md "Dynamic check";
`pypto_verify.dynamic` runs it against the simulated PTO). Input: one `ir.Function`, its tensor
arguments (numpy arrays of values) and its runtime scalars. Output: the final contents of every
tensor parameter, as values (`float32` for float dtypes, `int64` for integer ones; a tensor the
kernel only slices, loads or reads from is held and handed back as given, read-only, when its
elements already are values of its dtype — an `int8` array for an INT8 tensor, bf16 values in f32).

Semantics, op by op (TARGET_FACTS.md "Ops around a K reduction"):
- Every value is an array: no windows, no aliasing except GM tensors, which are references updated
  in statement order (docs/ir-conventions.md: a rebound tensor keeps its name).
- `tile.create` / `tensor.create` are zero-filled, like the compiler's own debug backend. This is
  exactly why a reference alone cannot see the L0C defects: only the buffer-accurate simulator,
  whose arenas start poisoned, can.
- Cube math: inputs are read in their dtype (bf16 / f16 values are rounded half to even when they
  enter), products are summed in f64 and rounded to f32 once, the same on every machine (in f32 when
  both operands are windows of inputs the caller drew on `GRID` and K <= 256: every partial sum is then
  exact, so the values are the same; in exact integers, wrapped to i32, for int8 inputs). A matmul
  result is an accumulator value (f32 or i32) whatever the tensor-level dtype says; it is narrowed
  only where the hardware narrows: the FIXPIPE drain into a narrower tensor (store / assemble) or a
  move into a narrower tile, and `cast`. `matmul_acc` is `init_cond ? A@B : acc + A@B`;
  `matmul_bias` adds `bias[0, :]` to every row.
- Leading unit dimensions (`w[e : e + 1, :, k0 : k0 + K]`) are carried through matmuls and dropped
  or added back wherever a value meets a window of the same squeezed shape.
- `tensor.assemble(..., atomic=AtomicType.Add)` / `tile.store(..., atomic=...)` add into GM: the
  value is converted to the tensor's dtype, added in f32 and rounded once.
- Vector ops (`add sub mul div maximum minimum exp relu neg recip rsqrt sqrt log abs muls adds subs
  divs maxs mins fmods`, scalar right operands; `fmods` is C's `fmod`, refused on a zero divisor or
  a dividend with a deviation) compute in f32 (int64 for integers) and round to the result
  dtype; `row_sum/max/min` reduce `[M, N]` to `[M, 1]` and `col_*` to `[1, N]` in f32;
  `row_expand_<op>(x, v)` / `col_expand_<op>(x, v)` (op `add sub mul div max min`) broadcast a
  `[M, 1]` / `[1, N]` v over x, and `row_expand(x, v)` / `col_expand(x, v)` are that broadcast alone (x's
  shape, v's values); `transpose` swaps a 2-D value's axes; `concat(a, b)` joins two 2-D values' columns;
  `gather_row` copies a GM window into its destination in place; `arange(s, [1, N])` is `s + j` along one
  row; `full` fills; `cast` rounds half to even (float to int saturates), or by its
  `mode=` (`round` ties away from zero, `floor`, `ceil`, `trunc`) into an integer or a float dtype;
  `cmp(x, y, cmp_type=k)` is 1 where `x <op> y` holds, else 0, in x's dtype (`k` 0..5: eq ne lt le gt ge; a
  NaN lane is refused), a lane whose deviations could flip it undetermined (a step's deviation).
- `sort32(x, idx)` orders each 32-column block of f32 values descending (equal values in column order), each
  value followed by its index's u32 bits; `mrgsort(p, block_len=n)` merges every four runs of n lanes (an equal
  value from the earlier run first); `gather(p, mask_pattern=P0101 | P1010)` picks the even / odd lanes, read
  in `output_dtype`. Such (value, index) pairs (`Value.pairs`) are read by nothing else but a slice of whole
  pairs: index bits compared as floats would pass any tolerance. Values with a deviation are not sorted.
- Loops of every kind run sequentially (a pipeline stage does not change values; the blocks of a
  `pl.spmd` launch run in turn, `get_block_idx()` reading the innermost one's; with `pl.system.syncall`
  barriers at the top of its body, phase by phase: every block runs up to the barrier before any goes
  on, each resuming its own names); `if`s pick an arm
  and bind the phis; iter_args are carried; `tensor.read` returns an element of a GM tensor.
- `pl.array.create(N, dtype)` is N integers written in place by `arr[i] = v` and read by `arr[i]` (an element read
  before it is written is refused: PyPTO's in-core array is not initialised); a TASK_ID array holds task handles.
- Slices and loads must lie inside their tensor: a window out of range is a `ReferenceError` (so the
  dynamic driver can reject a sample scalar that makes the kernel read out of bounds); with `valid_shape=` only
  the valid region must, and the value is that region (`Value.frame` the window's extents). Ops act on valid
  regions (PyPTO's tile semantics): `fillpad` widens a value to its frame with the pad value (0, or the dtype's
  largest / smallest, an infinity for floats); a `set_validshape` wider than the value reads zeros there (PyPTO's
  debug backend holds a load's padding as zero; the simulator holds poison, so a stored result differs); a
  `matmul_acc` whose accumulator is larger than the product adds the product into its corner.

Deviation (`Value.sigma`, `ReferenceResult.sigma`): next to each value, the reference carries how
far a faithful implementation of the same kernel may stray from its own f32 arithmetic, one standard
deviation per element. Sources: the order of a matmul's K additions, which the lowering changes
(`2**-24 * sqrt(2 K) * (|A| @ |B|)`, the probabilistic bound on the gap between two orders: a
cancelling result is judged against the size of its terms), and every rounding of an uncertain
value, which may land on the other neighbour of the grid (half a spacing of the dtype, in
quadrature). It is carried to first order through every op (`|f'(x)| * sigma` for unary ops,
products and quotients by their partial derivatives, sums in quadrature, max / min by the winner)
and through every window and GM write. Exactly determined values (inputs, integer math, anything
downstream of no matmul) have none; an overflowed element has none (it must be the same infinity).

An op with no semantics here is a `ReferenceError` naming it; the comparison then reports
`skipped`. Layering: imports only `ir` and `ops` (STYLE.md §1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pypto_verify import ops
from pypto_verify.callees import Callee, CallError, bound_callee, call_arguments, split_return
from pypto_verify.scalar import cast_value, default_cast_mode, trip_count
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DType, DictExpr, Eval, Expr, For, Function, If,
    ListExpr, LoopKind, Return, ScalarType, Scope, Stmt, Sym, TensorType, TileType, TupleExpr,
    UnaryOp, Var, Yield, expr_children, stmt_exprs, walk_exprs, walk_stmts,
)


class ReferenceError(Exception):
    """The reference cannot evaluate the kernel: an op it has no semantics for, or a bad window."""


class WindowError(ReferenceError):
    """A slice, load, extract or read outside its tensor (or a division by zero): the kernel's
    runtime scalars are out of range for it."""


@dataclass(eq=False, slots=True)
class Value:
    """An array of values and the element type it stands for.

    `data` holds float32 values already rounded to `dtype` for float dtypes, int64 values already
    wrapped to `dtype` for integer ones (but a window of an int8 input that only matmuls read, which is the
    input's own read-only int8 view: `_Interpreter.narrow`). GM tensors are shared `Value` objects updated in place;
    every other op makes a new one. `k` is the reduction length accumulated into a matmul result
    (used for the comparison's tolerance). `sigma` is the deviation a faithful f32 implementation
    may show from `data` (see "Deviation" in the module docstring): None when exactly determined,
    else a float32 array of `data`'s shape; GM tensors always carry one when the reference tracks deviations
    (shared by their reshapes, so a write through a reshaped tensor reaches it).
    """

    data: np.ndarray
    dtype: DType
    k: int = 0
    sigma: np.ndarray | None = None
    grid: bool = False
    """Every element of `data` is a multiple of `GRID` in [-1, 1] (an input `run_reference` was told is,
    or a window or copy of one): a matmul of two such values is summed exactly in f32 (`_product`)."""
    frame: tuple[int, ...] | None = None
    """The tile's physical extents when `data` is only its valid region (`valid_shape=`, `set_validshape`):
    what a `fillpad` fills out to. Element-wise ops keep their first operand's (PyPTO's type deduction)."""
    pairs: bool = False
    """`sort32` / `mrgsort` (value, index) pairs: each odd lane holds an index's u32 bits, not a float, so only
    `mrgsort` and the P0101 / P1010 mask gathers may read it (`_PAIR_READERS`); the tolerance of a float
    comparison could not tell two such lanes apart."""


@dataclass(frozen=True, slots=True)
class ReferenceResult:
    """The reference's answer: the final tensor parameters, and the longest reduction any matmul
    chain accumulated (the comparison's tolerance grows with it)."""

    outputs: dict[str, np.ndarray]
    """The final tensors by name (a read-only tensor as given: module docstring)."""
    max_k: int
    sigma: dict[str, np.ndarray] = field(default_factory=dict)
    """The deviation (`Value.sigma`) of every output, by name (none, when run without deviations: every one
    is zero)."""
    written: frozenset[str] = frozenset()
    """The tensor parameters some op wrote (the others hold their inputs unchanged)."""


# ---------------------------------------------------------------------------------------------- numerics


def round_bf16(values: np.ndarray, *, in_place: bool = False) -> np.ndarray:
    """float32 *values* rounded half to even to bf16 precision (NaN stays NaN, overflow is inf): a
    new array, or with *in_place* the array itself rounded (when it is a contiguous float32 one)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.reshape(-1).view(np.uint32)
    if not np.bitwise_or.reduce(bits) & 0xFFFF:
        return values if in_place else values.copy()  # every value is a bf16 value already
    out = values if in_place else np.empty_like(values)
    out_bits = out.reshape(-1).view(np.uint32)
    for start in range(0, bits.size, _ROUNDING_CHUNK):
        word = bits[start:start + _ROUNDING_CHUNK]
        # word + 0x7FFF + lsb, truncated to the high half: wraps in 32 bits only for NaN patterns,
        # which keep their own word below
        rounded = np.right_shift(word, np.uint32(16))
        rounded &= np.uint32(1)
        rounded += np.uint32(0x7FFF)
        rounded += word
        rounded &= np.uint32(0xFFFF0000)
        if np.isnan(word.view(np.float32).max()):  # max is NaN exactly when some value is
            nan = np.isnan(word.view(np.float32))
            rounded[nan] = word[nan]
        out_bits[start:start + _ROUNDING_CHUNK] = rounded
    return out


MAX_ITERATIONS = 100_000
"""The most loop iterations (all loops of a kernel together, SPMD blocks included) the reference runs; a
kernel past it is not simulated, with that reason (a bound we have not checked is never looped over)."""

_ROUNDING_CHUNK = 1 << 16
"""Elements rounded at a time by `round_bf16`: its temporaries stay in cache, however large the array."""


_INT_RANGE = {
    DType.INT8: (-(2**7), 2**7 - 1), DType.INT32: (-(2**31), 2**31 - 1),
    DType.INT64: (-(2**63), 2**63 - 1), DType.INDEX: (-(2**63), 2**63 - 1), DType.BOOL: (0, 1),
    DType.INT16: (-(2**15), 2**15 - 1), DType.UINT8: (0, 2**8 - 1), DType.UINT16: (0, 2**16 - 1),
    DType.UINT32: (0, 2**32 - 1), DType.UINT64: (0, 2**63 - 1),  # int64 holds the values the reference meets
}
_ROUNDED_FLOATS = (DType.FP32, DType.FP16, DType.BF16)
"""The float dtypes `to_dtype` rounds to exactly; an 8-bit float has no reference semantics here."""


def to_dtype(values: np.ndarray, dtype: DType, mode: str = "rint") -> np.ndarray:
    """*values* (any numeric array) as the values of *dtype*: float32 rounded half to even for
    float dtypes; int64 for integer ones (floats rounded by *mode* and saturated, ints wrapped)."""
    values = np.asarray(values)
    if dtype.is_float and dtype not in _ROUNDED_FLOATS:
        raise ReferenceError(f"rounding to {dtype.value} is not modelled")
    if dtype is DType.TASK_ID:
        raise ReferenceError("a task handle has no value semantics")
    if dtype.is_float:
        if mode not in ("rint", "none"):
            return _round_directed(values, dtype, mode)
        if dtype is DType.BF16:
            return round_bf16(values)  # a new array, as every conversion here
        as_f32 = values.astype(np.float32)
        if dtype is DType.FP16:
            return as_f32.astype(np.float16).astype(np.float32)
        return as_f32
    lo, hi = _INT_RANGE[dtype]
    if values.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            rounded = _ROUNDING.get(mode, np.rint)(values.astype(np.float64))
            rounded = np.nan_to_num(rounded, nan=0.0, posinf=hi, neginf=lo)
        return np.clip(rounded, lo, hi).astype(np.int64)
    ints = values.astype(np.int64)
    if dtype in (DType.INT64, DType.INDEX):
        return ints
    if values.dtype.kind in "iu" and np.iinfo(values.dtype).min >= lo and np.iinfo(values.dtype).max <= hi \
            and dtype is not DType.BOOL:
        return ints  # every value of the source dtype is one of *dtype*: nothing wraps
    if dtype is DType.BOOL:
        return (ints != 0).astype(np.int64)
    if not ints.size or (ints.min() >= lo and ints.max() <= hi):
        return ints  # nothing wraps (an int32 matmul result, usually): two reductions, not a modulo
    span = hi - lo + 1
    return (ints - lo) % span + lo


_FLOAT_GRID = {DType.FP32: (24, -126, 3.4028234663852886e38), DType.FP16: (11, -14, 65504.0),
               DType.BF16: (8, -126, 3.3895313892515355e38)}
"""Float dtype -> (significant bits, least normal exponent, largest finite value)."""


def _round_directed(values: np.ndarray, dtype: DType, mode: str) -> np.ndarray:
    """*values* rounded to float *dtype* by *mode* (`round`: to nearest, ties away from zero; `floor`,
    `ceil`, `trunc`: directed): the nearest-even result, or where it is inexact its neighbour on the
    other side of the value when the mode picks that one."""
    if mode not in _ROUNDING or dtype not in _FLOAT_GRID:
        raise ReferenceError(f"rounding to {dtype.value} by mode {mode!r} is not modelled")
    x = np.asarray(values).astype(np.float64)
    with np.errstate(over="ignore"):
        nearest = to_dtype(x, dtype).astype(np.float64)
    inexact = np.isfinite(x) & (nearest != x)
    if not inexact.any():
        return nearest.astype(np.float32)
    bits, emin, largest = _FLOAT_GRID[dtype]
    xi, ri = x[inexact], nearest[inexact]
    up = xi > ri
    with np.errstate(invalid="ignore", over="ignore"):
        _, exponent = np.frexp(np.where(np.isfinite(ri), np.abs(ri), largest))
        exponent = np.maximum(np.where(ri == 0, emin, exponent - 1), emin)
        step = np.ldexp(1.0, exponent - bits + 1)
        # moving toward zero from a power of two, the grid below is twice as fine
        finer = (np.abs(ri) == np.ldexp(1.0, exponent)) & (up != (ri > 0)) & (exponent > emin) & (ri != 0)
        step = np.where(finer, step / 2, step)
        other = np.where(np.isinf(ri), np.sign(ri) * largest, ri + np.where(up, step, -step))
    low, high = np.minimum(ri, other), np.maximum(ri, other)
    if mode == "floor":
        picked = low
    elif mode == "ceil":
        picked = high
    elif mode == "trunc":
        picked = np.where(xi > 0, low, high)
    else:  # round: a tie goes away from zero, anything else to the nearest
        with np.errstate(invalid="ignore", over="ignore"):
            tie = xi == (low + high) / 2
        picked = np.where(tie, np.where(xi > 0, high, low), ri)
    out = nearest.copy()
    with np.errstate(invalid="ignore"):
        out[inexact] = np.where(np.abs(picked) > largest, np.sign(picked) * np.inf, picked)
    return out.astype(np.float32)


U32 = 2.0 ** -24
"""The f32 unit roundoff."""
_SPACING_SCALE = {DType.BF16: 2.0 ** 16, DType.FP16: 2.0 ** 13}
"""bf16 / f16 spacing as a multiple of the f32 spacing at the same value (normal range)."""


def _spacing(values: np.ndarray, dtype: DType) -> np.ndarray | float:
    """The distance between adjacent values of *dtype* around *values* (1 for integers)."""
    if not dtype.is_float:
        return 1.0
    with np.errstate(invalid="ignore"):
        base = np.spacing(np.abs(values.astype(np.float32, copy=False)))
    scale = _SPACING_SCALE.get(dtype)
    return base if scale is None else base * np.float32(scale)


def _nonzero(sigma: np.ndarray | None) -> np.ndarray | None:
    """*sigma*, or None when it is absent or all zero (the value is exactly determined)."""
    return sigma if sigma is not None and sigma.size and sigma.any() else None


def _on_grid(src: DType, dst: DType) -> bool:
    """Whether every value of *src* is a value of *dst* (converting it then rounds nothing)."""
    if src is dst:
        return True
    if dst is DType.FP32:
        return src in (DType.BF16, DType.FP16)
    return not src.is_float and not dst.is_float and _INT_RANGE[src][0] >= _INT_RANGE[dst][0] \
        and _INT_RANGE[src][1] <= _INT_RANGE[dst][1]


def _rounded_sigma(result: np.ndarray, sigma: np.ndarray | None, dtype: DType,
                   src: DType | None = None) -> np.ndarray | None:
    """The deviation after rounding to *dtype*: an uncertain value may round to a neighbour of the
    grid point its reference rounds to, so half a spacing is added in quadrature where sigma > 0
    (not when the value was already of a dtype *dtype* holds exactly: *src*)."""
    sigma = _nonzero(sigma)
    if sigma is None:
        return None
    if src is not None and _on_grid(src, dtype):
        return np.broadcast_to(sigma, result.shape).astype(np.float32)
    sigma = np.broadcast_to(sigma, result.shape)
    half = 0.5 * _spacing(result, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        # hypot(sigma, half) where sigma > 0, as the square root of the f64 sum of squares (both
        # squares of f32 values are exact in f64): numpy's hypot takes several times as long; in
        # place, with no temporary the size of the result but the squares
        total = np.square(sigma, dtype=np.float64)
        half_squared = np.square(half, dtype=np.float64)
        np.add(total, half_squared, out=total, where=sigma > 0)
        out = _nan_to_inf(np.sqrt(total, out=total).astype(np.float32))
    # An overflowed (or NaN) reference element is compared exactly: the same infinity.
    overflowed = ~np.isfinite(result)
    if overflowed.any():
        out[overflowed] = np.float32(0)
    return out


def _quadrature(*terms: np.ndarray | None) -> np.ndarray | None:
    """sqrt of the sum of squares of the present *terms* (None when none is present)."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    if len(present) == 1:
        return np.abs(np.asarray(present[0], dtype=np.float32))
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.square(present[0], dtype=np.float64)
        for term in present[1:]:
            total = total + np.square(term, dtype=np.float64)  # the terms may broadcast
        return _nan_to_inf(np.sqrt(total, out=total)).astype(np.float32)


def _nan_to_inf(sigma: np.ndarray) -> np.ndarray:
    """*sigma* (a new array, never negative) with every NaN made infinite, in place."""
    np.copyto(sigma, np.inf, where=np.isnan(sigma))
    return sigma


def _window_data(value: "Value", index: tuple[slice, ...], borrow: bool = False) -> np.ndarray:
    """A copy of `value.data[index]` in the element type of a value (int64 for integers: an input
    tensor held as given may hold them narrower, `run_reference`); with *borrow*, the window itself when
    it may stand for its copy (`_borrowable`)."""
    window = value.data[index]
    if window.dtype.kind in "iu" and window.dtype != np.int64:
        return window.astype(np.int64)
    return window if borrow and _borrowable(value, window) else window.copy()


BORROW_LIMIT = 2 ** 16
"""The most elements a borrowed window holds (`_borrowable`): fewer `GRID` values than this, each below 1 in
magnitude, sum exactly in f32 in any order (every partial sum is a multiple of 2**-8 below 2**16)."""


def _borrowable(value: "Value", window: np.ndarray) -> bool:
    """Whether *window*, a window of *value*, may be used in place of its copy: it is read-only (a view of a
    tensor the kernel only reads, held as given: no op can change it), and every value computed from it is
    the same bit for bit whatever its layout, because its elements are on the `GRID` and few enough that
    any sum of them is exact (`BORROW_LIMIT`; a matmul of GRID values is summed exactly too, `_product`). A
    write into a borrowed window (or a view of one) would have written the copy: `_Borrowed` makes the run
    again copying every window (`run_reference`)."""
    return not window.flags.writeable and window.dtype == np.float32 and window.size <= BORROW_LIMIT \
        and _gridded(value)


class _Borrowed(ValueError):
    """A write reached a read-only value: with windows borrowed, the run is made again copying them."""


def _window_sigma(value: "Value", index: tuple[slice, ...]) -> np.ndarray | None:
    """The nonzero deviation of `value[index]` (a copy), or None."""
    if value.sigma is None or (isinstance(value, _Tensor) and not value.written[0]):
        return None  # a tensor no op wrote holds its exact contents (only `_write_window` sets a sigma)
    window = value.sigma[index]
    return window.copy() if window.any() else None


def _gridded(value: "Value") -> bool:
    """Whether *value*'s elements are on the `GRID` now (a GM tensor: until some op writes it)."""
    return value.grid and not (isinstance(value, _Tensor) and value.written[0])


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_ROUNDING: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "rint": np.rint, "none": np.rint, "round": _round_half_away, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc,
}


def _acc_dtype(dtype: DType) -> DType:
    return ops.acc_dtype(dtype)


GRID = 2.0 ** -8
"""The spacing of the grid `Value.grid` stands for (the dynamic check's float inputs lie on it)."""
GRID_EXACT_K = 256
"""The longest reduction of two `GRID` operands an f32 sum holds exactly: each product is a multiple of
2**-16 of magnitude at most 1, so every partial sum of up to 256 of them is an integer below 2**24 times
2**-16."""


def _product(a: Value, b: Value) -> np.ndarray:
    """`a @ b` as the cube computes it (2-D operands)."""
    if a.dtype.is_float != b.dtype.is_float:
        raise ReferenceError(f"matmul of {a.dtype.value} by {b.dtype.value}")
    if a.dtype.is_float:
        if a.grid and b.grid and a.data.shape[-1] <= GRID_EXACT_K:
            # every partial sum is exact in f32 (GRID_EXACT_K), in whatever order a BLAS takes them: the
            # f64 sum rounded once below, bit for bit, at a third of its cost
            return np.matmul(a.data, b.data)
        # summed in f64 and rounded to f32 once: an f32 BLAS sums in the order its kernel for this CPU
        # chooses, so the reference (and every value a report prints of it) would differ between machines
        # in the last digit; the order's own deviation is modelled by `_product_sigma`
        return np.matmul(a.data.astype(np.float64), b.data.astype(np.float64)).astype(np.float32)
    exact, bound = _int_matmul(a.data, b.data, _INT8_BOUND if a.dtype is DType.INT8 else None,
                               _INT8_BOUND if b.dtype is DType.INT8 else None)
    # no element beyond the bound: wrapping to i32 would change nothing (it would only copy)
    return exact if bound < 2 ** 31 else to_dtype(exact, DType.INT32)


_INT8_BOUND = 2 ** 7
"""The largest `|x|` of an int8 value."""


def _int_matmul(a: np.ndarray, b: np.ndarray, a_bound: int | None = None, b_bound: int | None = None
                ) -> tuple[np.ndarray, int | float]:
    """The exact int64 `a @ b` (a new array), and a bound on its elements' magnitude (infinite when none was
    computed): through float32 BLAS when every partial sum is an exact float32 integer (|a| * |b| * K < 2**24:
    int8 operands up to K = 1023), float64 BLAS when it is an exact float64 one (< 2**53), numpy's integer
    loop otherwise. *a_bound* / *b_bound* bound `|a|` / `|b|` when the operand's dtype does (int8), sparing a
    pass over it. The operands may be of any integer type (a window of an int8 input as it is, `_slice`)."""
    if a.size and b.size:
        bound = (a_bound or _abs_bound(a)) * (b_bound or _abs_bound(b)) * a.shape[-1]
        if bound < 2 ** 24:  # exact in f32 too, whose BLAS takes half the time
            return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.int64), bound
        if bound < 2 ** 53:
            return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.int64), bound
    return np.matmul(a.astype(np.int64), b.astype(np.int64)), float("inf")


def _abs_bound(values: np.ndarray) -> int:
    """A bound on `|values|`: its dtype's for an int8 array (no pass over it), else its largest."""
    if values.dtype == np.int8:
        return _INT8_BOUND
    return int(np.abs(values).max())


def _product_sigma(a: np.ndarray, b: np.ndarray, sa: np.ndarray | None, sb: np.ndarray | None,
                   is_float: bool) -> np.ndarray | None:
    """The deviation of `a @ b`: the inputs' deviations carried through the products, and for
    float inputs the reordering of the K additions (the lowering splits K; the cube's order is not
    numpy's): `U32 * sqrt(2 K) * (|a| @ |b|)`, the probabilistic bound on the two orders' gap."""
    terms: list[np.ndarray] = []
    if is_float:
        k = a.shape[1]
        reorder = np.matmul(np.abs(a.astype(np.float32, copy=False)), np.abs(b.astype(np.float32, copy=False)))
        reorder *= np.float32(U32 * np.sqrt(2.0 * k))
        if sa is None and sb is None:
            return reorder  # the only term, never negative: its own quadrature
        terms.append(reorder)
    with np.errstate(over="ignore", invalid="ignore"):
        if sa is not None:
            terms.append(np.sqrt(np.matmul(np.square(sa, dtype=np.float64), np.square(b, dtype=np.float64))))
        if sb is not None:
            terms.append(np.sqrt(np.matmul(np.square(a, dtype=np.float64), np.square(sb, dtype=np.float64))))
    return _quadrature(*terms)


def _squeeze(shape: tuple[int, ...]) -> tuple[int, ...]:
    dims = list(shape)
    while len(dims) > 2 and dims[0] == 1:
        dims.pop(0)
    return tuple(dims)


def _fit(data: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    """*data* reshaped to *shape* when they differ only by leading unit dimensions."""
    if data.shape == tuple(shape):
        return data
    if _squeeze(data.shape) == _squeeze(tuple(shape)):
        return data.reshape(shape)
    raise ReferenceError(f"{what}: shape {list(data.shape)} does not fit {list(shape)}")


def _sigma_2d(value: Value) -> np.ndarray | None:
    """The nonzero deviation of *value* in the 2-D shape `_as_2d` gives its data."""
    if value.sigma is None:
        return None
    sigma = _nonzero(value.sigma)
    return None if sigma is None else sigma.reshape(_squeeze(value.data.shape))


def _as_2d(value: Value, what: str) -> np.ndarray:
    if value.data.ndim == 2:
        return value.data  # what a reshape to its own shape would view
    squeezed = _squeeze(value.data.shape)
    if len(squeezed) != 2:
        raise ReferenceError(f"{what}: operand of shape {list(value.data.shape)} is not 2-D")
    return value.data.reshape(squeezed)


# ---------------------------------------------------------------------------------------------- interpreter


_VECTOR_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "max": np.maximum, "min": np.minimum,
}
_VECTOR_SCALAR = {"adds": np.add, "muls": np.multiply, "subs": np.subtract, "divs": np.divide,
                  "maxs": np.maximum, "mins": np.minimum, "fmods": np.fmod}
_VECTOR_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "relu": lambda x: np.maximum(x, x.dtype.type(0)), "neg": np.negative,
    "recip": lambda x: np.divide(np.float32(1), x), "rsqrt": lambda x: np.divide(np.float32(1), np.sqrt(x)),
    "sqrt": np.sqrt, "log": np.log, "abs": np.abs,
}
_FLOAT_ONLY = frozenset({"exp", "recip", "rsqrt", "sqrt", "log"})
_VECTOR_REDUCE = {
    "row_sum": (np.add, 1), "row_max": (np.maximum, 1), "row_min": (np.minimum, 1),
    "col_sum": (np.add, 0), "col_max": (np.maximum, 0), "col_min": (np.minimum, 0),
}
"""`[M, N] -> [M, 1]` (row_*) or `[1, N]` (col_*), reduced in f32 (int64 for integers)."""
_EXPAND = {k: _VECTOR_BINARY[k] for k in ("add", "sub", "mul", "div", "max", "min")}
_VECTOR_EXPAND = {**{f"row_expand_{k}": (fn, 1) for k, fn in _EXPAND.items()},
                  **{f"col_expand_{k}": (fn, 0) for k, fn in _EXPAND.items()}}
"""`x op v`, v an `[M, 1]` (row_expand_*) or `[1, N]` (col_expand_*) value broadcast over x."""


class _Stop(Exception):
    """A `Return` statement: stop the function."""


class _Interpreter:
    """Runs one function's statements on an environment of names -> Value | int | bool | float."""

    def __init__(self, fn: Function, deviations: bool = True, callees: Mapping[str, Callee | str] | None = None) -> None:
        self.fn = fn
        self.callees: Mapping[str, Callee | str] = callees or {}
        """The functions a call may name (`call.f`, `extern.f`), run in the call's place (`inline_call`)."""
        self.inlining: tuple[str, ...] = ()
        """The callees running, outermost first."""
        self.deviations = deviations
        """Whether the matmuls give their results a deviation (the only source of one: every other op
        carries its operands'); without, every `Value.sigma` is None or zero."""
        self.env: dict[str, Any] = {}
        self.pairs = False
        """Whether a `sort32` ran: only then are operands checked for pairs (`Value.pairs`)."""
        self.max_k = 0
        self.iterations = 0
        """Loop iterations run so far (`MAX_ITERATIONS`)."""
        self.blocks: list[int] = []
        """The running block index of each enclosing `pl.spmd` loop, innermost last (`get_block_idx`)."""
        self.ranks: Any = None
        """In a multi-rank run: the rank this runs as and the windows it shares (`reference_ranks.RankState`)."""
        self.borrow = False
        """Whether a window of a read-only tensor is borrowed rather than copied (`_borrowable`)."""
        self.parts: dict[int, tuple[Call, ops.MatmulParts]] = {}
        """Each matmul call's operands (`ops.matmul_parts`), by the `id` of the call (kept, so the id stays its)."""
        self.narrow: frozenset[int] = frozenset()
        """The slices of *fn* (the `id` of their call) whose value only matmuls read, as an lhs or rhs (`_uses`): a
        window of an int8 input they take is held as it is, read-only, not widened to int64 (`Value.data`'s
        integer type), as the matmul reads any integer type exactly (`_int_matmul`) and no other op reads it."""

    # statements -------------------------------------------------------------------------
    def body(self, stmts: tuple[Stmt, ...]) -> tuple[Any, ...] | None:
        """Run *stmts*; the values of the `Yield` that ends them, if any."""
        for stmt in stmts:
            if isinstance(stmt, Yield):
                return tuple(self.expr(v) for v in stmt.values)
            self.stmt(stmt)
        return None

    def stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, Assign):
            self.env[stmt.target.name] = self.expr(stmt.value)
        elif isinstance(stmt, Eval):
            self.expr(stmt.value)
        elif isinstance(stmt, For):
            self.loop(stmt)
        elif isinstance(stmt, If):
            arm = stmt.then_body if self._truth(self.expr(stmt.cond), stmt.cond) else stmt.else_body
            yielded = self.body(arm)
            self._bind(stmt.return_vars, yielded, "if")
        elif isinstance(stmt, Scope):
            self.body(stmt.body)
        elif isinstance(stmt, Return):
            for value in stmt.values:
                if isinstance(value, Call) and (value.op == ops.STORE or value.op in self.callees):
                    # `return pl.store(...)`, `return f(...)`: the store, the call's writes, are done before the
                    # function ends (the lowering hoists the call out of the return: the PTO runs it)
                    self.expr(value)
            raise _Stop()
        else:
            raise ReferenceError(f"statement {type(stmt).__name__} has no reference semantics")

    def loop(self, stmt: For) -> None:
        start, stop, step = (self._int(self.expr(e), e) for e in (stmt.start, stmt.stop, stmt.step))
        if step <= 0:
            raise ReferenceError(f"loop step {step} is not positive")
        carries = tuple(self.expr(e) for e in stmt.inits)
        trips = trip_count(start, stop, step)
        self.iterations += trips
        if self.iterations > MAX_ITERATIONS:
            raise ReferenceError(f"the loop at line {stmt.span.line} runs {trips} times; the simulation's "
                                 f"limit is {MAX_ITERATIONS} loop iterations per kernel")
        launch = stmt.kind is LoopKind.SPMD
        if launch and any(_is_barrier(s) for s in stmt.body):
            self._phases(stmt, range(start, stop, step))
            return
        for i in range(start, stop, step):
            self.env[stmt.loop_var.name] = i
            for arg, value in zip(stmt.iter_args, carries):
                self.env[arg.name] = value
            if launch:
                self.blocks.append(i)
            try:
                yielded = self.body(stmt.body)
            finally:
                if launch:
                    self.blocks.pop()
            if stmt.iter_args:
                if yielded is None or len(yielded) != len(stmt.iter_args):
                    raise ReferenceError("loop body does not yield one value per iter_arg")
                carries = yielded
        self._bind(stmt.return_vars, carries, "loop")

    def _phases(self, stmt: For, blocks: range) -> None:
        """A `pl.spmd` loop with `pl.system.syncall` barriers in its body: every block runs a phase (the
        statements up to the next barrier) before any runs the next, resuming its own names."""
        if stmt.iter_args:
            raise ReferenceError("a `pl.spmd` loop with barriers carries values")
        phases: list[list[Stmt]] = [[]]
        for inner in stmt.body:
            if _is_barrier(inner):
                phases.append([])
            elif not isinstance(inner, Yield):
                phases[-1].append(inner)
        envs = {i: dict(self.env) for i in blocks}
        for phase in phases:
            for i in blocks:
                self.env = envs[i]
                self.env[stmt.loop_var.name] = i
                self.blocks.append(i)
                try:
                    for inner in phase:
                        self.stmt(inner)
                finally:
                    self.blocks.pop()
        if blocks:
            self.env = envs[blocks[-1]]

    def _bind(self, names: tuple[Var, ...], values: tuple[Any, ...] | None, what: str) -> None:
        if not names:
            return
        if values is None or len(values) != len(names):
            raise ReferenceError(f"{what} yields {0 if values is None else len(values)} values for "
                                 f"{len(names)} results")
        for name, value in zip(names, values):
            self.env[name.name] = value

    # expressions ------------------------------------------------------------------------
    def expr(self, expr: Expr) -> Any:
        if isinstance(expr, Var):
            if expr.name not in self.env:
                raise ReferenceError(f"`{expr.name}` is read before it is defined")
            return self.env[expr.name]
        if isinstance(expr, Const):
            return expr.value
        if isinstance(expr, Call):  # before the rarer kinds: most visits are of names, literals and calls
            return self.call(expr)
        if isinstance(expr, Sym):
            return expr
        if isinstance(expr, (ListExpr, TupleExpr)):
            return [self.expr(e) for e in expr.items]
        if isinstance(expr, DictExpr):
            return expr
        if isinstance(expr, BinOp):
            return _binop(expr.op, self.expr(expr.lhs), self.expr(expr.rhs))
        if isinstance(expr, Compare):
            a, b = self.expr(expr.lhs), self.expr(expr.rhs)
            if any(isinstance(x, (float, np.floating)) and x != x for x in (a, b)):
                return False  # PyPTO's float comparisons are ordered (`arith.cmpf one` for `!=` too)
            return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                    ">=": a >= b}[expr.op]
        if isinstance(expr, UnaryOp):
            a = self.expr(expr.operand)
            return (not a) if expr.op == "not" else -a
        if isinstance(expr, BoolOp):
            values = [self._truth(self.expr(e), e) for e in expr.operands]
            return all(values) if expr.op == "and" else any(values)
        raise ReferenceError(f"expression {type(expr).__name__} has no reference semantics")

    def _truth(self, value: Any, expr: Expr) -> bool:
        if isinstance(value, (bool, int, np.integer, np.bool_)):
            return bool(value)
        raise ReferenceError(f"condition is not a scalar: {type(value).__name__}")

    def _int(self, value: Any, expr: Expr | None) -> int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
        raise ReferenceError(f"expected an integer, got {value!r}")

    # ops -------------------------------------------------------------------------------
    def inline_call(self, call: Call) -> Any:
        """A call of another function: the callee's source run in its place, its parameters bound to the arguments,
        its blocks the caller's (`get_block_idx()` reads the caller's launch); what it returns (a tuple when
        several values)."""
        callee = self.callees[call.op]
        if isinstance(callee, str):
            raise ReferenceError(f"the call `{call.op}` is not run: {callee}")
        fn = callee.source
        if fn.name in self.inlining or len(self.inlining) >= _MAX_INLINE_DEPTH:
            raise ReferenceError(f"the call of `{fn.name}` is recursive or nests too deeply to run")
        try:
            given = call_arguments(fn, call)
        except CallError as error:
            raise ReferenceError(str(error)) from None
        values = {name: self.expr(expr) for name, expr in given.items()}
        shapes = {p.name: tuple(np.shape(values[p.name].data)) for p in fn.params
                  if isinstance(p.type, TensorType) and isinstance(values[p.name], Value)}
        try:
            fn = bound_callee(fn, shapes)
            body, returned = split_return(fn)
        except CallError as error:
            raise ReferenceError(str(error)) from None
        saved = (self.env, self.callees, self.inlining)
        self.env, self.callees, self.inlining = values, callee.callees, (*self.inlining, fn.name)
        try:
            self.body(body)
            results = tuple(self.expr(e) for e in returned)
        finally:
            self.env, self.callees, self.inlining = saved
        return results[0] if len(results) == 1 else results

    def call(self, call: Call) -> Any:
        op = call.op
        family, _, name = op.partition(".")
        if op in self.callees:
            return self.inline_call(call)
        if self.pairs and op not in _PAIR_READERS:
            self.refuse_pairs(call)
        handler = _HANDLERS.get(op)
        if handler is not None:
            return handler(self, call)
        if family == "distributed":
            from pypto_verify.reference_ranks import HANDLERS

            if op in HANDLERS:
                return HANDLERS[op](self, call)
        if op in ("tensor.min", "tensor.max") and len(call.args) == 2:
            a, b = self.arg(call, 0), self.arg(call, 1)
            if not isinstance(a, Value) and not isinstance(b, Value):  # two scalars: an index clamp
                return min(a, b) if name == "min" else max(a, b)
        if family in ("tile", "tensor"):
            if name in _VECTOR_BINARY or name in _VECTOR_SCALAR:
                return self.vector_binary(call, name)
            if name in _VECTOR_UNARY:
                return self.vector_unary(call, name)
            if name in _VECTOR_REDUCE:
                return self.vector_reduce(call, name)
            if name in _VECTOR_EXPAND:
                return self.vector_expand(call, name)
        raise ReferenceError(f"no reference semantics for `{op}`")

    def arg(self, call: Call, index: int, keyword: str | None = None) -> Any:
        if len(call.args) > index:
            return self.expr(call.args[index])
        if keyword is not None and (kwarg := call.kwarg(keyword)) is not None:
            return self.expr(kwarg)
        raise ReferenceError(f"`{call.op}` is missing operand {index + 1}")

    def refuse_pairs(self, call: Call) -> None:
        """A `ReferenceError` when an operand of *call* is `sort32` pairs (`Value.pairs`)."""
        stack: list[Expr] = [*call.args, *(v for _, v in call.kwargs)]
        while stack:  # a nested call is checked when it is evaluated
            e = stack.pop()
            if isinstance(e, Var) and getattr(self.env.get(e.name), "pairs", False):
                raise ReferenceError(f"`{call.op}` of `{e.name}`, (value, index) pairs whose index lanes are u32 "
                                     "bits, is not modelled (only mrgsort and the P0101 / P1010 mask gathers)")
            if not isinstance(e, Call):
                stack.extend(expr_children(e))

    def value(self, call: Call, index: int, keyword: str | None = None) -> Value:
        value = self.arg(call, index, keyword)
        if not isinstance(value, Value):
            raise ReferenceError(f"`{call.op}` operand {index + 1} is not a tensor or tile")
        return value

    def ints(self, value: Any, what: str) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise ReferenceError(f"{what} is not a list")
        if all(type(v) is int for v in value):  # the usual list of plain ints: `_int` of each is itself
            return tuple(value)
        return tuple(self._int(v, None) for v in value)

    def dtype_kw(self, call: Call, *names: str, position: int | None = None) -> DType | None:
        for name in names:
            dtype = ops.dtype_of_sym(call.kwarg(name))
            if dtype is not None:
                return dtype
        if position is not None and len(call.args) > position:
            return ops.dtype_of_sym(call.args[position])
        return None

    def window(self, src: Value, offsets: tuple[int, ...], shape: tuple[int, ...], what: str
               ) -> tuple[slice, ...]:
        dims = src.data.shape
        if len(offsets) != len(dims) or len(shape) != len(dims):
            # A 2-D window of a 3-D tensor with a leading unit dim, or the other way round.
            if len(offsets) == len(dims) and _squeeze(shape) == _squeeze((1,) * (len(dims) - len(shape)) + tuple(shape)):
                shape = (1,) * (len(dims) - len(shape)) + tuple(shape)
            else:
                raise ReferenceError(f"{what}: window rank {len(shape)} / offsets rank {len(offsets)} "
                                     f"for a tensor of shape {list(dims)}")
        for o, s, d in zip(offsets, shape, dims):
            if o < 0 or s < 0 or o + s > d:
                raise WindowError(f"{what}: window offsets {list(offsets)} sizes {list(shape)} exceed "
                                     f"the shape {list(dims)}")
        return tuple(slice(o, o + s) for o, s in zip(offsets, shape))

    def write(self, dst: Value, offsets: tuple[int, ...], src: Value, atomic: bool, what: str) -> None:
        """GM write: FIXPIPE-narrow *src* into *dst*'s window (adding, under atomic)."""
        index = self.window(dst, offsets, _window_shape(src.data.shape, dst.data.ndim), what)
        _write_window(dst, index, src, atomic, what)
        self.max_k = max(self.max_k, src.k)

    # matmuls ---------------------------------------------------------------------------
    def matmul(self, call: Call) -> Value:
        known = self.parts.get(id(call))
        if known is None or known[0] is not call:
            known = self.parts[id(call)] = (call, ops.matmul_parts(call))
        parts = known[1]
        a, b = self.expr(parts.lhs), self.expr(parts.rhs)
        if not isinstance(a, Value) or not isinstance(b, Value):
            raise ReferenceError(f"`{call.op}` operands are not tensors or tiles")
        a2, b2 = _as_2d(a, call.op), _as_2d(b, call.op)
        sa, sb = _sigma_2d(a), _sigma_2d(b)
        if parts.a_trans:
            a2, sa = a2.T, None if sa is None else sa.T
        if parts.b_trans:
            b2, sb = b2.T, None if sb is None else sb.T
        if a2.shape[1] != b2.shape[0]:
            raise ReferenceError(f"`{call.op}`: {list(a2.shape)} @ {list(b2.shape)}")
        product = _product(Value(a2, a.dtype, grid=_gridded(a)), Value(b2, b.dtype, grid=_gridded(b)))
        sigma = _product_sigma(a2, b2, sa, sb, a.dtype.is_float) if self.deviations else None
        k = a2.shape[1]
        acc_dtype = _acc_dtype(a.dtype)
        batch = tuple(b.data.shape[:-2]) if b.data.ndim > 2 else tuple(a.data.shape[:-2])
        out_shape = (*batch, *product.shape)
        if parts.bias is not None:
            bias = self.expr(parts.bias)
            if not isinstance(bias, Value):
                raise ReferenceError(f"`{call.op}` bias is not a tensor or tile")
            row = bias.data.reshape(-1, bias.data.shape[-1])[0]
            if row.shape[0] != product.shape[1]:
                raise ReferenceError(f"`{call.op}`: bias of {row.shape[0]} for {product.shape[1]} columns")
            product = product + (row.astype(np.float32) if acc_dtype.is_float else row.astype(np.int64))
            bias_sigma = _nonzero(bias.sigma)
            if bias_sigma is not None:
                sigma = _quadrature(sigma, np.broadcast_to(
                    bias_sigma.reshape(-1, bias.data.shape[-1])[0], product.shape))
        if parts.acc is not None:
            acc = self.expr(parts.acc)
            init = parts.init_cond is not None and self._truth(self.expr(parts.init_cond), parts.init_cond)
            if not init:
                if not isinstance(acc, Value):
                    raise ReferenceError(f"`{call.op}` accumulator is not a tensor or tile")
                acc2 = _as_2d(acc, call.op)
                if acc2.shape != product.shape and acc2.ndim == 2 and not batch \
                        and all(a >= p for a, p in zip(acc2.shape, product.shape)):
                    # a product narrower than its accumulator (padded operands) adds into its corner
                    # (PyPTO's tile.matmul_acc: the accumulator's valid region contains the product)
                    product, sigma = _cornered(product, sigma, acc2.shape)
                    out_shape = acc2.shape
                if acc2.shape != product.shape:
                    raise ReferenceError(f"`{call.op}`: accumulator {list(acc2.shape)} for a "
                                         f"{list(product.shape)} product")
                if acc_dtype.is_float:
                    product = np.add(acc2, product, out=product, dtype=np.float32)  # product is ours
                else:
                    product = to_dtype(acc2 + product, DType.INT32)
                sigma = _quadrature(sigma, _sigma_2d(acc))
                k += acc.k
        # a fresh f32 product is already a value of FP32, and an i32 one without a bias (wrapped by `_product`,
        # or by the accumulation) a value of INT32: to_dtype would only copy it
        fresh = product.dtype == np.float32 if acc_dtype is DType.FP32 else \
            acc_dtype is DType.INT32 and parts.bias is None and product.dtype == np.int64
        data = (product if fresh else to_dtype(product, acc_dtype)).reshape(out_shape)
        sigma = _rounded_sigma(data, None if sigma is None else sigma.reshape(out_shape), acc_dtype)
        self.max_k = max(self.max_k, k)
        return Value(data, acc_dtype, k, sigma)

    # vector -----------------------------------------------------------------------------
    def vector_binary(self, call: Call, name: str) -> Value:
        a = self.value(call, 0)
        rhs = self.arg(call, 1)
        fn = _VECTOR_BINARY.get(name) or _VECTOR_SCALAR[name]
        sb = None
        b: np.ndarray | np.number  # a tensor operand, or the scalar of a `*s` form
        if isinstance(rhs, Value):
            rhs = _padded_to(rhs, a.data.shape)
            b = _fit(rhs.data, a.data.shape, call.op) if rhs.data.shape != a.data.shape else rhs.data
            sb = _nonzero(rhs.sigma)
            sb = None if sb is None else _fit(sb, a.data.shape, call.op)
            dtype = a.dtype
            if not (a.dtype.is_float and rhs.dtype.is_float) and a.dtype != rhs.dtype:
                raise ReferenceError(f"`{call.op}` of {a.dtype.value} and {rhs.dtype.value}")
        elif isinstance(rhs, (int, float, np.number)) and not isinstance(rhs, bool):
            b = np.float32(rhs) if a.dtype.is_float else np.int64(rhs)
            dtype = a.dtype
        else:
            raise ReferenceError(f"`{call.op}` right operand is not a tensor, tile or number")
        if name == "fmods":
            _check_remainder(call.op, b, _nonzero(a.sigma))
        if dtype.is_float:
            result = fn(a.data.astype(np.float32), np.asarray(b, dtype=np.float32))
        elif name in ("div", "divs"):
            result = _int_divide(a.data.astype(np.int64), np.asarray(b, dtype=np.int64), call.op)
        else:
            result = fn(a.data.astype(np.int64), np.asarray(b, dtype=np.int64))
        out = self.dtype_kw(call, "dtype") or dtype
        sigma = _binary_sigma(_KIND[name], a.data, b, result, _nonzero(a.sigma), sb)
        data = to_dtype(result, out)
        return Value(data, out, max(a.k, rhs.k if isinstance(rhs, Value) else 0),
                     _rounded_sigma(data, sigma, out), frame=a.frame)

    def vector_reduce(self, call: Call, name: str) -> Value:
        a = self.value(call, 0)
        data = _as_2d(a, call.op)
        if data.size == 0:
            raise ReferenceError(f"`{call.op}` of an empty value")
        reduce, axis = _VECTOR_REDUCE[name]
        values = data.astype(np.float32) if a.dtype.is_float else data.astype(np.int64)
        result = to_dtype(reduce.reduce(values, axis=axis, keepdims=True), a.dtype)
        sigma = _sigma_2d(a)
        if sigma is not None:
            # A sum's deviations add in quadrature; a max / min moves by at most the largest one.
            sigma = (np.sqrt(np.square(sigma, dtype=np.float64).sum(axis=axis, keepdims=True)) if reduce is np.add
                     else sigma.max(axis=axis, keepdims=True))
        frame = None if a.frame is None or len(a.frame) != 2 else \
            _frame((a.frame[0], 1) if axis == 1 else (1, a.frame[1]), result.shape)
        return Value(result, a.dtype, a.k, _rounded_sigma(result, sigma, a.dtype), frame=frame)

    def vector_expand(self, call: Call, name: str) -> Value:
        a, v = self.value(call, 0), self.value(call, 1)
        fn, axis = _VECTOR_EXPAND[name]
        x = _as_2d(a, call.op)
        want = (x.shape[0], 1) if axis == 1 else (1, x.shape[1])
        v = _padded_to(v, want)
        y = _as_2d(v, call.op)
        if y.shape != want:
            raise ReferenceError(f"`{call.op}`: a {list(y.shape)} operand to broadcast over "
                                 f"{list(x.shape)} (expected {list(want)})")
        if a.dtype.is_float != v.dtype.is_float or (not a.dtype.is_float and a.dtype != v.dtype):
            raise ReferenceError(f"`{call.op}` of {a.dtype.value} and {v.dtype.value}")
        if a.dtype.is_float:
            result = fn(x.astype(np.float32), y.astype(np.float32))
        elif name.endswith("_div"):
            result = _int_divide(x.astype(np.int64), y.astype(np.int64), call.op)
        else:
            result = fn(x.astype(np.int64), y.astype(np.int64))
        out = self.dtype_kw(call, "dtype") or a.dtype
        sigma = _binary_sigma(name.rpartition("_")[2], x, y, result, _sigma_2d(a), _sigma_2d(v))
        data = to_dtype(result, out).reshape(a.data.shape)
        sigma = None if sigma is None else np.broadcast_to(sigma, result.shape).reshape(a.data.shape)
        return Value(data, out, max(a.k, v.k), _rounded_sigma(data, sigma, out), frame=a.frame)

    def vector_unary(self, call: Call, name: str) -> Value:
        a = self.value(call, 0)
        if name in _FLOAT_ONLY and not a.dtype.is_float:
            raise ReferenceError(f"`{call.op}` of an integer tile")
        with np.errstate(over="ignore"):
            data = a.data.astype(np.float32) if a.dtype.is_float else a.data
            result = _VECTOR_UNARY[name](data)
        sigma = _unary_sigma(name, data, result, _nonzero(a.sigma))
        out = to_dtype(result, a.dtype)
        return Value(out, a.dtype, a.k, _rounded_sigma(out, sigma, a.dtype), frame=a.frame)


_KIND = {"add": "add", "adds": "add", "sub": "sub", "subs": "sub", "mul": "mul", "muls": "mul",
         "div": "div", "divs": "div", "maximum": "max", "max": "max", "maxs": "max",
         "minimum": "min", "min": "min", "mins": "min", "fmods": "fmod"}
"""Vector op name -> its arithmetic (for the deviation rules)."""


def _binary_sigma(kind: str, x: Any, y: Any, r: np.ndarray, sx: np.ndarray | None,
                  sy: np.ndarray | None) -> np.ndarray | None:
    """The deviation of `r = x <kind> y` from those of its operands (first order)."""
    if sx is None and sy is None:
        return None
    if kind in ("max", "min"):
        return _extremum_sigma(kind, x, y, r, sx, sy)
    ax, ay, ar = (np.abs(np.asarray(v, dtype=np.float32)) for v in (x, y, r))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if kind == "mul":
            return _quadrature(None if sx is None else sx * ay, None if sy is None else sy * ax)
        if kind == "div":
            return _quadrature(None if sx is None else sx / ay, None if sy is None else sy * ar / ay)
    return _quadrature(sx, sy)  # add / sub


def _extremum_sigma(kind: str, x: Any, y: Any, r: np.ndarray, sx: np.ndarray | None,
                    sy: np.ndarray | None) -> np.ndarray:
    """max / min: the winner's deviation where it wins by more than both deviations (the other
    operand cannot overtake it), else the larger of the two."""
    sx, sy, xs, ys = (np.broadcast_to(np.asarray(0 if v is None else v, dtype=np.float32), r.shape)
                      for v in (sx, sy, x, y))
    with np.errstate(over="ignore", invalid="ignore"):
        clear = np.abs(xs - ys) > sx + sy
        winner = np.where((xs >= ys) == (kind == "max"), sx, sy)
    return np.where(clear, winner, np.maximum(sx, sy))


def _unary_sigma(name: str, x: np.ndarray, r: np.ndarray, sx: np.ndarray | None) -> np.ndarray | None:
    """The deviation of `r = f(x)`: `|f'(x)| * sx`."""
    if sx is None:
        return None
    x, r = np.abs(np.asarray(x, dtype=np.float32)), np.abs(np.asarray(r, dtype=np.float32))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        slope = {"exp": r, "recip": r * r, "rsqrt": np.float32(0.5) * r * r * r,
                 "sqrt": np.float32(0.5) / r, "log": np.float32(1) / x}.get(name)
        if slope is None:
            return sx
        # A result insensitive to its input (1 / inf) stays exact whatever the input's deviation.
        return np.where(slope == 0, np.float32(0), _nan_to_inf(sx * slope))


def _check_remainder(what: str, divisor: Any, sigma: np.ndarray | None) -> None:
    """`fmods` (C's `fmod`, exact) is computed only where its result is known: a zero divisor is
    target-defined, and a dividend carrying a deviation may cross a multiple of the divisor (the
    remainder jumps by the divisor there), which no first-order deviation bounds."""
    if np.any(np.asarray(divisor) == 0):
        raise ReferenceError(f"`{what}`: remainder by zero (target-defined)")
    if sigma is not None:
        raise ReferenceError(f"`{what}` of a value with a rounding deviation: the remainder is not "
                             "continuous in its dividend")


def _int_divide(x: np.ndarray, y: np.ndarray, what: str) -> np.ndarray:
    """Integer division truncating toward zero (as the vector unit does)."""
    if np.any(y == 0):
        raise WindowError(f"`{what}`: integer division by zero")
    q = np.abs(x) // np.abs(y)
    return np.where((x >= 0) == (y >= 0), q, -q)


def _window_shape(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    dims = list(shape)
    while len(dims) > rank and dims[0] == 1:
        dims.pop(0)
    while len(dims) < rank:
        dims.insert(0, 1)
    return tuple(dims)


def _binop(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "//":
        if b == 0:
            raise WindowError("integer division by zero")
        return a // b
    if op == "%":
        if b == 0:
            raise WindowError("integer modulo by zero")
        return a % b
    if op == "/":
        return a / b
    if op == "**":
        return a ** b
    if op == "min":
        return min(a, b)
    if op == "max":
        return max(a, b)
    raise ReferenceError(f"scalar operator {op}")


# ---------------------------------------------------------------------------------------------- op handlers


def _create(it: _Interpreter, call: Call) -> Value:
    shape = it.ints(it.arg(call, 0, "shape"), f"`{call.op}` shape")
    dtype = it.dtype_kw(call, "dtype", position=1)
    if dtype is None:
        raise ReferenceError(f"`{call.op}` has no dtype")
    data = np.zeros(shape, dtype=np.float32 if dtype.is_float else np.int64)
    if call.op == ops.T_CREATE:
        return _Tensor(data, dtype, sigma=_zero_sigma(data.shape, it.deviations))
    return Value(data, dtype)


def _full(it: _Interpreter, call: Call) -> Value:
    shape = it.ints(it.arg(call, 0, "shape"), f"`{call.op}` shape")
    fill = call.kwarg("value")
    fill_value = it.expr(fill) if fill is not None else it.arg(call, 1)
    dtype = it.dtype_kw(call, "dtype", position=2) or DType.FP32
    data = to_dtype(np.full(shape, fill_value, dtype=np.float64), dtype)
    return Value(data, dtype)


def _slice(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    shape = it.ints(it.arg(call, 1, "shape"), f"`{call.op}` shape")
    offsets = it.ints(it.arg(call, 2, "offsets"), f"`{call.op}` offsets")
    valid = call.args[3] if len(call.args) > 3 else call.kwarg("valid_shape")
    if src.pairs and (valid is not None or len(shape) != 2 or offsets[-1] % 2 or shape[-1] % 2):
        it.refuse_pairs(call)  # only a window of whole (value, index) pairs is pairs again
    if valid is not None:
        # A padded window: only its valid region need lie inside the tensor (the rest is padding, PV107)
        extent = it.ints(it.expr(valid), f"`{call.op}` valid_shape")
        if len(extent) != len(shape) or any(not 0 <= v <= s for v, s in zip(extent, shape)):
            raise ReferenceError(f"`{call.op}`: valid shape {list(extent)} for a window of {list(shape)}")
        index = it.window(src, offsets, extent, f"`{call.op}`")
        data = _window_data(src, index)  # a copy: a padded value is widened (`fillpad`)
        sigma = _nonzero(_window_sigma(src, index))  # a copy too
        return Value(data, src.dtype, sigma=sigma, grid=_gridded(src), frame=_frame(shape, data.shape))
    index = it.window(src, offsets, shape, f"`{call.op}`")
    window = src.data[index]
    # an int8 input's window only matmuls read (`_Interpreter.narrow`), of a tensor no op writes (read-only)
    narrow = src.dtype is DType.INT8 and window.dtype == np.int8 and not window.flags.writeable \
        and id(call) in it.narrow
    data = window if narrow else _window_data(src, index, it.borrow)
    sigma = _nonzero(_window_sigma(src, index))
    return Value(data.reshape(shape), src.dtype, sigma=None if sigma is None else sigma.reshape(shape),
                 grid=_gridded(src), pairs=src.pairs)


def _set_validshape(it: _Interpreter, call: Call) -> Value:
    """The valid region `[:rows, :cols]` of a 2-D value: PyPTO's `set_validshape` moves no data, and
    what a drain of its result writes (and any op on it reads) is that region."""
    src = it.value(call, 0)
    rows, cols = it.ints([it.arg(call, 1, "valid_rows"), it.arg(call, 2, "valid_cols")], f"`{call.op}` extents")
    if src.data.ndim != 2:
        raise ReferenceError(f"`{call.op}` of a {src.data.ndim}-D value")
    frame = src.frame if src.frame is not None else src.data.shape
    if not (0 <= rows <= frame[0] and 0 <= cols <= frame[1]):
        raise WindowError(f"`{call.op}`: valid shape {rows}x{cols} exceeds {list(frame)}")
    if rows > src.data.shape[0] or cols > src.data.shape[1]:
        # Widened into padding nothing filled: zeros, as PyPTO's debug backend holds a load's padding (the
        # simulator's arenas hold poison there, so a result that reaches a store differs)
        data = np.zeros((max(rows, src.data.shape[0]), max(cols, src.data.shape[1])), dtype=src.data.dtype)
        data[:src.data.shape[0], :src.data.shape[1]] = src.data
        src = Value(data, src.dtype, src.k, None, False)
    sigma = None if src.sigma is None else src.sigma[:rows, :cols].copy()
    return Value(src.data[:rows, :cols].copy(), src.dtype, src.k, sigma, _gridded(src), _frame(frame, (rows, cols)))


def _fillpad(it: _Interpreter, call: Call) -> Value:
    """PyPTO's `fillpad`: the value out to its tile's whole extents (`Value.frame`), the padding set to
    zero, or the dtype's largest / smallest value (an infinity for a float dtype, PTO's `PadValue`)."""
    src = it.value(call, 0)
    pad = call.kwarg("pad_value")
    mode = pad.path.rpartition(".")[2] if isinstance(pad, Sym) else None
    if mode not in ("zero", "max", "min"):
        raise ReferenceError(f"`{call.op}` needs pad_value PadValue.zero, .max or .min")
    frame = src.frame if src.frame is not None else src.data.shape
    if mode == "zero":
        fill: float = 0.0
    elif src.dtype.is_float:
        fill = np.inf if mode == "max" else -np.inf
    else:
        low, high = _INT_RANGE[src.dtype]
        fill = high if mode == "max" else low
    data = np.full(frame, fill, dtype=src.data.dtype)
    index = tuple(slice(0, n) for n in src.data.shape)
    data[index] = src.data
    sigma = None
    if src.sigma is not None:
        sigma = np.zeros(frame, np.float32)
        sigma[index] = src.sigma
    return Value(data, src.dtype, src.k, sigma, _gridded(src) and mode == "zero")


def _cornered(product: np.ndarray, sigma: np.ndarray | None, shape: tuple[int, ...]
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """*product* (and its deviation) in the top-left corner of zeros of *shape*: what adding it into a larger
    accumulator adds."""
    index = tuple(slice(0, n) for n in product.shape)
    widened = np.zeros(shape, dtype=product.dtype)
    widened[index] = product
    if sigma is None:
        return widened, None
    wide_sigma = np.zeros(shape, dtype=sigma.dtype)
    wide_sigma[index] = sigma
    return widened, wide_sigma


def _padded_to(v: Value, shape: tuple[int, ...]) -> Value:
    """*v* read over *shape*, its top-left corner (an op iterates over its result's valid region): a larger
    valid region is cut; a narrower one within its frame is read into its padding, as zeros, what PyPTO's
    debug backend holds there (the simulator holds poison, so a result that reaches a store differs); else
    *v* as it is (the op then refuses a shape it cannot use)."""
    shape = tuple(shape)
    if v.data.shape == shape or v.data.ndim != len(shape):
        return v
    frame = v.frame if v.frame is not None else v.data.shape
    if any(f < n for f, n in zip(frame, shape)):
        return v
    if any(d < n for d, n in zip(v.data.shape, shape)):
        data, sigma = _cornered(v.data, v.sigma, tuple(max(d, n) for d, n in zip(v.data.shape, shape)))
        v = Value(data, v.dtype, v.k, sigma, False)
    index = tuple(slice(0, n) for n in shape)
    return Value(v.data[index].copy(), v.dtype, v.k, None if v.sigma is None else v.sigma[index].copy(), v.grid)


def _frame(frame: tuple[int, ...], valid: tuple[int, ...]) -> tuple[int, ...] | None:
    """*frame* when it is larger than the *valid* extents it holds, else None (the value is whole)."""
    return tuple(frame) if tuple(frame) != tuple(valid) else None


def _write_window(dst: Value, index: tuple[slice, ...], src: Value, atomic: bool, what: str) -> None:
    """Narrow *src* to *dst*'s dtype into `dst[index]` (adding under *atomic*), deviation included."""
    if not dst.data.flags.writeable:
        raise _Borrowed(f"{what}: a write into a read-only value")
    target_shape = dst.data[index].shape
    converted = to_dtype(src.data, dst.dtype)
    data = _fit(converted, target_shape, what)
    sigma = _rounded_sigma(converted, src.sigma, dst.dtype, src.dtype)
    sigma = None if sigma is None else _fit(sigma, target_shape, what)
    if atomic:
        old = dst.data[index]
        if dst.dtype.is_float:
            data = to_dtype(old.astype(np.float32) + data.astype(np.float32), dst.dtype)
        else:
            data = to_dtype(old + data, dst.dtype)
        old_sigma = None if dst.sigma is None else dst.sigma[index]
        sigma = _rounded_sigma(data, _quadrature(_nonzero(old_sigma), sigma), dst.dtype)
    dst.data[index] = data
    dst.grid = False
    if isinstance(dst, _Tensor):
        dst.written[0] = True
    if sigma is not None and dst.sigma is None:
        dst.sigma = np.zeros(dst.data.shape, np.float32)
    if dst.sigma is not None:
        dst.sigma[index] = 0 if sigma is None else sigma


def _assemble(it: _Interpreter, call: Call) -> Value:
    dst = it.value(call, 0)
    src = it.value(call, 1)
    offsets = it.ints(it.arg(call, 2, "offsets"), f"`{call.op}` offsets")
    atomic = _is_atomic(call.kwarg("atomic"))
    if call.op == ops.ASSEMBLE:
        # Tile level (Acc -> Mat window): value semantics, a new tile.
        result = Value(dst.data.copy(), dst.dtype, max(dst.k, src.k),
                       None if dst.sigma is None else dst.sigma.copy())
        index = it.window(result, offsets, _window_shape(src.data.shape, dst.data.ndim), f"`{call.op}`")
        _write_window(result, index, src, atomic, call.op)
        return result
    it.write(dst, offsets, src, atomic, f"`{call.op}`")
    return dst


def _is_atomic(expr: Expr | None) -> bool:
    return isinstance(expr, Sym) and expr.path.endswith("Add")


def _load(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    offsets = it.ints(it.arg(call, 1, "offsets"), f"`{call.op}` offsets")
    shape = it.ints(it.arg(call, 2, "shape"), f"`{call.op}` shape")
    valid_expr = call.args[3] if len(call.args) > 3 else call.kwarg("valid_shape")
    extent = it.ints(it.expr(valid_expr), f"`{call.op}` valid shape") if valid_expr is not None else shape
    index = it.window(src, offsets, extent, f"`{call.op}`")
    data = _window_data(src, index, it.borrow and tuple(extent) == tuple(shape))
    sigma = _nonzero(_window_sigma(src, index))
    if tuple(extent) == tuple(shape):
        data = _fit(data, shape, call.op)
        sigma = None if sigma is None else _fit(sigma, shape, call.op)
    return Value(data, src.dtype, sigma=sigma, grid=_gridded(src), frame=_frame(shape, extent))


def _store(it: _Interpreter, call: Call) -> Value:
    tile = it.value(call, 0)
    offsets = it.ints(it.arg(call, 1, "offsets"), f"`{call.op}` offsets")
    dst = it.value(call, 2, "output_tensor")
    it.write(dst, offsets, tile, _is_atomic(call.kwarg("atomic")), f"`{call.op}`")
    return dst


def _extract(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    row, col = it._int(it.arg(call, 1), None), it._int(it.arg(call, 2), None)
    shape = it.ints(it.arg(call, 3, "shape"), f"`{call.op}` shape")
    data = _as_2d(src, call.op)
    rows, cols = _squeeze(shape)[-2:] if len(shape) >= 2 else (1, shape[0])
    if row < 0 or col < 0 or row + rows > data.shape[0] or col + cols > data.shape[1]:
        raise WindowError(f"`{call.op}`: window [{row}:{row + rows}, {col}:{col + cols}] exceeds "
                             f"{list(data.shape)}")
    sigma = _sigma_2d(src)
    window = (slice(row, row + rows), slice(col, col + cols))
    return Value(data[window].copy().reshape(shape), src.dtype,
                 sigma=None if sigma is None else sigma[window].copy().reshape(shape), grid=_gridded(src))


def _converted(src: Value, dtype: DType, mode: str = "rint") -> Value:
    """*src* converted to *dtype* (a move, a cast), its deviation rounded along."""
    data = to_dtype(src.data, dtype, mode)
    # a GRID value is exact in every float dtype the reference rounds to: converting it changes nothing
    return Value(data, dtype, src.k, _rounded_sigma(data, src.sigma, dtype, src.dtype),
                 _gridded(src) and dtype in _ROUNDED_FLOATS, src.frame)


def _move(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    return _converted(src, it.dtype_kw(call, "dtype", "target_type") or src.dtype)


def _transpose_view(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    sigma = _sigma_2d(src)
    return Value(_as_2d(src, call.op).T.copy(), src.dtype, src.k,
                 None if sigma is None else sigma.T.copy(), _gridded(src))


def _cast(it: _Interpreter, call: Call) -> Value | int | bool | float:
    dtype = it.dtype_kw(call, "target_type", "dtype", position=1)
    if dtype is None:
        raise ReferenceError(f"`{call.op}` has no target type")
    operand = it.arg(call, 0)
    if isinstance(operand, (bool, int, float, np.generic)):  # a scalar's cast (`pl.cast(n, pl.INDEX)`)
        if not default_cast_mode(call.kwarg("mode")):
            raise ReferenceError(f"`{call.op}` of a scalar with a `mode=` other than the default (PyPTO refuses it)")
        try:
            return cast_value(operand.item() if isinstance(operand, np.generic) else operand, dtype)
        except ValueError as error:
            raise ReferenceError(f"`{call.op}`: {error}") from None
    src = it.value(call, 0)
    mode = call.kwarg("mode")
    mode_name = mode.value if isinstance(mode, Const) and isinstance(mode.value, str) else "rint"
    return _converted(src, dtype, mode_name)


def _broadcast(it: _Interpreter, call: Call) -> Value:
    """`row_expand(x, v)`: `v[:, 0]` along every row of x's shape; `col_expand(x, v)`: `v[0, :]` down every
    column. x gives the shape and dtype; its values are not read."""
    target, v = it.value(call, 0), it.value(call, 1)
    x = _as_2d(target, call.op)
    want = (x.shape[0], 1) if call.op.endswith("row_expand") else (1, x.shape[1])
    v = _padded_to(v, want)
    y = _as_2d(v, call.op)
    if y.shape != want:
        raise ReferenceError(f"`{call.op}`: a {list(y.shape)} operand to broadcast over {list(x.shape)} "
                             f"(expected {list(want)})")
    if v.dtype != target.dtype:
        raise ReferenceError(f"`{call.op}` of a {v.dtype.value} operand into a {target.dtype.value} shape")
    data = np.broadcast_to(y, x.shape).reshape(target.data.shape).copy()
    sigma = _sigma_2d(v)
    return Value(data, target.dtype, v.k,
                 None if sigma is None else np.broadcast_to(sigma, x.shape).reshape(target.data.shape).copy())


def _reshape(it: _Interpreter, call: Call) -> Value:
    src = it.value(call, 0)
    shape = it.ints(it.arg(call, 1, "shape"), f"`{call.op}` shape")
    if src.frame is not None and int(np.prod(shape)) == int(np.prod(src.frame)):
        return _padded_reshape(src, tuple(shape))
    if int(np.prod(shape)) != src.data.size:
        raise ReferenceError(f"`{call.op}`: {list(src.data.shape)} to {list(shape)}")
    # A reshaped GM tensor is a view of the same memory: writes through it reach the original.
    sigma = None if src.sigma is None else src.sigma.reshape(shape)
    if isinstance(src, _Tensor):
        return _Tensor(src.data.reshape(shape), src.dtype, src.k, sigma, src.grid, written=src.written)
    return Value(src.data.reshape(shape), src.dtype, src.k, sigma, src.grid)


def _padded_reshape(src: Value, shape: tuple[int, ...]) -> Value:
    """A reshape of a padded value (`Value.frame`): of a vector into a vector, its valid prefix keeps its length
    (`ops.reshaped_valid`); any other is whole, its padding zeros (what PyPTO's debug backend holds there)."""
    def axis(dims: tuple[int, ...]) -> int | None:
        wide = [i for i, d in enumerate(dims) if d != 1]
        return wide[0] if len(wide) == 1 else None

    assert src.frame is not None
    kept = [(f, v) for f, v in zip(src.frame, src.data.shape) if f != 1]
    if [f for f, _ in kept] == [n for n in shape if n != 1]:
        # only unit dims added or dropped: the valid region keeps its extents
        extents = iter(v for _, v in kept)
        valid = tuple(next(extents) if n != 1 else 1 for n in shape)
        sigma = None if src.sigma is None else src.sigma.reshape(valid)
        return Value(src.data.reshape(valid), src.dtype, src.k, sigma, src.grid, _frame(shape, valid))
    a, b = axis(src.frame), axis(shape)
    if a is not None and b is not None and all(n == 1 for i, n in enumerate(src.data.shape) if i != a):
        valid = tuple(src.data.shape[a] if i == b else 1 for i in range(len(shape)))
        sigma = None if src.sigma is None else src.sigma.reshape(valid)
        return Value(src.data.reshape(valid), src.dtype, src.k, sigma, src.grid, _frame(shape, valid))
    whole, sigma = _cornered(src.data, src.sigma, src.frame)
    return Value(whole.reshape(shape), src.dtype, src.k, None if sigma is None else sigma.reshape(shape))


def _read(it: _Interpreter, call: Call) -> int | float:
    src = it.value(call, 0)
    index = it.ints(it.arg(call, 1, "indices"), f"`{call.op}` indices")
    try:
        element = src.data[tuple(index)] if len(index) == src.data.ndim else src.data.reshape(-1)[index[0]]
    except IndexError:
        raise WindowError(f"`{call.op}`: index {list(index)} out of range {list(src.data.shape)}") from None
    return int(element) if not src.dtype.is_float else float(element)


def _element_read(it: _Interpreter, call: Call) -> int | float:
    """`tensor.read` / `tile.read(t, [i, j])`: an element. A scalar carries no deviation, so an element
    known only within one (a matmul's) is refused rather than read as exact."""
    src = it.value(call, 0)
    element = _read(it, call)
    sigma = _nonzero(src.sigma)
    if sigma is not None:
        index = it.ints(it.arg(call, 1, "indices"), f"`{call.op}` indices")
        at = sigma[tuple(index)] if len(index) == sigma.ndim else sigma.reshape(-1)[index[0]]
        if at != 0:
            raise ReferenceError(f"`{call.op}` of an element with a rounding deviation: a scalar carries none")
    return element


def _gather(it: _Interpreter, call: Call) -> Value:
    """`gather(x, dim=-1, index=i)`: `out[r, k] = x[r, i[r, k]]` (PyPTO's torch-style last-axis gather);
    `tile.gather(x, i, tmp)`: `out[r, k] = x_flat[i[r, k]]` (the instruction's flat index form, `tmp` its
    scratch). An index outside its row (or outside *x*) is the kernel's error."""
    if call.kwarg("mask_pattern") is not None:
        return _gather_mask(it, call)
    src = it.value(call, 0)
    if src.pairs:
        it.refuse_pairs(call)
    by_row = call.kwarg("index") is not None
    index = it.value(call, 1, "index") if not by_row else it.arg(call, 99, "index")
    dim = it.arg(call, 1, "dim") if by_row else None
    if by_row and isinstance(index, Value) and index.data.ndim == 2 == src.data.ndim \
            and index.data.shape[0] > src.data.shape[0]:
        # a row per index row: a source of fewer valid rows is read into its padding (`_padded_to`), as the row
        # gathers the emitter makes read it (the simulator holds poison there: a result reaching a store differs)
        src = _padded_to(src, (index.data.shape[0], src.data.shape[1]))
    if not isinstance(index, Value) or index.dtype.is_float or src.data.ndim != 2 or index.data.ndim != 2 \
            or (by_row and (dim not in (-1, 1) or index.data.shape[0] != src.data.shape[0])):
        raise ReferenceError(f"`{call.op}` of other than integer indices into a 2-D value along its last axis")
    if _nonzero(index.sigma) is not None:
        raise ReferenceError(f"`{call.op}` indices with a rounding deviation")
    rows, cols = src.data.shape
    picked = index.data.astype(np.int64)
    if by_row:
        picked = picked + np.arange(index.data.shape[0], dtype=np.int64)[:, None] * cols
        outside = (index.data < 0) | (index.data >= cols)
    else:
        outside = (picked < 0) | (picked >= rows * cols)
    if outside.any():
        at = [int(k) for k in np.argwhere(outside)[0]]
        raise WindowError(f"`{call.op}`: index {int(index.data[tuple(at)])} at {at} is outside {list(src.data.shape)}")
    sigma = _nonzero(src.sigma)
    return Value(src.data.reshape(-1)[picked], src.dtype, src.k,
                 None if sigma is None else sigma.reshape(-1)[picked], _gridded(src))


def _sort32(it: _Interpreter, call: Call) -> Value:
    """`sort32(src, idx)`: each 32-column block of every row of the f32 *src* sorted descending, equal values in
    their column order, each value followed by the u32 bits of its *idx* element (PyPTO's TSORT32; pairs, so
    `Value.pairs`). Values with a deviation are refused: their order is not determined."""
    src, idx = it.value(call, 0), it.value(call, 1)
    if src.dtype is not DType.FP32 or idx.dtype.is_float or src.data.ndim != 2 or idx.data.shape != src.data.shape \
            or src.data.shape[1] % 32:
        raise ReferenceError(f"`{call.op}` of other than f32 values and integer indices of one 2-D shape, "
                             "whole 32-column blocks")
    if _nonzero(src.sigma) is not None:
        raise ReferenceError(f"`{call.op}` of values with a rounding deviation: their order is not determined")
    if np.isnan(src.data).any():
        raise ReferenceError(f"`{call.op}` of a NaN: its place in the order is not modelled")
    rows, cols = src.data.shape
    keys = src.data.astype(np.float32).reshape(rows, cols // 32, 32)
    order = np.argsort(-keys, axis=2, kind="stable")
    bits = idx.data.astype(np.int64).astype(np.uint32).view(np.float32).reshape(rows, cols // 32, 32)
    pairs = np.stack((np.take_along_axis(keys, order, axis=2), np.take_along_axis(bits, order, axis=2)), axis=3)
    it.pairs = True
    return Value(pairs.reshape(rows, 2 * cols), DType.FP32, pairs=True)


DEVIATIONS = 6.0
"""How many deviations (`Value.sigma`) an element of a faithful implementation may be off by (the comparison's
slack, `dynamic.DEVIATIONS`)."""
_PREDICATES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
_COMPARES = {code: _PREDICATES[name] for code, name in enumerate(ops.CMP_MODES)}
"""PyPTO's `cmp_type` codes (`ops.CMP_MODES`: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge) -> the predicate."""


def _lanes(it: _Interpreter, call: Call) -> tuple[Value, np.ndarray, np.ndarray | None]:
    """The lanes of `cmp(x, y, cmp_type=k)` (`y` a scalar or a value of x's shape): x, where `x <op> y` holds, and
    where the operands' deviations could carry x across y (`|x - y| <= DEVIATIONS * sigma`; None when nowhere). A
    NaN lane is refused: its compare on the hardware is not modelled."""
    code = ops.const_int(call.kwarg("cmp_type") or Const(0))
    predicate = _COMPARES.get(code) if code is not None else None
    if predicate is None:
        raise ReferenceError(f"`{call.op}` with a cmp_type other than a constant 0..5")
    x = it.value(call, 0)
    rhs = it.arg(call, 1)
    sy: np.ndarray | None = None
    y: np.ndarray | np.number  # a value of x's shape, or the scalar
    if isinstance(rhs, Value):
        if rhs.data.shape != x.data.shape or rhs.dtype is not x.dtype:
            raise ReferenceError(f"`{call.op}` of values of different shapes or dtypes")
        y = rhs.data.astype(np.float32) if x.dtype.is_float else rhs.data
        sy = _nonzero(rhs.sigma)
    elif isinstance(rhs, (int, float, np.number)) and not isinstance(rhs, bool):
        y = np.float32(rhs) if x.dtype.is_float else np.int64(rhs)
    else:
        raise ReferenceError(f"`{call.op}` right operand is not a tensor, tile or number")
    a = x.data.astype(np.float32) if x.dtype.is_float else x.data
    if x.dtype.is_float and (np.isnan(a).any() or np.isnan(y).any()):
        raise ReferenceError(f"`{call.op}` of a NaN: its compare on the hardware is not modelled")
    spread = _quadrature(_nonzero(x.sigma), None if sy is None else np.broadcast_to(sy, a.shape))
    undecided = None
    if spread is not None:
        with np.errstate(invalid="ignore"):
            undecided = np.abs(a.astype(np.float64) - y) <= DEVIATIONS * spread
    return x, predicate(a, np.asarray(y)), undecided if undecided is not None and undecided.any() else None


def _compare(it: _Interpreter, call: Call) -> Value:
    """`tensor.cmp(x, y, cmp_type=k)`: 1 where `x <op> y` holds, else 0, in x's dtype (PyPTO's tensor.cmp). A lane
    whose outcome is not determined (`_lanes`) has a whole step over DEVIATIONS as its deviation, so either
    outcome is within tolerance."""
    x, holds, undecided = _lanes(it, call)
    sigma = None if undecided is None else np.where(undecided, np.float32(1 / DEVIATIONS), np.float32(0))
    return Value(to_dtype(holds.astype(np.int64), x.dtype), x.dtype, x.k, sigma, frame=x.frame)


def _mask(it: _Interpreter, call: Call) -> Value:
    """`tile.cmps(x, s, cmp_type=k)` / `tile.cmp(x, y, ...)`: PyPTO's packed predicate mask (`ops.packed_mask_type`),
    lane j of a row in bit j % 8 of byte j // 8, UINT8 over `ceil(columns / 8)` bytes, its frame the row rounded
    up to 32 bytes. A lane whose outcome is not determined is refused (a mask byte has no deviation to give it)."""
    x, holds, undecided = _lanes(it, call)
    if undecided is not None:
        raise ReferenceError(f"`{call.op}`: a lane the operands' rounding could flip is not determined")
    if holds.ndim != 2:
        raise ReferenceError(f"`{call.op}` of other than a 2-D tile")
    packed = np.packbits(holds, axis=1, bitorder="little").astype(np.int64)
    width = -(-packed.shape[1] // ops.PREDICATE_COL_ALIGN) * ops.PREDICATE_COL_ALIGN
    return Value(packed, DType.UINT8, x.k, frame=(packed.shape[0], width))


def _select(it: _Interpreter, call: Call) -> Value:
    """`tile.sel(mask, a, b, tmp)`: a's lane where the mask's bit is set (`_mask`'s packing), else b's; a and b of one
    shape and dtype, the mask of their rows (PyPTO's tile.sel, TSEL)."""
    mask, a, b = it.value(call, 0), it.value(call, 1), it.value(call, 2)
    if len(call.args) != 4 or a.data.shape != b.data.shape or a.dtype is not b.dtype or a.data.ndim != 2 \
            or mask.dtype is not DType.UINT8 or mask.data.ndim != 2 or mask.data.shape[0] != a.data.shape[0] \
            or mask.data.shape[1] * ops.PREDICATE_BITS < a.data.shape[1]:
        raise ReferenceError(f"`{call.op}` of a {mask.dtype.value} {list(mask.data.shape)} mask over "
                             f"{list(a.data.shape)} and {list(b.data.shape)} values")
    bits = np.unpackbits(mask.data.astype(np.uint8), axis=1, bitorder="little")[:, :a.data.shape[1]].astype(bool)
    sigma = None
    if _nonzero(a.sigma) is not None or _nonzero(b.sigma) is not None:
        zero = np.zeros(a.data.shape, np.float32)
        sigma = np.where(bits, zero if a.sigma is None else a.sigma, zero if b.sigma is None else b.sigma)
    return Value(np.where(bits, a.data, b.data), a.dtype, max(a.k, b.k), sigma, frame=a.frame)


def _mrgsort(it: _Interpreter, call: Call) -> Value:
    """`mrgsort(pairs, block_len=n)` (format 1): every four consecutive runs of n lanes of `sort32` pairs, each
    sorted descending, merged into one; an equal value from the earlier run first (TMRGSORT). Other forms, and
    runs that are not sorted, are not modelled."""
    block = call.kwarg("block_len")
    if block is None:
        return _merge_lists(it, call)
    src = it.value(call, 0)
    n = it._int(it.expr(block), None)
    if len(call.args) != 1 or n is None or not src.pairs:
        raise ReferenceError(f"`{call.op}` of other than one tile of sort32 pairs and a block_len is not modelled")
    rows, lanes = src.data.shape
    if n <= 0 or n % 64 or lanes % (4 * n):
        raise ReferenceError(f"`{call.op}`: {lanes} lanes are not whole groups of four runs of {n}")
    pairs = src.data.reshape(rows, lanes // (4 * n), 2 * n, 2)
    runs = pairs[..., 0].reshape(rows, lanes // n, n // 2)
    if (runs[..., 1:] > runs[..., :-1]).any():
        raise ReferenceError(f"`{call.op}` of a run that is not sorted: its merge is not modelled")
    order = np.argsort(-pairs[..., 0], axis=2, kind="stable")
    merged = np.take_along_axis(pairs, order[..., None], axis=2)
    return Value(merged.reshape(rows, lanes), DType.FP32, pairs=True)


def _merge_lists(it: _Interpreter, call: Call) -> Value:
    """`mrgsort(a, b[, c, d])` (format 2; the tile form's workspace, last or `tmp=`, is not read): 2-4 lists of
    `sort32` pairs, each one row sorted descending, merged into one — a stable sort of their concatenation by
    value, descending, so an equal value comes from the earlier list first (TMRGSORT). Lists that are not
    sorted, and a tile form whose workspace is not the lists' joined shape, are not modelled."""
    lists = [it.value(call, i) for i in range(len(call.args))]
    if call.op.startswith("tile.") and call.kwarg("tmp") is None:
        lists = lists[:-1]
    tmp = call.kwarg("tmp")
    workspace = it.expr(tmp) if tmp is not None else (
        it.value(call, len(call.args) - 1) if call.op.startswith("tile.") else None)
    if not 2 <= len(lists) <= 4 or any(not v.pairs or v.data.ndim != 2 or v.data.shape[0] != 1 for v in lists):
        raise ReferenceError(f"`{call.op}` of other than 2 to 4 one-row tiles of sort32 pairs is not modelled")
    joined = np.concatenate([v.data for v in lists], axis=1)
    if workspace is not None and (not isinstance(workspace, Value) or workspace.data.shape != joined.shape):
        raise ReferenceError(f"`{call.op}` with a workspace of shape {list(workspace.data.shape)} for lists joined "
                             f"into {list(joined.shape)} is not modelled")
    for v in lists:
        keys = v.data[0, 0::2]
        if (keys[1:] > keys[:-1]).any():
            raise ReferenceError(f"`{call.op}` of a list that is not sorted: its merge is not modelled")
    pairs = joined.reshape(-1, 2)
    order = np.argsort(-pairs[:, 0], kind="stable")
    return Value(pairs[order].reshape(1, -1), DType.FP32, pairs=True)


def _gather_mask(it: _Interpreter, call: Call) -> Value:
    """`gather(x, mask_pattern=P0101 | P1010[, output_dtype=])`: each row's even (P0101) or odd (P1010) lanes, their
    bits read in `output_dtype` (of the same width; x's dtype when absent). Index lanes of pairs read as floats,
    and bits of values with a deviation read as another dtype, are refused."""
    src = it.value(call, 0)
    pattern = call.kwarg("mask_pattern")
    mask = pattern.path.rsplit(".", 1)[-1] if isinstance(pattern, Sym) else {1: "P0101", 2: "P1010"}.get(
        it.expr(pattern) if pattern is not None else 0)
    dtype = it.dtype_kw(call, "output_dtype") or src.dtype
    if mask not in ("P0101", "P1010") or src.data.ndim != 2 or src.data.shape[1] % 2 or len(call.args) != 1:
        raise ReferenceError(f"`{call.op}`'s mask form with pattern {mask} is not modelled (P0101 / P1010 of 2-D "
                             "values of whole pairs)")
    lanes = src.data[:, (0 if mask == "P0101" else 1)::2]
    if dtype is src.dtype and not (src.pairs and mask == "P1010"):
        sigma = _nonzero(src.sigma)
        return Value(lanes.copy(), dtype, src.k, None if sigma is None else sigma[:, (0 if mask == "P0101" else 1)::2])
    if src.dtype is not DType.FP32 or dtype not in (DType.INT32, DType.UINT32) or _nonzero(src.sigma) is not None:
        raise ReferenceError(f"`{call.op}` reading {src.dtype.value} lanes{' of index bits' if src.pairs else ''} "
                             f"as {dtype.value} is not modelled")
    view = np.ascontiguousarray(lanes.astype(np.float32)).view(np.int32 if dtype is DType.INT32 else np.uint32)
    return Value(view.astype(np.int64), dtype)


def _tensor_write(it: _Interpreter, call: Call) -> Value:
    """`tensor.write(t, [i, j], v)` / `tile.write`: the scalar *v* (exact: a scalar carries no deviation) into the
    element of *t* — a GM tensor, or a tile (a `tensor.full` inside `pl.at` is one), written in place as PyPTO's
    `pto.tsetval` writes its buffer — at one index per axis, in *t*'s dtype."""
    dst = it.value(call, 0)
    index = it.ints(it.arg(call, 1, "indices"), f"`{call.op}` indices")
    if len(index) != dst.data.ndim or not dst.data.flags.writeable:
        if it.borrow and not dst.data.flags.writeable:
            raise _Borrowed(f"`{call.op}` of a read-only value")  # perhaps a borrowed window: run again
        raise ReferenceError(f"`{call.op}` of other than a tensor or tile at one index per axis")
    element = it.arg(call, 2, "value")
    if isinstance(element, (bool, np.bool_)) or not isinstance(element, (int, float, np.integer, np.floating)):
        raise ReferenceError(f"`{call.op}` of a value that is not a number")
    src = Value(np.full([1] * len(index), element, dtype=np.float64), dst.dtype)
    it.write(dst, index, src, False, f"`{call.op}`")
    return dst


def _transpose(it: _Interpreter, call: Call) -> Value:
    """`transpose(t, axis1, axis2)` of a 2-D value (its two axes swapped)."""
    src = it.value(call, 0)
    axes = [it._int(it.expr(a), None) for a in (*call.args[1:3], call.kwarg("axis1"), call.kwarg("axis2"))
            if a is not None]
    if src.data.ndim != 2 or len(axes) != 2 or {a % 2 for a in axes} != {0, 1}:
        raise ReferenceError(f"`{call.op}` of axes {axes} of a rank-{src.data.ndim} value")
    return Value(src.data.T.copy(), src.dtype, src.k, None if src.sigma is None else src.sigma.T.copy())


def _gather_row(it: _Interpreter, call: Call) -> Value:
    """`gather_row(dst, src, dst_offset, src_offset, shape[, valid_shape])`: *dst* with the window of the GM tensor
    *src* at *src_offset* of the valid extent (the shape when none is given) copied in at *dst_offset* (PyPTO's DPS
    gather: the result is dst's buffer, in place). The transposed form is not modelled."""
    transpose = call.kwarg("transpose")
    if transpose is not None and not (isinstance(transpose, Const) and transpose.value is False):
        raise ReferenceError(f"`{call.op}` with transpose= is not modelled")
    dst, src = it.value(call, 0), it.value(call, 1)
    what = f"`{call.op}`"
    dst_offsets, src_offsets = (it.ints(it.arg(call, i), f"{what} offsets") for i in (2, 3))
    valid = it.arg(call, 5, "valid_shape") if len(call.args) > 5 or call.kwarg("valid_shape") is not None \
        else it.arg(call, 4, "shape")
    extent = it.ints(valid, f"{what} valid_shape")
    read = it.window(src, src_offsets, extent, what)
    written = it.window(dst, dst_offsets, extent, what)
    if not dst.data.flags.writeable:
        if it.borrow:
            raise _Borrowed(f"{what} into a read-only value")  # perhaps a borrowed window: run again
        raise ReferenceError(f"{what} into a read-only value")
    _write_window(dst, written, Value(_window_data(src, read), src.dtype, src.k, _window_sigma(src, read)), False, what)
    return dst


def _concat(it: _Interpreter, call: Call) -> Value:
    """`concat(a, b)` of two 2-D values of one dtype and row count: a's columns, then b's (PyPTO's column-wise
    concatenation)."""
    a, b = it.value(call, 0), it.value(call, 1)
    if len(call.args) != 2 or a.data.ndim != 2 or b.data.ndim != 2 or a.data.shape[0] != b.data.shape[0] \
            or a.dtype is not b.dtype:
        raise ReferenceError(f"`{call.op}` of a {a.dtype.value} {list(a.data.shape)} and a {b.dtype.value} "
                             f"{list(b.data.shape)} value")
    sigma = None
    if a.sigma is not None or b.sigma is not None:
        sigma = np.concatenate([np.zeros(v.data.shape, np.float32) if v.sigma is None else v.sigma for v in (a, b)],
                               axis=1)
    return Value(np.concatenate((a.data, b.data), axis=1), a.dtype, max(a.k, b.k), sigma, a.grid and b.grid)


def _arange(it: _Interpreter, call: Call) -> Value:
    """`arange(start, [1, N], dtype)`: `start + j` along one row (PyPTO's `ci`)."""
    extra = [k for k, _ in call.kwargs if k not in ("dtype", "target_memory")]
    shape = it.ints(it.arg(call, 1, "shape"), f"`{call.op}` shape")
    if extra or len(shape) not in (1, 2) or (len(shape) == 2 and shape[0] != 1):
        raise ReferenceError(f"`{call.op}` of shape {list(shape)}{' with ' + ', '.join(extra) if extra else ''} "
                             "is not modelled")
    dtype = it.dtype_kw(call, "dtype", position=2) or DType.INT32
    start = it._int(it.arg(call, 0, "start"), None)
    return Value(to_dtype(np.arange(shape[-1], dtype=np.int64) + start, dtype).reshape(shape), dtype)


_BARRIER = "system.syncall"
"""`pl.system.syncall`: every block of the launch reaches it before any goes on."""


def _is_barrier(stmt: Stmt) -> bool:
    return isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == _BARRIER


def _barrier(it: _Interpreter, call: Call) -> None:
    raise ReferenceError("`pl.system.syncall` not at the top level of a `pl.spmd` loop's body")


@dataclass(frozen=True, slots=True)
class _TaskHandle:
    """A task id (`pl.system.task_dummy`, `with pl.at(...) as tid`): it orders tasks, which run here in program
    order; it has no value (arithmetic on it is an error)."""


def _task_handle(it: _Interpreter, call: Call) -> _TaskHandle:
    return _TaskHandle()


@dataclass(eq=False, slots=True)
class _Array:
    """An on-core array (`pl.array.create(N, dtype)`): N integers of *dtype* written in place by `arr[i] = v`
    (PyPTO's `array.update_element` result aliases its array), or N task ids (TASK_ID: they order tasks). An
    element read before any write is refused: PyPTO's in-core array (`pto.declare_local_array`) is not
    initialised."""

    items: list[Any]
    dtype: DType


def _array_create(it: _Interpreter, call: Call) -> _Array:
    extent = it._int(it.arg(call, 0, "extent"), None)
    dtype = it.dtype_kw(call, "dtype", position=1)
    if dtype is None or extent < 1:
        raise ReferenceError(f"`{call.op}` of {extent} elements of {dtype}")
    return _Array([None] * extent, dtype)


def _array_element(it: _Interpreter, call: Call) -> tuple[_Array, int]:
    array = it.arg(call, 0)
    if not isinstance(array, _Array):
        raise ReferenceError(f"`{call.op}` of other than an array (`pl.array.create`)")
    index = it._int(it.arg(call, 1, "index"), None)
    if not 0 <= index < len(array.items):
        raise WindowError(f"`{call.op}`: index {index} is outside an array of {len(array.items)}")
    return array, index


def _setitem(it: _Interpreter, call: Call) -> _Array | _TaskHandle:
    """`arr[i] = v` (`tensor.setitem(arr, i, v)`): in place; the value wrapped to the array's dtype."""
    if isinstance(it.arg(call, 0), _TaskHandle):
        return _task_parameter_setitem(it, call)
    array, index = _array_element(it, call)
    value = it.arg(call, 2, "value")
    if array.dtype is DType.TASK_ID:
        # a task id (a scope's, or a launch's: `with pl.spmd(...) as tid` is read here as its loop variable) only
        # orders tasks, which run here in program order
        array.items[index] = _TaskHandle()
        return array
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ReferenceError(f"`{call.op}` of a value that is not an integer")
    array.items[index] = cast_value(int(value), array.dtype)
    return array


def _getitem(it: _Interpreter, call: Call) -> Any:
    """`tensor.getitem`: an item of what an inline callee returned, or an element of an array."""
    return _returned_item(it, call) if isinstance(it.arg(call, 0), tuple) else _array_item(it, call)


def _array_item(it: _Interpreter, call: Call) -> Any:
    """`arr[i]` (`tensor.getitem(arr, i)`): the element, once written."""
    array, index = _array_element(it, call)
    if array.dtype is DType.TASK_ID:
        return _TaskHandle()  # PyPTO fills a task-id array with the invalid id: an unwritten element orders nothing
    if array.items[index] is None:
        raise ReferenceError(f"`{call.op}`: element {index} of an array is read before it is written (an in-core "
                             "array's contents are not defined before)")
    return array.items[index]


def _task_parameter_setitem(it: _Interpreter, call: Call) -> _TaskHandle:
    """`a[i] = t` of a parameter that only holds task ids (`ops.task_arrays`): the order it records is the program
    order the reference runs in anyway."""
    target, stored = it.arg(call, 0), it.arg(call, 2)
    if not isinstance(target, _TaskHandle) or not isinstance(stored, _TaskHandle):
        raise ReferenceError(f"`{call.op}` of other than a task id into a parameter holding task ids")
    return target


def _block_idx(it: _Interpreter, call: Call) -> int:
    """`get_block_idx()`: the block of the innermost `pl.spmd` loop (every block runs in turn)."""
    if not it.blocks:
        raise ReferenceError(f"`{call.op}` outside a `pl.spmd` loop: the launch size is given at run time")
    return it.blocks[-1]


_MAX_INLINE_DEPTH = 16
"""How deeply calls run in the callee's place may nest."""


def _returned_item(it: _Interpreter, call: Call) -> Any:
    """`a, b = f(...)`: item i of the values an inline callee returned."""
    values, index = it.arg(call, 0), it.arg(call, 1)
    if not isinstance(values, tuple) or not isinstance(index, int) or not 0 <= index < len(values):
        raise ReferenceError(f"`{call.op}` of something other than what an inline callee returns")
    return values[index]


def _dim(it: _Interpreter, call: Call) -> int:
    """`pl.tensor.dim(t, axis)`: the extent of one axis of *t*."""
    shape = np.shape(it.value(call, 0).data)
    axis = it.arg(call, 1)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -len(shape) <= axis < len(shape):
        raise ReferenceError(f"`{call.op}` axis {axis!r} of a value of shape {list(shape)}")
    return int(shape[axis])


def _alloc(it: _Interpreter, call: Call) -> None:
    return None


@dataclass(eq=False, slots=True)
class _Tensor(Value):
    """A GM tensor — a parameter, or made by `tensor.create` — shared and updated in place. Its
    reshapes share its memory, its deviation and its `written` cell (set by any write)."""

    written: list[bool] = field(default_factory=lambda: [False])


_PAIR_READERS = frozenset({"tensor.mrgsort", "tile.mrgsort", "tensor.gather", "tile.gather", ops.T_SLICE, "tile.slice"})
"""The ops that may read `sort32` pairs (`Value.pairs`); `gather` only in its mask form (`_gather`), a slice only
a window of whole pairs (`_slice`)."""

_HANDLERS = {
    ops.T_CREATE: _create, ops.CREATE: _create, "tensor.full": _full, "tile.full": _full,
    ops.T_SLICE: _slice, "tile.slice": _slice, ops.T_ASSEMBLE: _assemble, ops.ASSEMBLE: _assemble,
    **dict.fromkeys(ops.ALL_MADS, _Interpreter.matmul),
    ops.LOAD: _load, ops.STORE: _store, ops.EXTRACT: _extract, ops.MOVE: _move,
    ops.TRANSPOSE_VIEW: _transpose_view, ops.T_CAST: _cast, "tile.cast": _cast,
    ops.T_RESHAPE: _reshape, "tile.reshape": _reshape, ops.T_READ: _element_read, "tile.read": _element_read,
    **dict.fromkeys(("tensor.sort32", "tile.sort32"), _sort32), **dict.fromkeys(("tensor.mrgsort", "tile.mrgsort"), _mrgsort),
    "tensor.write": _tensor_write, "tile.write": _tensor_write, "tile.gather": _gather, "tensor.gather": _gather,
    ops.ALLOC: _alloc, "tensor.set_validshape": _set_validshape, ops.SET_VALIDSHAPE: _set_validshape,
    "tile.fillpad": _fillpad, "tensor.fillpad": _fillpad,
    **dict.fromkeys(ops.BLOCK_IDX, _block_idx), **dict.fromkeys(("system.task_dummy", "scope.task_id"), _task_handle),
    "tensor.dim": _dim, "tile.dim": _dim, _BARRIER: _barrier, "tensor.cmp": _compare,
    **dict.fromkeys(("tile.cmps", "tile.cmp"), _mask), "tile.sel": _select,
    "array.create": _array_create, ops.SETITEM: _setitem, "tensor.getitem": _getitem,
    "tile.transpose": _transpose, "tensor.transpose": _transpose, "tile.concat": _concat, "tensor.concat": _concat,
    ops.GATHER_ROW: _gather_row, ops.T_GATHER_ROW: _gather_row, ops.T_CREATE_L1: _create,
    **dict.fromkeys(("tile.arange", "tensor.arange", "tile.ci", "tensor.ci"), _arange),
    **dict.fromkeys(("tile.row_expand", "tensor.row_expand", "tile.col_expand", "tensor.col_expand"), _broadcast),
}


# ---------------------------------------------------------------------------------------------- entry point


_READERS = frozenset({ops.T_SLICE, "tile.slice", ops.LOAD, ops.T_READ})
"""The ops that only read their first operand, and copy what they read (`_window_data`)."""

_GIVEN_INTS = {DType.INT8: np.int8, DType.INT32: np.int32, DType.INT64: np.int64, DType.INDEX: np.int64,
               DType.UINT8: np.uint8}
"""Integer dtype -> an array element type every value of which is a value of the dtype."""


def _uses(fn: Function) -> tuple[set[str], frozenset[int]]:
    """What one walk of *fn*'s names tells: its read-only tensor parameters (those used only as the first operand
    of a reader, `_READERS`: no op can write them, alias them or hand them on), and the slices (the `id` of their
    call) whose value only matmuls read, as an lhs or rhs (`_Interpreter.narrow`): every read of the name a slice
    is assigned to is such an operand."""
    uses: dict[str, int] = {}
    reads: dict[str, int] = {}
    operands: dict[str, int] = {}
    slices: list[tuple[str, Call]] = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in _NARROWED:
            slices.append((stmt.target.name, stmt.value))
        for expr in stmt_exprs(stmt):
            for x in walk_exprs(expr):
                if isinstance(x, Var):
                    uses[x.name] = uses.get(x.name, 0) + 1
                elif isinstance(x, Call):
                    if x.op in _READERS and x.args and isinstance(x.args[0], Var):
                        reads[x.args[0].name] = reads.get(x.args[0].name, 0) + 1
                    if x.op in ops.ALL_MADS and len(x.args) >= (3 if x.op in ops.ACC_MADS else 2):
                        parts = ops.matmul_parts(x)
                        for operand in (parts.lhs, parts.rhs):
                            if isinstance(operand, Var):
                                operands[operand.name] = operands.get(operand.name, 0) + 1
    read_only = {p.name for p in fn.params
                 if isinstance(p.type, TensorType) and uses.get(p.name, 0) == reads.get(p.name, 0)}
    return read_only, frozenset(id(call) for name, call in slices if uses.get(name, 0) == operands.get(name, 0))


_NARROWED = frozenset({ops.T_SLICE, "tile.slice"})
"""The ops whose window of an int8 input may be held as it is (`_Interpreter.narrow`)."""


def _as_given(data: np.ndarray, dtype: DType) -> np.ndarray | None:
    """*data* itself, as a read-only view, when its elements are already values of *dtype* as the
    reference holds them (f32 on the dtype's grid; integers of a type within the dtype, widened
    when read): a read-only tensor then needs no converted copy. None otherwise."""
    if dtype.is_float:
        if data.dtype != np.float32 or dtype not in (DType.FP32, DType.BF16):
            return None
        if dtype is DType.BF16 and (not data.flags.c_contiguous
                                    or np.bitwise_or.reduce(data.view(np.uint32), axis=None) & 0xFFFF):
            return None
    elif data.dtype != _GIVEN_INTS.get(dtype):
        return None
    view = data.view()
    view.flags.writeable = False  # a write would be our bug: it fails loudly (STYLE.md §1)
    return view


def _zero_sigma(shape: tuple[int, ...], deviations: bool) -> np.ndarray | None:
    """A new GM tensor's deviation: zero, and with no *deviations* none at all (no value then gets one: a
    matmul is their only source, `_Interpreter.deviations`), sparing a zeroed array the size of the tensor."""
    return np.zeros(shape, np.float32) if deviations else None


def _run_body(it: _Interpreter, body: tuple[Stmt, ...]) -> None:
    try:
        it.body(body)
    except _Stop:
        pass


def _run_blocks(it: _Interpreter, fn: Function, blocks: int) -> None:
    """*fn*'s body once per block of a launch of *blocks* (its launcher's), first to last: each block starts from
    the parameters alone, `get_block_idx()` reading its index."""
    if blocks < 1:
        raise ReferenceError(f"a launch of {blocks} blocks")
    it.iterations += blocks
    if it.iterations > MAX_ITERATIONS:
        raise ReferenceError(f"the launch runs {blocks} blocks; the simulation's limit is {MAX_ITERATIONS} loop "
                             "iterations per kernel")
    params = dict(it.env)
    for block in range(blocks):
        it.env = dict(params)
        it.blocks.append(block)
        try:
            _run_body(it, fn.body)
        finally:
            it.blocks.pop()


def tensor_params(fn: Function) -> list[tuple[str, TensorType]]:
    """The tensor parameters of *fn*, in order."""
    return [(p.name, p.type) for p in fn.params if isinstance(p.type, TensorType)]


def run_reference(fn: Function, inputs: Mapping[str, np.ndarray],
                  scalars: Mapping[str, int | bool | float] | None = None, *,
                  deviations: bool = True, grid: frozenset[str] = frozenset(),
                  callees: Mapping[str, Callee | str] | None = None, blocks: int | None = None,
                  ranks: Any = None) -> ReferenceResult:
    """Run the source kernel *fn* on *inputs* (one array per tensor parameter, by name) and
    *scalars* (one value per scalar parameter); the final tensors by parameter name. Without
    *deviations*, every sigma is zero (the values are the same: no value depends on a deviation).
    *grid* names the float inputs the caller drew on the `GRID` (`Value.grid`): only the speed of a
    matmul of them depends on it, never a value. A call of a function in *callees* (by op) runs its source in
    the call's place; with *blocks*, *fn* (which reads a block index its launcher gives) runs once per block,
    first to last, each on its own names over the same tensors. *ranks* (`reference_ranks.RankState`): one rank of
    a multi-rank run (`reference_ranks.run_reference_ranks`), its window parameters the shared tensors.
    A window of a read-only tensor is borrowed, not copied, where that changes no value (`_borrowable`); a write
    that reaches one makes the run again with every window copied (not in a multi-rank run: its windows are
    shared with the other ranks, and a run again would see what this one wrote)."""
    scalars = dict(scalars or {})
    if ranks is None:
        try:
            return _reference(fn, inputs, scalars, deviations, grid, callees, blocks, ranks, True)
        except _Borrowed:
            pass
    return _reference(fn, inputs, scalars, deviations, grid, callees, blocks, ranks, False)


def _reference(fn: Function, inputs: Mapping[str, np.ndarray], scalars: Mapping[str, int | bool | float],
               deviations: bool, grid: frozenset[str], callees: Mapping[str, Callee | str] | None,
               blocks: int | None, ranks: Any, borrow: bool) -> ReferenceResult:
    """`run_reference`, borrowing windows (*borrow*) or copying them."""
    it = _Interpreter(fn, deviations, callees)
    it.ranks = ranks
    it.borrow = borrow
    tensors: dict[str, _Tensor] = {}
    read_only, it.narrow = _uses(fn)
    task_arrays = ops.task_arrays(fn)
    for p in fn.params:
        if p.name in task_arrays:
            it.env[p.name] = _TaskHandle()  # it only receives task ids (`ops.task_arrays`): no data
        elif ranks is not None and p.name in ranks.windows:
            tensors[p.name] = it.env[p.name] = ranks.windows[p.name][ranks.rank]
        elif isinstance(p.type, TensorType):
            if p.name not in inputs:
                raise ReferenceError(f"no input for tensor parameter `{p.name}`")
            shape = ops.static_shape(p.type.shape)
            data = np.asarray(inputs[p.name])
            if shape is not None and tuple(data.shape) != shape:
                raise ReferenceError(f"input `{p.name}` has shape {list(data.shape)}, expected {list(shape)}")
            # to_dtype returns a new array: the caller's inputs are never written
            held = _as_given(data, p.type.dtype) if p.name in read_only else None
            value = _Tensor(to_dtype(data, p.type.dtype) if held is None else held, p.type.dtype,
                            sigma=_zero_sigma(data.shape, deviations),
                            grid=p.name in grid and p.type.dtype in _ROUNDED_FLOATS)
            tensors[p.name] = value
            it.env[p.name] = value
        elif isinstance(p.type, ScalarType):
            if p.name not in scalars:
                raise ReferenceError(f"no value for scalar parameter `{p.name}`")
            it.env[p.name] = scalars[p.name]
        elif isinstance(p.type, TileType):
            raise ReferenceError(f"tile parameter `{p.name}` has no reference semantics")
        else:
            raise ReferenceError(f"parameter `{p.name}` has no type")
    with np.errstate(all="ignore"):
        if blocks is None:
            _run_body(it, fn.body)
        else:
            _run_blocks(it, fn, blocks)
    # the interpreter is dropped here: its tensors are handed over without copies
    sigmas = {name: v.sigma for name, v in tensors.items() if v.sigma is not None}
    assert len(sigmas) == len(tensors) or not deviations  # a GM tensor carries one then (Value)
    return ReferenceResult({name: v.data for name, v in tensors.items()}, it.max_k, sigmas,
                           frozenset(name for name, v in tensors.items() if v.written[0]))
