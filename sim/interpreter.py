"""Interpreter of one PTO function on byte arenas (L0C_RULES.md "Dynamic check", PV201 / PV202).

Input: a parsed `Func`, its target, and the caller's arguments (numpy arrays for `!pto.ptr`
tensors in GM, Python ints / bools for scalars). Output: the final GM contents of every tensor
argument. Semantics are docs/pto-subset.md; the arenas and the poison pattern are `arena.py`, the
element encodings and rounding `dtypes.py`.

Method: the function is compiled once into closures over a slot list (every SSA name has one slot),
so an executed instruction costs one Python call plus its numpy work. Tiles are numpy views into
the arenas, cached per `(addr, valid_row, valid_col)` at each `alloc_tile`; GM windows likewise per
`partition_view` and offsets. A fresh `tmatmul` writes its product straight into the accumulator's
view. Everything decidable from the text (spaces, dtypes, legal `tmov` pairs, `tmatmul.acc`
ins[0] == outs, capacity of a tile at a constant address) is checked at compile time, so an
illegal instruction is rejected (PV202) even on a path the inputs do not take; shapes of runtime
extent are checked when executed.

Decisions where the spec is silent or loose (docs/pto-subset.md):
- `pto.textract` also copies a window of a `vec` tile into a `vec` tile (never transposed): the
  form of `tile.extract` of a Vec tile (a `tile.slice` is a view, an `alloc_tile` in its source's bytes).
- `pto.textract {transpose = true}` reads the source window
  `[row : row + dst.valid_cols, col : col + dst.valid_rows]` (the spec writes `dst.cols` /
  `dst.rows`; the two agree whenever the valid region is the whole tile) and windows must lie
  inside the source's valid region.
- `pto.tload` / `pto.tstore` / `pto.tmov` need the window (or the other tile) to have exactly the
  tile's valid shape.
- `pto.tstore` may drain `acc`, `vec` or `mat`; only `acc` narrows (f32 -> f32 / bf16 / f16; i32 ->
  i32). With `{atomic = #pto.atomic<add>}` the value is first converted to the GM dtype, then added
  to GM in f32 (int64 for integers, wrapping) and rounded once (half to even) to the GM dtype.
- `pto.tmov mat -> bias` copies the same dtype or widens f16 / bf16 to f32;
  `pto.tmatmul.bias` takes an f32 / f16 / bf16 bias for an f32 accumulator, i32 for i32.
- Vector ops compute in f32 for float tiles (rounded half to even to the tile's dtype) and in int64
  for integer tiles (wrapped to the dtype); `pto.tcvt` float -> int rounds half to even and
  saturates. `pto.texp tlog tsqrt trsqrt trecip` need float tiles (`trsqrt` is `1 / sqrt(x)`, two
  f32 roundings); integer divisions (`tdiv tdivs trowexpanddiv tcolexpanddiv`) truncate toward
  zero; `tfmods` is C's `fmod` (the dividend's sign; a zero divisor is refused). `pto.texpands`
  takes an f32 / f16 / bf16 scalar for a float tile, an integer one for an integer tile.
  Reductions reject an empty source valid region; sums accumulate in numpy's order. Operands of the
  row / column forms must have the valid shape `rows x 1` / `1 x cols`.
- A launch (`pto.block_dim = N` on the function, docs/pto-subset.md "Launches"): its N instances run in
  turn, last to first (N-1 down to 0: the hardware fixes no order, and the reference runs them first to
  last, so a launch whose result depends on the order of its instances differs), each on freshly
  poisoned arenas (its own core: nothing on chip survives from another instance), over the one GM;
  `pto.get_block_idx` reads the running instance's index, `pto.get_block_num` N. Without the attribute a
  function is one instance (index 0 of 1).
- `pto.launch %n {region}`: a step launching the region's kernel over %n instances (read when it runs), run
  like a function's launch (last to first, fresh arenas, barriers at the region's top level); the region
  reads no tile defined outside it, and on-chip memory is poisoned after it.
- `pto.syncall` (hard mode) is a barrier of every instance of the launch: the simulation runs the launch
  phase by phase (a phase ends at a `pto.syncall` of the function's top level): every instance runs a
  phase, in the launch's order, before any runs the next, each resuming its own scalars and on-chip
  memory. A `pto.syncall` inside a loop or an `if` is not simulated (the limit rule, like a loop too long).
- Integer scalars wrap to their type's width (`index` is 64 bits); `i1` values are bools. `arith.fptosi`
  truncates toward zero and rejects a value its type does not hold (MLIR's poison); `arith.cmpf` is ordered
  (false when either operand is a NaN).
- Errors about names (undefined value, missing argument) have rule ""; every semantic rejection
  has rule PV202.
- The tile type written at a use must match (space, dtype, rows, cols) the one its `alloc_tile`
  declared (PV202 otherwise); `blayout` / `slayout` / `fractal` / `pad` are ignored, so a transpose
  expressed only by a layout flip (as in real-ir/tensor_proj) is not performed.
- Under `strict_undef` only reads of `acc` bytes are checked (tmatmul.acc, tstore / tmov from acc).
- GM tensors: `simulate` never mutates the caller's arrays. A tensor some `pto.tstore` writes is
  copied at binding and returned as a new array of its final values (bf16 widened to float32); a
  tensor no `pto.tstore` writes is bound read-only and returned as the caller's own array object.
  Two arguments never alias in GM. A bf16 tensor is given as values (rounded half to even) or as
  uint16 bit patterns.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import Any, Callable, Final

import numpy as np
from numpy.lib.stride_tricks import as_strided

from pypto_verify.scalar import trip_count
from pypto_verify.target import TARGETS

from . import comm
from .arena import POISON_WORD, Memory, Tile
from .comm import Ranks
from .dtypes import DTYPES, ROUND_MODES, bf16_bits_to_f32, narrow, narrow_rounded, to_storage, to_values, widen
from .errors import SimError, over_limit, rejected

MAX_VIEW_RANK: Final = 5
"""The highest rank of a `pto.make_tensor_view` (PTO IR's views have at most five dimensions)."""
MAX_ITERATIONS: Final = 100_000
"""The most `scf.for` iterations one simulation runs (all loops together); past it the kernel is not simulated."""
from .parser import (EXPAND_KINDS, ARITH_BINARY, INS_OUTS_OPS, ArrayType, Func, Op, PtrType, ScalarType, TileType,
                     VectorType, ViewType, walk)

Step = Callable[[], None]

_INT_BITS: Final[dict[str, int]] = {"index": 64, "i64": 64, "i32": 32, "i8": 8}
_FLOAT_SCALARS: Final[frozenset[str]] = frozenset({"f32", "f16", "bf16"})
_CMPI: Final[dict[str, Callable[[int, int], bool]]] = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le,
    "sgt": operator.gt, "sge": operator.ge,
}
# docs/pto-subset.md, tmov: the legal (src, dst) space pairs; acc->vec only on a5. vec->vec is a copy between two
# UB tiles (PTO-ISA TMOV, "Vec -> Vec" on A2A3 and A5), never in place.
_TMOV_PAIRS: Final[frozenset[tuple[str, str]]] = frozenset(
    {("mat", "left"), ("mat", "right"), ("mat", "bias"), ("vec", "mat"), ("acc", "mat"),
     ("acc", "vec"), ("vec", "vec")})
# TARGET_FACTS.md, matmul dtypes: (lhs/rhs dtype) -> accumulator dtype.
_MATMUL_ACC: Final[dict[str, str]] = {"f16": "f32", "bf16": "f32", "f32": "f32", "i8": "i32"}
_FIXPIPE: Final[dict[str, frozenset[str]]] = {
    "f32": frozenset({"f32", "bf16", "f16"}), "i32": frozenset({"i32"})}
_BINARY_VECTOR: Final[dict[str, Callable]] = {
    "pto.tadd": np.add, "pto.tsub": np.subtract, "pto.tmul": np.multiply,
    "pto.tdiv": np.divide, "pto.tmax": np.maximum, "pto.tmin": np.minimum,
}
_SCALAR_VECTOR: Final[dict[str, Callable]] = {
    "pto.tmuls": np.multiply, "pto.tadds": np.add, "pto.tsubs": np.subtract,
    "pto.tdivs": np.divide, "pto.tmaxs": np.maximum, "pto.tmins": np.minimum, "pto.tfmods": np.fmod,
}
_RMODE: Final = re.compile(r"#pto<round_mode (\w+)>")
"""The spelling of `pto.tcvt`'s rounding attribute (`{rmode = #pto<round_mode CAST_ROUND>}`)."""
_MASK: Final = re.compile(r"#pto\.mask_pattern<(P0101|P1010)>")
"""`pto.tgather`'s mask form attribute (`{maskPattern = #pto.mask_pattern<P1010>}`) in the subset."""
_DIVIDES: Final[frozenset[str]] = frozenset(
    {"pto.tdiv", "pto.tdivs", "pto.trowexpanddiv", "pto.tcolexpanddiv"})


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, x.dtype.type(0))


def _recip(x: np.ndarray) -> np.ndarray:
    return np.divide(np.float32(1), x)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return np.divide(np.float32(1), np.sqrt(x))


# name -> (f32 / int64 function, float tiles only)
_UNARY_VECTOR: Final[dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool]]] = {
    "pto.texp": (np.exp, True), "pto.trelu": (_relu, False), "pto.trecip": (_recip, True),
    "pto.trsqrt": (_rsqrt, True), "pto.tsqrt": (np.sqrt, True), "pto.tlog": (np.log, True),
    "pto.tabs": (np.abs, False),
}
# name -> (reduction, axis): trow* reduce each row to [rows, 1], tcol* each column to [1, cols].
_REDUCE_VECTOR: Final[dict[str, tuple[np.ufunc, int]]] = {
    "pto.trowsum": (np.add, 1), "pto.trowmax": (np.maximum, 1), "pto.trowmin": (np.minimum, 1),
    "pto.tcolsum": (np.add, 0), "pto.tcolmax": (np.maximum, 0), "pto.tcolmin": (np.minimum, 0),
}
_EXPAND_FUNCTIONS: Final[dict[str, Callable]] = {kind: _BINARY_VECTOR[f"pto.t{kind}"] for kind in EXPAND_KINDS}
# name -> (function, axis): trowexpand* broadcast a [rows, 1] tile along each row, tcolexpand* a
# [1, cols] tile down each column.
_EXPAND_VECTOR: Final[dict[str, tuple[Callable, int]]] = {
    **{f"pto.trowexpand{kind}": (fn, 1) for kind, fn in _EXPAND_FUNCTIONS.items()},
    **{f"pto.tcolexpand{kind}": (fn, 0) for kind, fn in _EXPAND_FUNCTIONS.items()},
}
_ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "pto.tstore": frozenset({"atomic"}), "pto.textract": frozenset({"transpose"}), "pto.tcvt": frozenset({"rmode"}),
    "pto.tgather": frozenset({"maskPattern"}), "pto.tmrgsort": frozenset({"exhausted"}),
    "pto.tcmps": frozenset({"cmpMode"}), "pto.tcmp": frozenset({"cmpMode"})}
# Exact i8 products summed in f32: |a*b| <= 2**14, so K <= 1024 keeps every partial sum <= 2**24.
_I8_EXACT_IN_F32_K: Final[int] = 1024


def _wrap(bits: int) -> Callable[[int], int]:
    half, full = 1 << (bits - 1), 1 << bits

    def wrap(value: int) -> int:
        if -half <= value < half:
            return value
        return (value + half) % full - half

    return wrap


def _trunc_div(lhs: int, rhs: int) -> int:
    quotient = abs(lhs) // abs(rhs)
    return quotient if (lhs >= 0) == (rhs >= 0) else -quotient


def _trunc_rem(lhs: int, rhs: int) -> int:
    return lhs - rhs * _trunc_div(lhs, rhs)


_INT_BINARY: Final[dict[str, Callable[[int, int], int]]] = {
    "arith.addi": operator.add, "arith.subi": operator.sub, "arith.muli": operator.mul,
    "arith.divsi": _trunc_div, "arith.remsi": _trunc_rem, "arith.maxsi": max,
    "arith.minsi": min, "arith.andi": operator.and_, "arith.ori": operator.or_,
    "arith.xori": operator.xor,
}


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """Static facts about a GM tensor view value: rank, dtype, partition or not."""

    rank: int
    dtype: str
    partition: bool


Info = ScalarType | PtrType | TensorInfo | TileType | ArrayType | VectorType


class _Compiler:
    """Turns a function body into closures over `self.values` (one slot per SSA name)."""

    def __init__(self, func: Func, memory: Memory, strict_undef: bool,
                 watch: tuple[str, int] | None = None) -> None:
        self.func = func
        self.watch = watch
        """`(argument, flat index)`: the GM element whose stores `writers` records (`last_store_line`)."""
        self.writers: list[int] = []
        """The PTO line of each `pto.tstore` that wrote the watched element, in execution order."""
        self.memory = memory
        self.target = memory.target
        self.strict = strict_undef
        self.iterations = 0
        """`scf.for` iterations run so far (`MAX_ITERATIONS`)."""
        self.depth = 0
        """How many blocks enclose the op being compiled (1: the function's top level)."""
        self.instance = (0, 1)
        """(the running instance's index, the launch's block count): what `pto.get_block_idx` /
        `pto.get_block_num` read."""
        self.blocks_in_order = False
        """Run the instances of every launch first to last (the reference's order) instead of last to first."""
        self.barrier_depth = 1
        """The block depth of a launch's top level: where a `pto.syncall` may stand."""
        self.in_launch = False
        """Compiling the region of a `pto.launch`."""
        self.outside: frozenset[str] = frozenset()
        """Inside a `pto.launch`: the tiles defined outside it (no instance can read them: its core is its own)."""
        self.yield_to: tuple[tuple[int, ...], tuple[ScalarType, ...]] | None = None
        """While compiling a region of an `scf.for` / `scf.if` with results: the slots its `scf.yield` writes (the
        loop's carried values, the `if`'s results) and their types; None elsewhere (a yield there is an error)."""
        self.slots: dict[str, int] = {}
        self.values: list[Any] = []
        """Slot contents: int / bool / float scalars, `Tile`s, GM windows (numpy arrays). Typed `Any`:
        which kind a slot holds is fixed by `scope` at compile time, which mypy cannot follow."""
        self.scope: dict[str, Info] = {}
        self.constants = self._unique_constants(func)
        self.view_args: dict[str, str] = {}
        """The pointer argument under each tensor / partition view name."""
        self.stored_args: set[str] = set()
        """Arguments some `pto.tstore` writes (bound by copy; the others are bound read-only)."""
        self.ranks: Ranks | None = None
        """In a multi-rank run: the rank this function runs as, and the windows it shares (`comm.py`)."""

    # --- names and slots ----------------------------------------------------------------
    @staticmethod
    def _unique_constants(func: Func) -> dict[str, int | float]:
        counts: dict[str, int] = {}
        for op in walk(func.body):
            carried = op.attr("iter_args", ())
            assert isinstance(carried, tuple)  # the parser's
            for name in (*op.results, *([str(op.attr("iv")), *carried] if op.name == "scf.for" else [])):
                counts[name] = counts.get(name, 0) + 1
        return {op.results[0]: _constant_value(op) for op in walk(func.body)
                if op.name == "arith.constant" and counts[op.results[0]] == 1 and isinstance(op.types[0], ScalarType)}

    def slot(self, name: str) -> int:
        """The slot of SSA name *name* (allocated on first sight)."""
        index = self.slots.get(name)
        if index is None:
            index = self.slots[name] = len(self.values)
            self.values.append(None)
        return index

    def define(self, name: str, info: Info) -> int:
        self.scope[name] = info
        return self.slot(name)

    def use(self, op: Op, name: str) -> tuple[int, Info]:
        info = self.scope.get(name)
        if info is None:
            raise SimError(f"{op.name}: undefined value %{name}", op.line)
        if name in self.outside:
            raise rejected(f"{op.name}: tile %{name} is defined outside the pto.launch that reads it (each "
                           "instance runs on a core of its own)", op.line)
        return self.slots[name], info

    def scalar(self, op: Op, name: str) -> int:
        index, info = self.use(op, name)
        if not isinstance(info, ScalarType):
            raise rejected(f"{op.name}: %{name} is not a scalar", op.line)
        return index

    def tile(self, op: Op, name: str, role: str, spaces: tuple[str, ...]) -> tuple[int, TileType]:
        index, info = self.use(op, name)
        if not isinstance(info, TileType):
            raise rejected(f"{op.name}: {role} %{name} is not a tile", op.line)
        if info.loc not in spaces:
            raise rejected(f"{op.name}: {role} %{name} is in {info.loc}, expected "
                           + " or ".join(spaces), op.line)
        return index, info

    def window(self, op: Op, name: str, role: str) -> tuple[int, TensorInfo]:
        index, info = self.use(op, name)
        if not isinstance(info, TensorInfo) or not info.partition:
            raise rejected(f"{op.name}: {role} %{name} is not a partition_view", op.line)
        return index, info

    # --- bodies ---------------------------------------------------------------------------
    def compile_function(self) -> tuple[Step, ...]:
        for arg in self.func.args:
            self.define(arg.name, arg.type)
        for name, value in self.constants.items():
            self.values[self.slot(name)] = value
        return self.block(self.func.body)

    def block(self, ops: tuple[Op, ...]) -> tuple[Step, ...]:
        saved = dict(self.scope)
        steps = []
        self.depth += 1
        for op in ops:
            step = self.op(op)
            if step is not None:
                steps.append(step)
        self.depth -= 1
        self.scope = saved
        return tuple(steps)

    def op(self, op: Op) -> Step | None:
        allowed = _ATTRIBUTES.get(op.name, frozenset())
        if op.name.startswith("pto.t"):
            for key, _ in op.attributes:
                if key not in allowed:
                    raise SimError(f"{op.name}: unknown attribute {key}", op.line)
        if op.name in INS_OUTS_OPS:
            self._check_annotations(op)
        if op.name in ARITH_BINARY:
            return self.arith_binary(op)
        if op.name in _BINARY_VECTOR or op.name in _SCALAR_VECTOR:
            return self.vector_binary(op)
        if op.name in _UNARY_VECTOR:
            return self.vector_unary(op)
        if op.name in _REDUCE_VECTOR:
            return self.vector_reduce(op)
        if op.name in _EXPAND_VECTOR:
            return self.vector_expand(op)
        return getattr(self, "op_" + op.name.replace(".", "_"))(op)

    def _check_annotations(self, op: Op) -> None:
        """A tile operand's annotated type must be the type its `alloc_tile` gave it."""
        names = (*op.operands, *op.group("outs"))
        for name, annotated in zip(names, op.types):
            info = self.scope.get(name)
            if isinstance(info, TileType) and isinstance(annotated, TileType) and \
                    _shape_key(info) != _shape_key(annotated):
                raise rejected(f"{op.name}: %{name} is annotated {annotated} but was allocated as "
                               f"{info}", op.line)

    # --- scalars --------------------------------------------------------------------------
    def op_arith_constant(self, op: Op) -> Step | None:
        result = op.results[0]
        if isinstance(op.types[0], VectorType):  # `dense<0> : vector<4xi16>`: tmrgsort's executed counts
            vector = self.define(result, op.types[0])

            def run_vector() -> None:
                self.values[vector] = np.zeros(4, dtype=np.int16)
            return run_vector
        index = self.define(result, _scalar_type(op))
        if result in self.constants:
            return None
        value = _constant_value(op)

        def run() -> None:
            self.values[index] = value
        return run

    def arith_binary(self, op: Op) -> Step:
        lhs, rhs = (self.scalar(op, name) for name in op.operands)
        result_type = _scalar_type(op)
        kind = result_type.name
        if kind in _FLOAT_SCALARS:
            raise rejected(f"{op.name} on {kind}", op.line)
        index = self.define(op.results[0], result_type)
        compute = _INT_BINARY[op.name]
        values = self.values
        if kind == "i1":
            def run_bool() -> None:
                values[index] = bool(compute(int(values[lhs]), int(values[rhs])) & 1)
            return run_bool
        wrap = _wrap(_INT_BITS[kind])
        divides = op.name in ("arith.divsi", "arith.remsi")
        line = op.line

        def run() -> None:
            if divides and values[rhs] == 0:
                raise rejected(f"{op.name}: division by zero", line)
            values[index] = wrap(compute(values[lhs], values[rhs]))
        return run

    def op_arith_cmpi(self, op: Op) -> Step:
        lhs, rhs = (self.scalar(op, name) for name in op.operands)
        index = self.define(op.results[0], ScalarType("i1"))
        compare = _CMPI[str(op.attr("predicate"))]
        values = self.values

        def run() -> None:
            values[index] = compare(values[lhs], values[rhs])
        return run

    def op_arith_cmpf(self, op: Op) -> Step:
        """`%p = arith.cmpf oeq, %a, %b : f32`: an ordered comparison of two float scalars (false when either is a
        NaN; `one` too: PyPTO's `!=`)."""
        lhs, rhs = (self.scalar(op, name) for name in op.operands)
        if _scalar_type(op).name not in _FLOAT_SCALARS:
            raise rejected(f"arith.cmpf on {_scalar_type(op)}", op.line)
        index = self.define(op.results[0], ScalarType("i1"))
        compare = _CMPI[{"oeq": "eq", "one": "ne", "olt": "slt", "ole": "sle", "ogt": "sgt", "oge": "sge"}[
            str(op.attr("predicate"))]]
        values = self.values

        def run() -> None:
            a, b = values[lhs], values[rhs]
            values[index] = a == a and b == b and compare(a, b)  # ordered: a NaN compares false
        return run

    def op_arith_select(self, op: Op) -> Step:
        condition, on_true, on_false = (self.scalar(op, name) for name in op.operands)
        index = self.define(op.results[0], _scalar_type(op))
        values = self.values

        def run() -> None:
            values[index] = values[on_true] if values[condition] else values[on_false]
        return run

    def op_arith_index_cast(self, op: Op) -> Step:
        source = self.scalar(op, op.operands[0])
        source_type, result_type = op.types
        if not isinstance(source_type, ScalarType) or not isinstance(result_type, ScalarType) \
                or source_type.name not in _INT_BITS or result_type.name not in _INT_BITS:
            raise rejected(f"arith.index_cast from {source_type} to {result_type}", op.line)
        index = self.define(op.results[0], result_type)
        values, wrap = self.values, _wrap(_INT_BITS[result_type.name])

        def run() -> None:
            values[index] = wrap(values[source])
        return run

    def op_arith_fptosi(self, op: Op) -> Step:
        """`%r = arith.fptosi %x : f32 to i32`: the float truncated toward zero (MLIR's `fptosi`); a value the
        integer type does not hold (or a NaN) is poison in MLIR, rejected here."""
        source = self.scalar(op, op.operands[0])
        source_type, result_type = op.types
        if not isinstance(source_type, ScalarType) or not isinstance(result_type, ScalarType) \
                or source_type.name not in _FLOAT_SCALARS or result_type.name not in ("i8", "i32", "i64"):
            raise rejected(f"arith.fptosi from {source_type} to {result_type}", op.line)
        index = self.define(op.results[0], result_type)
        half = 1 << (_INT_BITS[result_type.name] - 1)
        values, line = self.values, op.line

        def run() -> None:
            value = values[source]
            if not (math.isfinite(value) and -half <= math.trunc(value) < half):
                raise rejected(f"arith.fptosi of {value} to {result_type}: outside the type (poison)", line)
            values[index] = math.trunc(value)
        return run

    def op_pto_store_scalar(self, op: Op) -> Step:
        """`pto.store_scalar %v, %ptr[%offset] : !pto.ptr<T>, T`: one element of a GM argument at a flat offset
        (PyPTO's `tensor.write`: the row-major offset over the tensor's shape); the value's type is the
        pointer's element type, and an offset outside the argument is rejected (never wrapped)."""
        value = self.scalar(op, op.operands[0])
        pointer, info = self.use(op, op.operands[1])
        offset = self.scalar(op, op.operands[2])
        pointer_type, value_type = op.types
        if not isinstance(info, PtrType) or info != pointer_type:
            raise rejected(f"{op.name}: %{op.operands[1]} is not a {pointer_type} argument", op.line)
        if not isinstance(value_type, ScalarType) or value_type.name != info.dtype or info.dtype not in DTYPES:
            raise rejected(f"{op.name}: a {value_type} value stored through a {pointer_type}", op.line)
        self.stored_args.add(self.view_args.get(op.operands[1], op.operands[1]))
        values, line, dtype = self.values, op.line, info.dtype

        def run() -> None:
            flat, at = values[pointer], int(values[offset])
            if not 0 <= at < flat.size:
                raise rejected(f"{op.name}: offset {at} is outside %{op.operands[1]} ({flat.size} elements)", line)
            flat[at] = to_storage(np.asarray([values[value]]), dtype)[0]
        return run

    def op_pto_load_scalar(self, op: Op) -> Step:
        """`%v = pto.load_scalar %ptr[%offset] : !pto.ptr<T> -> T`: one element of a GM argument at a flat offset
        (PyPTO's `tensor.read` of a tensor the kernel writes: the row-major offset over its shape); the result's type
        is the pointer's element type, and an offset outside the argument is rejected (never wrapped)."""
        pointer, info = self.use(op, op.operands[0])
        offset = self.scalar(op, op.operands[1])
        pointer_type, result_type = op.types
        if not isinstance(info, PtrType) or info != pointer_type:
            raise rejected(f"{op.name}: %{op.operands[0]} is not a {pointer_type} argument", op.line)
        if not isinstance(result_type, ScalarType) or result_type.name != info.dtype \
                or result_type.name not in ("f32", "i32", "i64"):
            raise rejected(f"{op.name}: a {result_type} loaded through a {pointer_type}", op.line)
        index = self.define(op.results[0], result_type)
        values, line, dtype = self.values, op.line, info.dtype
        is_float = DTYPES[dtype].is_float

        def run() -> None:
            flat, at = values[pointer], int(values[offset])
            if not 0 <= at < flat.size:
                raise rejected(f"{op.name}: offset {at} is outside %{op.operands[0]} ({flat.size} elements)", line)
            element = widen(flat[at:at + 1], dtype)[0]
            values[index] = float(element) if is_float else int(element)
        return run

    # --- on-core arrays ----------------------------------------------------------------------
    def op_pto_declare_local_array(self, op: Op) -> Step:
        """`%a = pto.declare_local_array -> !pto.local_array<NxT>`: N integers on the scalar unit, none written yet
        (each run of the declaration is a fresh array: a later iteration, another instance)."""
        array_type = op.types[0]
        assert isinstance(array_type, ArrayType)  # the parser's form
        index = self.define(op.results[0], array_type)
        values, extent = self.values, array_type.extent

        def run() -> None:
            values[index] = [None] * extent
        return run

    def _array(self, op: Op) -> tuple[int, int, ArrayType]:
        array, info = self.use(op, op.operands[0])
        if not isinstance(info, ArrayType) or info != op.types[0]:
            raise rejected(f"{op.name}: %{op.operands[0]} is not a {op.types[0]}", op.line)
        element = op.types[1]
        if not isinstance(element, ScalarType) or element.name != info.dtype:
            raise rejected(f"{op.name}: a {element} element of a {info}", op.line)
        return array, self.scalar(op, op.operands[1]), info

    def op_pto_local_array_set(self, op: Op) -> Step:
        """`pto.local_array_set %a[%i], %v`: element i of the array is v (an index outside it is rejected)."""
        array, offset, info = self._array(op)
        value = self.scalar(op, op.operands[2])
        values, line, wrap, name = self.values, op.line, _wrap(_INT_BITS[info.dtype]), op.operands[0]

        def run() -> None:
            at = values[offset]
            if not 0 <= at < info.extent:
                raise rejected(f"{op.name}: index {at} is outside %{name} ({info.extent} elements)", line)
            values[array][at] = wrap(values[value])
        return run

    def op_pto_local_array_get(self, op: Op) -> Step:
        """`%v = pto.local_array_get %a[%i]`: element i of the array. One no `local_array_set` wrote is over the
        simulator's limit: what a declared array holds before its first write is not defined here."""
        array, offset, info = self._array(op)
        element = op.types[1]
        assert isinstance(element, ScalarType)  # _array
        index = self.define(op.results[0], element)
        values, line, name = self.values, op.line, op.operands[0]

        def run() -> None:
            at = values[offset]
            if not 0 <= at < info.extent:
                raise rejected(f"{op.name}: index {at} is outside %{name} ({info.extent} elements)", line)
            element = values[array][at]
            if element is None:
                raise over_limit(f"{op.name}: element {at} of %{name} is read before any pto.local_array_set wrote "
                                 "it (what a declared array holds is not defined)", line)
            values[index] = element
        return run

    def op_pto_tgetval(self, op: Op) -> Step:
        """`%v = pto.tgetval ins(%tile, %offset) outs : f32`: the element at the row-major flat offset of a float
        Vec tile (`offset = row * cols + col`), inside its valid shape (elsewhere is never defined)."""
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        offset = self.scalar(op, op.operands[1])
        result_type = op.types[-1]
        if not DTYPES[src_type.dtype].is_float or not isinstance(result_type, ScalarType) \
                or result_type.name != "f32":
            raise rejected(f"{op.name}: a {src_type.dtype} tile read as {result_type} (the subset reads float "
                           "tiles as f32)", op.line)
        index = self.define(op.results[0], result_type)
        values, line, dtype = self.values, op.line, src_type.dtype

        def run() -> None:
            tile = values[source]
            row, col = _element(op.name, tile, int(values[offset]), line)
            values[index] = float(widen(tile.valid[row:row + 1, col:col + 1], dtype)[0, 0])
        return run

    def op_pto_tsetval(self, op: Op) -> Step:
        """`pto.tsetval ins(%offset, %v : index, T) outs(%tile)`: the element of the Vec tile at the row-major flat
        offset `row * cols + col` (inside its valid shape) set to the scalar v, rounded (a float tile, an f32 v) or
        wrapped (an integer tile, an integer v) to the tile's dtype (PyPTO's `tile.write`)."""
        self._arity(op, 2, 1)
        offset = self.scalar(op, op.operands[0])
        value = self.scalar(op, op.operands[1])
        kind = self.scope[op.operands[1]]
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = dst_type.dtype
        is_float = DTYPES[dtype].is_float
        if not isinstance(kind, ScalarType) or is_float != (kind.name in _FLOAT_SCALARS) or kind.name == "i1":
            raise rejected(f"{op.name}: cannot set an element of a {dtype} tile to a {kind} scalar", op.line)
        values, line = self.values, op.line

        def run() -> None:
            tile = values[dest]
            row, col = _element(op.name, tile, int(values[offset]), line)
            element = np.float32(values[value]) if is_float else np.int64(values[value])
            tile.valid[row, col] = narrow(np.full((1, 1), element), dtype)[0, 0]
            if tile.written is not None:
                size = tile.written.shape[1] // max(tile.valid_cols, 1)
                tile.written[row, col * size:(col + 1) * size] = True
        return run

    # --- launches -----------------------------------------------------------------------------
    def op_pto_get_block_idx(self, op: Op) -> Step:
        index = self.define(op.results[0], ScalarType("i64"))

        def run() -> None:
            self.values[index] = self.instance[0]
        return run

    def op_pto_get_block_num(self, op: Op) -> Step:
        index = self.define(op.results[0], ScalarType("i64"))

        def run() -> None:
            self.values[index] = self.instance[1]
        return run

    def op_pto_syncall(self, op: Op) -> Step:
        if op.attr("mode", "#pto.sync_all_mode<hard>") != "#pto.sync_all_mode<hard>":
            raise rejected(f"pto.syncall mode {op.attr('mode')}: only the hard mode is in the subset", op.line)
        if self.depth != self.barrier_depth:
            raise over_limit("a pto.syncall inside a loop or an if: the simulation splits a launch into phases "
                             "only at the launch's top level", op.line)
        return _BARRIER

    def op_pto_launch(self, op: Op) -> Step:
        """`pto.launch %n {region}`: the region's kernel launched over %n instances, one after the other (last
        to first), each on freshly poisoned arenas over the one GM; on-chip memory is poisoned after it."""
        if block_dim(self.func) != 1 or self.in_launch:
            raise rejected("a pto.launch inside a launch (a pto.launch region or a function with pto.block_dim)",
                           op.line)
        count = self.scalar(op, op.operands[0])
        saved = (self.barrier_depth, self.outside)
        self.barrier_depth, self.in_launch = self.depth + 1, True
        self.outside = frozenset(name for name, info in self.scope.items() if isinstance(info, TileType))
        yield_to, self.yield_to = self.yield_to, None
        try:
            phases = _phases(self.block(op.regions[0]))
        finally:
            (self.barrier_depth, self.outside), self.in_launch = saved, False
            self.yield_to = yield_to
        values, memory, line = self.values, self.memory, op.line

        def run() -> None:
            blocks = values[count]
            if blocks < 0:
                raise rejected(f"pto.launch of {blocks} instances", line)
            self.iterations += blocks
            if self.iterations > MAX_ITERATIONS:
                raise over_limit(f"the pto.launch runs {blocks} instances; the simulator's limit is "
                                 f"{MAX_ITERATIONS} loop iterations", line)
            order = list(range(blocks) if self.blocks_in_order else reversed(range(blocks)))
            _run_launch(self, memory, phases, order)
            self.instance = (0, 1)
            memory.poison()  # the orchestration's next step runs on no core of the launch
        return run

    # --- control flow -----------------------------------------------------------------------
    def op_scf_for(self, op: Op) -> Step:
        lower, upper, step = (self.scalar(op, name) for name in op.operands[:3])
        types = self._result_types(op)
        inits = tuple(self._typed_scalar(op, name, t) for name, t in zip(op.operands[3:], types))
        saved = dict(self.scope)
        induction = self.define(str(op.attr("iv")), ScalarType("index"))
        names = op.attr("iter_args", ())
        assert isinstance(names, tuple)  # the parser's
        carried = tuple(self.define(name, t) for name, t in zip(names, types))
        body = self._region(op, op.regions[0], carried, types)
        self.scope = saved
        results = tuple(self.define(name, t) for name, t in zip(op.results, types))
        values, line = self.values, op.line

        def run() -> None:
            # docs/pto-subset.md "Control flow": the carried scalars start at their inits, each iteration's
            # `scf.yield` gives the next, and the loop's results are the last (the inits after no iteration)
            for slot, init in zip(carried, inits):
                values[slot] = values[init]
            stride = values[step]
            if stride <= 0:
                raise rejected(f"scf.for step {stride} is not positive", line)
            trips = trip_count(values[lower], values[upper], stride)
            self.iterations += trips
            if self.iterations > MAX_ITERATIONS:
                raise over_limit(f"the scf.for runs {trips} times; the simulator's limit is {MAX_ITERATIONS} "
                                 "loop iterations", line)
            for iteration in range(values[lower], values[upper], stride):
                values[induction] = iteration
                for inner in body:
                    inner()
            for slot, value in zip(results, carried):
                values[slot] = values[value]
        return run

    def op_scf_if(self, op: Op) -> Step:
        condition = self.scalar(op, op.operands[0])
        types = self._result_types(op)
        if types and len(op.regions) != 2:
            raise SimError("scf.if with results has no else region", op.line)
        results = tuple(self.slot(name) for name in op.results)
        then_body = self._region(op, op.regions[0], results, types)
        else_body = self._region(op, op.regions[1], results, types) if len(op.regions) > 1 else ()
        for name, t in zip(op.results, types):
            self.define(name, t)
        values = self.values

        def run() -> None:
            for inner in then_body if values[condition] else else_body:
                inner()
        return run

    def op_scf_yield(self, op: Op) -> Step:
        """`scf.yield %a, ... : T, ...`: the last op of a region of an `scf.for` / `scf.if` with results; it writes
        the values the loop carries on (or the `if`'s results), all read before any is written."""
        if self.yield_to is None:
            raise SimError("scf.yield outside a region of an scf.for / scf.if with results", op.line)
        targets, types = self.yield_to
        if len(op.operands) != len(targets) or tuple(op.types) != types:
            raise rejected(f"scf.yield of {', '.join(map(str, op.types)) or 'nothing'} where "
                           f"{', '.join(map(str, types))} is carried", op.line)
        sources = tuple(self._typed_scalar(op, name, t) for name, t in zip(op.operands, types))
        values = self.values

        def run() -> None:
            yielded = [values[source] for source in sources]
            for target, value in zip(targets, yielded):
                values[target] = value
        return run

    def _result_types(self, op: Op) -> tuple[ScalarType, ...]:
        """The scalar types an `scf.for` carries / an `scf.if` results in (the subset carries only scalars)."""
        for t in op.types:
            if not isinstance(t, ScalarType):
                raise rejected(f"{op.name} carrying a {t}: only scalars are carried (tiles are buffers)", op.line)
        return tuple(t for t in op.types if isinstance(t, ScalarType))

    def _typed_scalar(self, op: Op, name: str, expected: ScalarType) -> int:
        index, info = self.use(op, name)
        if info != expected:
            raise rejected(f"{op.name}: %{name} is {info}, not {expected}", op.line)
        return index

    def _region(self, op: Op, ops: tuple[Op, ...], targets: tuple[int, ...], types: tuple[ScalarType, ...]
                ) -> tuple[Step, ...]:
        """The steps of a region of *op*: with results, it ends in its one `scf.yield` (into *targets*)."""
        yields = [i for i, inner in enumerate(ops) if inner.name == "scf.yield"]
        if types and yields != [len(ops) - 1]:
            raise SimError(f"a region of {op.name} with results does not end in its one scf.yield", op.line)
        saved, self.yield_to = self.yield_to, (targets, types) if types else None
        try:
            return self.block(ops)
        finally:
            self.yield_to = saved

    # --- GM views ---------------------------------------------------------------------------
    def op_pto_make_tensor_view(self, op: Op) -> Step:
        source, info = self.use(op, op.operands[0])
        if not isinstance(info, PtrType):
            raise rejected(f"{op.name}: %{op.operands[0]} is not a !pto.ptr argument", op.line)
        shape = [self.scalar(op, name) for name in op.group("shape")]
        strides = [self.scalar(op, name) for name in op.group("strides")]
        view_type = op.types[0]
        rank = len(shape)
        if not isinstance(view_type, ViewType) or view_type.partition:
            raise rejected(f"{op.name}: result type must be !pto.tensor_view", op.line)
        if not 1 <= rank <= MAX_VIEW_RANK or len(strides) != rank or len(view_type.shape) != rank:
            raise rejected(f"{op.name}: shape, strides and type must all have one rank from 1 to "
                           f"{MAX_VIEW_RANK}", op.line)
        if view_type.dtype != info.dtype:
            raise rejected(f"{op.name}: view dtype {view_type.dtype} differs from the pointer's "
                           f"{info.dtype}", op.line)
        index = self.define(op.results[0], TensorInfo(rank, info.dtype, False))
        self.view_args[op.results[0]] = self.view_args.get(op.operands[0], op.operands[0])
        values, line, name = self.values, op.line, op.operands[0]

        def run() -> None:
            flat = values[source]
            dims = tuple(values[s] for s in shape)
            steps = tuple(values[s] for s in strides)
            if min(dims) < 0 or min(steps) < 0:
                raise rejected(f"{op.name}: negative shape or stride", line)
            extent = sum((d - 1) * s for d, s in zip(dims, steps)) + 1 if min(dims) > 0 else 0
            if extent > flat.size:
                raise rejected(f"{op.name}: view of {extent} elements exceeds %{name} "
                               f"({flat.size} elements)", line)
            # flat's own step: a read-only argument may be a strided view (`_bind_tensor`)
            values[index] = as_strided(flat, dims, tuple(s * flat.strides[0] for s in steps))
        return run

    def op_pto_addptr(self, op: Op) -> Step:
        """`%q = pto.addptr %p, %n`: the GM storage of pointer %p from its element %n on (PyPTO's form of a view
        at an offset, `tensor.slice`: a `make_tensor_view` of %q); %n outside [0, size of %p] is rejected."""
        source, info = self.use(op, op.operands[0])
        offset = self.scalar(op, op.operands[1])
        if not isinstance(info, PtrType) or info != op.types[0]:
            raise rejected(f"{op.name}: %{op.operands[0]} is not a {op.types[0]}", op.line)
        index = self.define(op.results[0], info)
        self.view_args[op.results[0]] = self.view_args.get(op.operands[0], op.operands[0])
        values, line, name = self.values, op.line, op.operands[0]

        def run() -> None:
            flat, at = values[source], values[offset]
            if not 0 <= at <= flat.size:
                raise rejected(f"{op.name}: offset {at} is outside %{name} ({flat.size} elements)", line)
            values[index] = flat[at:]
        return run

    def op_pto_comm_peer(self, op: Op) -> Step:
        return comm.peer(self, op)

    def op_pto_comm_tnotify(self, op: Op) -> Step:
        return comm.tnotify(self, op)

    def op_pto_comm_twait(self, op: Op) -> Step:
        return comm.twait(self, op)

    def op_pto_comm_tput(self, op: Op) -> Step:
        return comm.tput(self, op)

    def op_pto_partition_view(self, op: Op) -> Step:
        source, info = self.use(op, op.operands[0])
        if not isinstance(info, TensorInfo) or info.partition:
            raise rejected(f"{op.name}: %{op.operands[0]} is not a tensor_view", op.line)
        offsets = [self.scalar(op, name) for name in op.group("offsets")]
        sizes = [self.scalar(op, name) for name in op.group("sizes")]
        if len(offsets) != info.rank or len(sizes) != info.rank:
            raise rejected(f"{op.name}: offsets and sizes must have rank {info.rank}", op.line)
        result_type = op.types[1]
        if not isinstance(result_type, ViewType) or not result_type.partition:
            raise rejected(f"{op.name}: result type must be !pto.partition_tensor_view", op.line)
        if result_type.dtype != info.dtype:
            raise rejected(f"{op.name}: dtype {result_type.dtype} differs from the view's "
                           f"{info.dtype}", op.line)
        if len(result_type.shape) != info.rank:
            raise rejected(f"{op.name}: result type {result_type} has not the view's rank {info.rank}", op.line)
        static = (1, *result_type.shape)  # of a 1-D view's window (`cut`)
        index = self.define(op.results[0], TensorInfo(2, info.dtype, True))
        self.view_args[op.results[0]] = self.view_args[op.operands[0]]
        values, line = self.values, op.line
        rank = len(offsets)
        read_key = operator.itemgetter(*offsets, *sizes)  # two or more slots: always a tuple
        cache: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        """Windows already cut, by offsets and sizes, with the view they were cut from."""

        def run() -> None:
            view = values[source]
            key = read_key(values)
            hit = cache.get(key)
            if hit is not None and hit[0] is view:
                values[index] = hit[1]
                return
            window = cut(view, list(key[:rank]), list(key[rank:]))
            cache[key] = (view, window)
            values[index] = window

        def cut(view: np.ndarray, starts: list[int], extents: list[int]) -> np.ndarray:
            for start, extent, dim in zip(starts, extents, view.shape):
                if start < 0 or extent < 0 or start + extent > dim:
                    raise rejected(f"{op.name}: window offsets {starts} sizes {extents} exceed "
                                   f"the view's shape {list(view.shape)}", line)
            if len(extents) == 1:
                # docs/pto-subset.md: a window of a 1-D view is one row, [1, N]
                window = view[starts[0]:starts[0] + extents[0]].reshape(1, extents[0])
                for want, got in zip(static, window.shape):
                    if want is not None and want != got:
                        raise rejected(f"{op.name}: window {list(window.shape)} differs from its "
                                       f"type {result_type}", line)
                return window
            for want, got in zip(result_type.shape, extents):
                if want is not None and want != got:
                    raise rejected(f"{op.name}: window {extents} differs from its type {result_type}", line)
            index: tuple[Any, ...] = (*(start if extent == 1 else slice(start, start + extent)
                                        for start, extent in zip(starts[:-2], extents[:-2])),
                                      slice(starts[-2], starts[-2] + extents[-2]),
                                      slice(starts[-1], starts[-1] + extents[-1]))
            return _tile_rows(view[index])
        return run

    # --- tiles ------------------------------------------------------------------------------
    def op_pto_alloc_tile(self, op: Op) -> Step | None:
        tile_type = op.types[0]
        if not isinstance(tile_type, TileType):
            raise rejected(f"{op.name}: result type must be !pto.tile_buf", op.line)
        if tile_type.rows <= 0 or tile_type.cols <= 0:
            raise rejected(f"{op.name}: tile shape {tile_type.rows}x{tile_type.cols}", op.line)
        if not op.group("addr"):
            raise SimError(f"{op.name} needs addr = %value", op.line)
        operands = [op.group("addr")[0], *op.group("valid_row"), *op.group("valid_col")]
        for name in operands:
            self.scalar(op, name)
        result = op.results[0]
        index = self.define(result, tile_type)
        default_rows = tile_type.v_row if tile_type.v_row is not None else tile_type.rows
        default_cols = tile_type.v_col if tile_type.v_col is not None else tile_type.cols
        place = self._placer(op, tile_type)
        addr_slot = self.slots[operands[0]]
        row_slot = self.slots[op.group("valid_row")[0]] if op.group("valid_row") else None
        col_slot = self.slots[op.group("valid_col")[0]] if op.group("valid_col") else None
        if all(name in self.constants for name in operands):
            key = (self.values[addr_slot],
                   default_rows if row_slot is None else self.values[row_slot],
                   default_cols if col_slot is None else self.values[col_slot])
            tile = place(*key)
            values = self.values

            def run_static() -> None:
                values[index] = tile
            return run_static
        cache: dict[tuple[int, int, int], Tile] = {}
        values = self.values

        def run() -> None:
            key = (values[addr_slot],
                   default_rows if row_slot is None else values[row_slot],
                   default_cols if col_slot is None else values[col_slot])
            tile = cache.get(key)
            if tile is None:
                tile = cache[key] = place(*key)
            values[index] = tile
        return run

    def _placer(self, op: Op, tile_type: TileType) -> Callable[[int, int, int], Tile]:
        arena = self.memory.arenas[tile_type.loc]
        name = op.results[0]

        def place(addr: int, valid_rows: int, valid_cols: int) -> Tile:
            if not (0 <= valid_rows <= tile_type.rows and 0 <= valid_cols <= tile_type.cols):
                raise rejected(f"tile %{name}: valid shape {valid_rows}x{valid_cols} exceeds "
                               f"its {tile_type.rows}x{tile_type.cols}", op.line)
            nbytes = tile_type.rows * tile_type.cols * DTYPES[tile_type.dtype].size
            if not arena.fits(addr, nbytes):
                raise rejected(f"tile %{name} [{addr}, {addr + nbytes}) exceeds the "
                               f"{tile_type.loc} capacity of {arena.capacity} bytes on "
                               f"{self.target}", op.line)
            return arena.tile(addr, tile_type.rows, tile_type.cols, tile_type.dtype,
                              valid_rows, valid_cols)
        return place

    # --- data movement ------------------------------------------------------------------------
    def op_pto_tload(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        source, view = self.window(op, op.operands[0], "source")
        dest, tile_type = self.tile(op, op.group("outs")[0], "destination", ("mat", "vec"))
        if view.dtype != tile_type.dtype:
            raise rejected(f"{op.name}: view dtype {view.dtype} differs from tile dtype "
                           f"{tile_type.dtype}", op.line)
        values, line = self.values, op.line

        def run() -> None:
            window, tile = values[source], values[dest]
            valid = tile.valid
            if window.ndim > 2:  # a window whose leading axes do not collapse in place (`_tile_rows`)
                _same_shape(op.name, _rows_shape(window), tile, line)
                window = window.reshape(valid.shape)
            elif window.shape != valid.shape:
                _same_shape(op.name, window.shape, tile, line)
            valid[...] = window
            if tile.written is not None:
                _mark(tile)
        return run

    def op_pto_tstore(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        source, tile_type = self.tile(op, op.operands[0], "source", ("acc", "vec", "mat"))
        dest, view = self.window(op, op.group("outs")[0], "destination")
        self.stored_args.add(self.view_args[op.group("outs")[0]])
        atomic = op.attr("atomic")
        if atomic not in (None, "#pto.atomic<add>", "#pto.atomic<none>"):
            raise SimError(f"{op.name}: unknown atomic mode {atomic}", op.line)
        is_acc = tile_type.loc == "acc"
        allowed = _FIXPIPE.get(tile_type.dtype, frozenset()) if is_acc else {tile_type.dtype}
        if view.dtype not in allowed:
            raise rejected(f"{op.name}: cannot store a {tile_type.loc} {tile_type.dtype} tile "
                           f"to a {view.dtype} view", op.line)
        arg = self.view_args[op.group("outs")[0]]
        if self.watch is not None and self.watch[0] == arg:
            store = self._store_run(op, source, dest, tile_type, view)
            values, line, arg_slot, element, writers = self.values, op.line, self.slot(arg), self.watch[1], self.writers

            def watched() -> None:
                store()
                if np.shares_memory(values[dest], values[arg_slot][element:element + 1]):
                    writers.append(line)
            return watched
        return self._store_run(op, source, dest, tile_type, view)

    def _store_run(self, op: Op, source: int, dest: int, tile_type: TileType, view: TensorInfo) -> Step:
        """The step of a `pto.tstore` (checked by `op_pto_tstore`)."""
        is_acc = tile_type.loc == "acc"
        adds = op.attr("atomic") == "#pto.atomic<add>"
        src_dtype, gm_dtype = tile_type.dtype, view.dtype
        values, line, checks = self.values, op.line, self.strict and is_acc

        def run() -> None:
            tile, window = values[source], values[dest]
            _same_shape(op.name, _rows_shape(window), tile, line)
            if checks:
                _check_defined(op.name, tile, line)
            stored = tile.valid if src_dtype == gm_dtype else narrow(widen(tile.valid, src_dtype),
                                                                     gm_dtype)
            if window.ndim > 2:  # the tile's rows go to the window's leading axes in row-major order
                stored = stored.reshape(window.shape)
            if adds:
                window[...] = _atomic_add(window, stored, gm_dtype)
            else:
                window[...] = stored
        return run

    def op_pto_textract(self, op: Op) -> Step:
        self._arity(op, 3, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("mat", "vec"))
        row, col = self.scalar(op, op.operands[1]), self.scalar(op, op.operands[2])
        # docs/pto-subset.md: mat -> left / right (the cube's operands), or a vec -> vec window copy.
        targets = ("vec",) if src_type.loc == "vec" else ("left", "right")
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", targets)
        if src_type.dtype != dst_type.dtype:
            raise rejected(f"{op.name}: source dtype {src_type.dtype} differs from destination "
                           f"dtype {dst_type.dtype}", op.line)
        transpose = op.attr("transpose", False)
        if transpose not in (True, False):
            raise SimError(f"{op.name}: transpose must be true or false", op.line)
        if transpose and src_type.loc == "vec":
            raise rejected(f"{op.name}: a vec -> vec window copy does not transpose", op.line)
        values, line = self.values, op.line

        def run() -> None:
            src, dst = values[source], values[dest]
            top, left = values[row], values[col]
            if transpose:
                height, width = dst.valid_cols, dst.valid_rows
            else:
                height, width = dst.valid_rows, dst.valid_cols
            if top < 0 or left < 0 or top + height > src.valid_rows or \
                    left + width > src.valid_cols:
                raise rejected(f"{op.name}: window [{top}:{top + height}, {left}:{left + width}] "
                               f"exceeds the source's valid {src.valid_rows}x{src.valid_cols}",
                               line)
            window = src.valid[top:top + height, left:left + width]
            if transpose:
                # numpy transposes a strided column window slowly: gather its rows first
                dst.valid[...] = (window if window.flags.c_contiguous else np.ascontiguousarray(window)).T
            else:
                dst.valid[...] = window
            if dst.written is not None:
                _mark(dst)
        return run

    def op_pto_tmov(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source",
                                     ("mat", "vec", "acc", "left", "right", "bias"))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination",
                                   ("mat", "vec", "acc", "left", "right", "bias"))
        pair = (src_type.loc, dst_type.loc)
        # TARGET_FACTS.md, "Who may read L0C": no Acc->Acc copy exists; Acc->Vec only on a5.
        if pair not in _TMOV_PAIRS or (pair == ("acc", "vec") and self.target != "a5"):
            raise rejected(f"{op.name}: {src_type.loc} -> {dst_type.loc} is not a legal move on "
                           f"{self.target}", op.line)
        self._check_tmov_dtypes(op, src_type, dst_type)
        src_dtype, dst_dtype = src_type.dtype, dst_type.dtype
        values, line, checks = self.values, op.line, self.strict and src_type.loc == "acc"

        in_ub = pair == ("vec", "vec")

        def run() -> None:
            src, dst = values[source], values[dest]
            _same_shape(op.name, src.valid.shape, dst, line)
            # the bytes each valid region really covers (a window's rows are strided at its row pitch)
            if in_ub and np.shares_memory(src.valid, dst.valid):
                raise rejected(f"{op.name}: vec -> vec between overlapping tiles (bytes {src.addr} and {dst.addr}): "
                               "TMOV does not move in place", line)
            if checks:
                _check_defined(op.name, src, line)
            if src_dtype == dst_dtype:
                dst.valid[...] = src.valid
            else:
                dst.valid[...] = narrow(widen(src.valid, src_dtype), dst_dtype)
            _mark(dst)
        return run

    @staticmethod
    def _check_tmov_dtypes(op: Op, src: TileType, dst: TileType) -> None:
        if src.dtype == dst.dtype:
            return
        if src.loc == "acc" and dst.dtype in _FIXPIPE.get(src.dtype, frozenset()):
            return
        if dst.loc == "bias" and dst.dtype == "f32" and src.dtype in ("f16", "bf16"):
            return
        raise rejected(f"{op.name}: cannot convert {src.dtype} to {dst.dtype} from {src.loc} to "
                       f"{dst.loc}", op.line)

    # --- cube -----------------------------------------------------------------------------
    def _matmul_operands(self, op: Op, names: tuple[str, ...], out: str
                         ) -> tuple[int, int, int, str, str]:
        lhs, lhs_type = self.tile(op, names[0], "lhs", ("left",))
        rhs, rhs_type = self.tile(op, names[1], "rhs", ("right",))
        acc, acc_type = self.tile(op, out, "accumulator", ("acc",))
        if lhs_type.dtype != rhs_type.dtype or lhs_type.dtype not in _MATMUL_ACC:
            raise rejected(f"{op.name}: no matmul on lhs {lhs_type.dtype} x rhs {rhs_type.dtype}",
                           op.line)
        if _MATMUL_ACC[lhs_type.dtype] != acc_type.dtype:
            raise rejected(f"{op.name}: {lhs_type.dtype} inputs accumulate in "
                           f"{_MATMUL_ACC[lhs_type.dtype]}, not {acc_type.dtype}", op.line)
        return lhs, rhs, acc, lhs_type.dtype, acc_type.dtype

    def op_pto_tmatmul(self, op: Op) -> Step:
        self._arity(op, 2, 1)
        lhs, rhs, acc, in_dtype, _ = self._matmul_operands(op, op.operands, op.group("outs")[0])
        values, line = self.values, op.line

        def run() -> None:
            a, b, c = values[lhs], values[rhs], values[acc]
            _check_mnk(op.name, a, b, c, line)
            _product(a, b, in_dtype, out=c.valid)
            if c.written is not None:
                _mark(c)
        return run

    def op_pto_tmatmul_acc(self, op: Op) -> Step:
        self._arity(op, 3, 1)
        out = op.group("outs")[0]
        if op.operands[0] != out:
            # docs/pto-subset.md: the accumulator is read and written in place.
            raise rejected(f"{op.name}: ins[0] %{op.operands[0]} and outs %{out} differ; the "
                           "accumulator must be the same SSA value", op.line)
        lhs, rhs, acc, in_dtype, _ = self._matmul_operands(op, op.operands[1:], out)
        values, line, checks = self.values, op.line, self.strict

        def run() -> None:
            a, b, c = values[lhs], values[rhs], values[acc]
            _check_covered(op.name, a, b, c, line)
            if checks:
                _check_defined(op.name, c, line)
            # PTO computes the lhs's valid rows by the rhs's valid columns into the accumulator, whose
            # valid region may be larger (PyPTO's tile.matmul_acc: it must contain that rectangle)
            rectangle = c.valid[:a.valid_rows, :b.valid_cols]
            np.add(rectangle, _product(a, b, in_dtype), out=rectangle)
            _mark(c)
        return run

    def op_pto_tmatmul_bias(self, op: Op) -> Step:
        self._arity(op, 3, 1)
        lhs, rhs, acc, in_dtype, acc_dtype = self._matmul_operands(op, op.operands[:2],
                                                                   op.group("outs")[0])
        bias, bias_type = self.tile(op, op.operands[2], "bias", ("bias",))
        allowed = ("f32", "f16", "bf16") if acc_dtype == "f32" else ("i32",)
        if bias_type.dtype not in allowed:
            raise rejected(f"{op.name}: a {bias_type.dtype} bias for a {acc_dtype} accumulator",
                           op.line)
        bias_dtype = bias_type.dtype
        values, line = self.values, op.line

        def run() -> None:
            a, b, c, row = values[lhs], values[rhs], values[acc], values[bias]
            _check_mnk(op.name, a, b, c, line)
            if row.valid_rows < 1 or row.valid_cols != c.valid_cols:
                raise rejected(f"{op.name}: bias {row.valid_rows}x{row.valid_cols} does not "
                               f"give one row of {c.valid_cols}", line)
            bias_row = widen(row.valid[0], bias_dtype)
            if acc_dtype == "i32":
                bias_row = bias_row.astype(np.int32)
            c.valid[...] = _product(a, b, in_dtype) + bias_row
            _mark(c)
        return run

    # --- vector -----------------------------------------------------------------------------
    def vector_binary(self, op: Op) -> Step:
        self._arity(op, 2, 1)
        scalar_form = op.name in _SCALAR_VECTOR
        lhs, lhs_type = self.tile(op, op.operands[0], "lhs", ("vec",))
        if scalar_form:
            rhs = self.scalar(op, op.operands[1])
            rhs_dtype = lhs_type.dtype
        else:
            rhs, rhs_type = self.tile(op, op.operands[1], "rhs", ("vec",))
            rhs_dtype = rhs_type.dtype
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        if not lhs_type.dtype == rhs_dtype == dst_type.dtype:
            raise rejected(f"{op.name}: operand dtypes {lhs_type.dtype}, {rhs_dtype} and "
                           f"{dst_type.dtype} differ", op.line)
        dtype = dst_type.dtype
        compute = _SCALAR_VECTOR.get(op.name) or _BINARY_VECTOR[op.name]
        integer_div = op.name in _DIVIDES and not DTYPES[dtype].is_float
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[lhs], values[dest]
            y: np.ndarray | np.number
            if scalar_form:
                other = values[rhs]
                _same_shape(op.name, a.valid.shape, c, line)
                y = np.float32(other) if DTYPES[dtype].is_float else np.int64(other)
            else:
                b = values[rhs]
                _same_shape(op.name, a.valid.shape, c, line)
                y = widen(_over(op.name, b, a.valid.shape, line), dtype)
            x = widen(a.valid, dtype)
            if integer_div:
                result = _int_divide(op.name, x, y, line)
            elif op.name == "pto.tfmods":
                result = _remainder(op.name, x, y, line)
            else:
                result = compute(x, y)
            c.valid[...] = narrow(result, dtype)
            _mark(c)
        return run

    def vector_unary(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        compute, floats_only = _UNARY_VECTOR[op.name]
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        if src_type.dtype != dst_type.dtype:
            raise rejected(f"{op.name}: source dtype {src_type.dtype} differs from destination "
                           f"dtype {dst_type.dtype}", op.line)
        dtype = dst_type.dtype
        if floats_only and not DTYPES[dtype].is_float:
            raise rejected(f"{op.name} needs a float tile, not {dtype}", op.line)
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            _same_shape(op.name, a.valid.shape, c, line)
            c.valid[...] = narrow(compute(widen(a.valid, dtype)), dtype)
            _mark(c)
        return run

    def _same_dtypes(self, op: Op, *types: TileType) -> str:
        dtypes = [t.dtype for t in types]
        if len(set(dtypes)) != 1:
            raise rejected(f"{op.name}: operand dtypes {', '.join(dtypes)} differ", op.line)
        return dtypes[0]

    def vector_reduce(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        reduce, axis = _REDUCE_VECTOR[op.name]
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = self._same_dtypes(op, src_type, dst_type)
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            rows, cols = a.valid.shape
            if rows == 0 or cols == 0:
                raise rejected(f"{op.name}: the source's valid region {rows}x{cols} is empty",
                               line)
            _same_shape(op.name, (rows, 1) if axis == 1 else (1, cols), c, line)
            c.valid[...] = narrow(reduce.reduce(widen(a.valid, dtype), axis=axis, keepdims=True),
                                  dtype)
            _mark(c)
        return run

    def vector_expand(self, op: Op) -> Step:
        self._arity(op, 2, 1)
        compute, axis = _EXPAND_VECTOR[op.name]
        lhs, lhs_type = self.tile(op, op.operands[0], "lhs", ("vec",))
        rhs, rhs_type = self.tile(op, op.operands[1], "rhs", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = self._same_dtypes(op, lhs_type, rhs_type, dst_type)
        integer_div = op.name in _DIVIDES and not DTYPES[dtype].is_float
        values, line = self.values, op.line

        def run() -> None:
            a, b, c = values[lhs], values[rhs], values[dest]
            rows, cols = a.valid.shape
            vector = _broadcast_operand(op.name, b, (rows, 1) if axis == 1 else (1, cols), line)
            _same_shape(op.name, (rows, cols), c, line)
            x, y = widen(a.valid, dtype), widen(vector, dtype)
            result = _int_divide(op.name, x, y, line) if integer_div else compute(x, y)
            c.valid[...] = narrow(result, dtype)
            _mark(c)
        return run

    def op_pto_trowexpand(self, op: Op) -> Step:
        return self._broadcast(op, 1)

    def op_pto_tcolexpand(self, op: Op) -> Step:
        return self._broadcast(op, 0)

    def _broadcast(self, op: Op, axis: int) -> Step:
        """`trowexpand` (axis 1): `dst[i, j] = src[i, 0]`, src of valid shape `dst.valid_rows x 1`;
        `tcolexpand` (axis 0): `dst[i, j] = src[0, j]`, src `1 x dst.valid_cols`."""
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        self._same_dtypes(op, src_type, dst_type)
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            rows, cols = c.valid.shape
            vector = _broadcast_operand(op.name, a, (rows, 1) if axis == 1 else (1, cols), line)
            c.valid[...] = np.broadcast_to(vector, (rows, cols))
            _mark(c)
        return run

    def op_pto_ttrans(self, op: Op) -> Step:
        """`dst = src^T` on the valid regions (dst's valid shape is src's reversed)."""
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        self._same_dtypes(op, src_type, dst_type)
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            _same_shape(op.name, (a.valid_cols, a.valid_rows), c, line)
            c.valid[...] = a.valid.T.copy()  # a copy first: the two tiles may overlap
            _mark(c)
        return run

    def op_pto_tconcat(self, op: Op) -> Step:
        """`dst = [a | b]` along the columns (PyPTO's `tile.concat`): a's valid region in dst's first columns, b's
        after it; a, b and dst of one dtype and one valid row count, dst's valid columns a's and b's together."""
        self._arity(op, 2, 1)
        first, first_type = self.tile(op, op.operands[0], "first source", ("vec",))
        second, second_type = self.tile(op, op.operands[1], "second source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        self._same_dtypes(op, first_type, second_type, dst_type)
        values, line = self.values, op.line

        def run() -> None:
            a, b, c = values[first], values[second], values[dest]
            if not a.valid_rows == b.valid_rows == c.valid_rows or c.valid_cols != a.valid_cols + b.valid_cols:
                raise rejected(f"{op.name}: sources of valid shapes {a.valid_rows}x{a.valid_cols} and "
                               f"{b.valid_rows}x{b.valid_cols} into a destination of {c.valid_rows}x{c.valid_cols}",
                               line)
            # both sources read whole before dst is written, like every instruction here: they may overlap it
            c.valid[...] = np.concatenate((a.valid, b.valid), axis=1)
            _mark(c)
        return run

    def op_pto_tcmps(self, op: Op) -> Step:
        return self._compare(op, scalar_form=True)

    def op_pto_tcmp(self, op: Op) -> Step:
        return self._compare(op, scalar_form=False)

    def _compare(self, op: Op, scalar_form: bool) -> Step:
        """`pto.tcmps ins(%src, %s {cmpMode = #pto<cmp ge>}) outs(%mask)` (`pto.tcmp`: a tile `%rhs` of src's valid
        shape for `%s`): PyPTO's packed predicate mask of the f32 src (`tile.cmps` / `tile.cmp`): lane j of row i
        is bit j % 8 (least significant first) of mask byte [i, j // 8]; mask is ui8 of src's valid rows and
        ceil(valid columns / 8) valid bytes. Valid columns not a multiple of 8 (what the last byte's high bits
        hold is not modelled) and a NaN lane (its compare on the hardware is not modelled) are not simulated."""
        self._arity(op, 2, 1)
        predicate = _CMP_MODES.get(str(op.attr("cmpMode")))
        if predicate is None:
            raise rejected(f"{op.name}: cmpMode {op.attr('cmpMode')} is not one of "
                           + ", ".join(f"#pto<cmp {m}>" for m in _CMP_MODES_ORDER), op.line)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        if scalar_form:
            rhs = self.scalar(op, op.operands[1])
        else:
            rhs, rhs_type = self.tile(op, op.operands[1], "rhs", ("vec",))
            self._same_dtypes(op, src_type, rhs_type)
        dest, dst_type = self.tile(op, op.group("outs")[0], "mask", ("vec",))
        if src_type.dtype != "f32" or dst_type.dtype != "ui8":
            raise rejected(f"{op.name}: an f32 source and a ui8 mask, not {src_type.dtype} and {dst_type.dtype}",
                           op.line)
        values, line = self.values, op.line

        def run() -> None:
            a, m = values[source], values[dest]
            rows, cols = a.valid.shape
            y = np.float32(values[rhs]) if scalar_form else _over(op.name, values[rhs], (rows, cols), line)
            if cols % 8:
                raise SimError(f"{op.name}: {cols} valid columns are not whole bytes of the mask (not modelled)", line)
            _same_shape(op.name, (rows, cols // 8), m, line)
            x = a.valid.astype(np.float32)
            if np.isnan(x).any() or np.isnan(y).any():
                raise SimError(f"{op.name}: a NaN lane: its compare is not modelled", line)
            bits = predicate(x, np.asarray(y, dtype=np.float32))
            m.valid[...] = np.packbits(bits, axis=1, bitorder="little")
            _mark(m)
        return run

    def op_pto_tsel(self, op: Op) -> Step:
        """`pto.tsel ins(%mask, %a, %b, %tmp) outs(%dst)` (PyPTO's `tile.sel`): `dst[i, j] = a[i, j]` where bit j % 8 of
        mask byte [i, j // 8] is set, else `b[i, j]`, over dst's valid region; a, b and dst of one dtype, a and b
        read over dst's valid shape. tmp, the ui8 scratch TSEL needs, is left poisoned (what it holds after is
        not modelled). dst overlapping the mask or tmp is refused (PyPTO's forbid_output_alias); it may be a or b."""
        self._arity(op, 4, 1)
        mask, mask_type = self.tile(op, op.operands[0], "mask", ("vec",))
        first, first_type = self.tile(op, op.operands[1], "lhs", ("vec",))
        second, second_type = self.tile(op, op.operands[2], "rhs", ("vec",))
        scratch, tmp_type = self.tile(op, op.operands[3], "scratch", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = self._same_dtypes(op, first_type, second_type, dst_type)
        if mask_type.dtype != "ui8" or tmp_type.dtype != "ui8":
            raise rejected(f"{op.name}: a ui8 mask and scratch, not {mask_type.dtype} and {tmp_type.dtype}", op.line)
        values, line = self.values, op.line

        def run() -> None:
            m, a, b, tmp, c = values[mask], values[first], values[second], values[scratch], values[dest]
            rows, cols = c.valid.shape
            if m.valid_rows != rows or m.valid_cols * 8 < cols:
                raise rejected(f"{op.name}: a mask of {m.valid_rows}x{m.valid_cols} bytes for a destination of "
                               f"{rows}x{cols}", line)
            for role, tile in (("mask", m), ("scratch", tmp)):
                if np.shares_memory(tile.data, c.valid):
                    raise rejected(f"{op.name}: the destination (bytes from {c.addr}) overlaps the {role} (bytes "
                                   f"from {tile.addr})", line)
            bits = np.unpackbits(m.valid, axis=1, bitorder="little")[:, :cols].astype(bool)
            picked = np.where(bits, widen(_over(op.name, a, (rows, cols), line), dtype),
                              widen(_over(op.name, b, (rows, cols), line), dtype))
            c.valid[...] = narrow(picked, dtype)
            tmp.data[...] = _POISON_BYTES[(tmp.addr + np.arange(tmp.data.size)) % 4].reshape(tmp.data.shape)
            _mark(c)
        return run

    def op_pto_tsort32(self, op: Op) -> Step:
        """`pto.tsort32 ins(%src, %idx) outs(%dst)` (PyPTO's `tile.sort32`), the f32 form: each 32-column block of
        every valid row of src sorted by value, descending, equal values in their column order (PyPTO's and
        pypto-lib's goldens sort stably); dst's valid row holds, per sorted element, the value then the u32 bits
        of the idx element that came with it (dst of twice src's valid columns). idx, u32 or i32, has src's
        valid shape. Valid columns not a multiple of 32, dst overlapping src or idx (`_apart`), and NaN (whose
        place the ISA text leaves open), are refused."""
        self._arity(op, 2, 1)
        source, src_type = self.tile(op, op.operands[0], "values", ("vec",))
        indices, idx_type = self.tile(op, op.operands[1], "indices", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        if src_type.dtype != "f32" or dst_type.dtype != "f32" or idx_type.dtype not in ("ui32", "i32"):
            raise rejected(f"{op.name}: f32 values and destination and ui32 / i32 indices, not {src_type.dtype}, "
                           f"{dst_type.dtype} and {idx_type.dtype}", op.line)
        values, line = self.values, op.line

        def run() -> None:
            a, ix, c = values[source], values[indices], values[dest]
            rows, cols = a.valid.shape
            _same_shape(op.name, (rows, cols), ix, line)
            _same_shape(op.name, (rows, 2 * cols), c, line)
            if cols % 32:
                raise rejected(f"{op.name}: {cols} valid columns are not whole 32-element blocks", line)
            _apart(op.name, c, (a, ix), line)
            if np.isnan(a.valid).any():
                raise SimError(f"{op.name}: a NaN value: its place in the order is not modelled", line)
            keys = a.valid.reshape(rows, cols // 32, 32)
            order = np.argsort(-keys, axis=2, kind="stable")
            picked = np.take_along_axis(keys, order, axis=2).reshape(rows, cols)
            bits = ix.valid.astype(np.uint32).view(np.float32).reshape(rows, cols // 32, 32)
            pairs = np.empty((rows, cols, 2), dtype=np.float32)
            pairs[:, :, 0] = picked
            pairs[:, :, 1] = np.take_along_axis(bits, order, axis=2).reshape(rows, cols)
            c.valid[...] = pairs.reshape(rows, 2 * cols)
            _mark(c)
        return run

    def op_pto_tmrgsort(self, op: Op) -> Step:
        """`pto.tmrgsort`: format 2 when it has two outs (`_merge_lists`), else format 1 (`_merge_runs`)."""
        if len(op.group("outs")) == 2:
            return self._merge_lists(op)
        return self._merge_runs(op)

    def _merge_lists(self, op: Op) -> Step:
        """`pto.tmrgsort ins(%src0, %src1[, %src2[, %src3]], %tmp {exhausted = false}) outs(%dst, %executed)` (format
        2, PyPTO's `tile.mrgsort(src0, src1, ..., tmp)`): the 2-4 sources, each one valid row of f32 (value, index)
        pairs, are merged pair by pair as A2A3's TMRGSORT does (pto-isa's TMrgSort.hpp): `vmrgsort4` repeatedly
        takes the head pair of greatest value, the lowest-numbered list on a tie, writing the merged
        `sum(valid lanes)` lanes into the workspace `tmp`, then `dst`'s valid lanes are copied from `tmp` in 32-byte
        blocks (lanes beyond the merge are whatever `tmp` held). `executed` (`vector<4xi16>`) is only written with
        `exhausted = true`, which is outside the subset. Refused (PV202): other than one row, an odd lane count,
        a workspace narrower than the merged lanes (the ISA's `tmp.Cols >= sum(src.Cols)`), the workspace overlapping a
        source (the merge writes it while it reads them), dst overlapping a source or the workspace (PyPTO's
        `not_inplace_safe`); a NaN is not modelled."""
        ins, outs = op.operands, op.group("outs")
        if not 3 <= len(ins) <= 5:
            raise rejected(f"{op.name} merges 2 to 4 lists and a workspace, not {len(ins)} ins", op.line)
        if op.attr("exhausted") is not False:
            raise SimError(f"{op.name} with exhausted = {op.attr('exhausted')} is outside the subset "
                           "(exhausted = false only)", op.line)
        lists = [self.tile(op, name, f"list {i}", ("vec",)) for i, name in enumerate(ins[:-1])]
        scratch, tmp_type = self.tile(op, ins[-1], "workspace", ("vec",))
        dest, dst_type = self.tile(op, outs[0], "destination", ("vec",))
        _, status_type = self.use(op, outs[1])
        if not isinstance(status_type, VectorType):
            raise rejected(f"{op.name}: the executed counts %{outs[1]} are not a vector<4xi16>", op.line)
        if any(t.dtype != "f32" for t in (*(t for _, t in lists), tmp_type, dst_type)):
            raise rejected(f"{op.name}: f32 pairs in every list, the workspace and the destination", op.line)
        values, line, sources = self.values, op.line, [index for index, _ in lists]

        def run() -> None:
            heads, t, c = [values[i] for i in sources], values[scratch], values[dest]
            for k, tile in enumerate((*heads, t, c)):
                if tile.valid_rows != 1:
                    raise rejected(f"{op.name}: {_merge_role(k, len(heads))} has {tile.valid_rows} valid rows, not one",
                                   line)
            if any(h.valid_cols % 2 for h in heads):
                raise rejected(f"{op.name}: a list of an odd number of lanes (whole (value, index) pairs)", line)
            total = sum(h.valid_cols for h in heads)
            if total > t.cols:  # the ISA's tmp.Cols >= the sum of the sources', on the lanes really merged
                raise rejected(f"{op.name}: a workspace of {t.cols} columns for a merge of "
                               f"{' + '.join(str(h.valid_cols) for h in heads)} lanes", line)
            written = t.data[0, :total]
            for k, h in enumerate(heads):
                if np.shares_memory(h.valid, written):
                    raise rejected(f"{op.name}: the workspace (bytes from {t.addr}) overlaps list {k} (bytes from "
                                   f"{h.addr}): the merge writes it while reading the lists", line)
                if np.shares_memory(h.valid, c.valid):
                    raise rejected(f"{op.name}: the destination (bytes from {c.addr}) overlaps list {k} (bytes from "
                                   f"{h.addr}): TMRGSORT does not merge in place", line)
            blocks = -(-c.valid_cols // 8) * 8  # the UB-to-UB copy moves whole 32-byte blocks
            if blocks > t.cols or blocks > c.cols:
                raise rejected(f"{op.name}: a copy of {blocks} lanes from a workspace of {t.cols} into a "
                               f"destination of {c.cols} columns", line)
            if np.shares_memory(t.data[0, :blocks], c.data[0, :blocks]):
                raise rejected(f"{op.name}: the destination (bytes from {c.addr}) overlaps the workspace (bytes from "
                               f"{t.addr})", line)
            pairs = [h.valid[0].reshape(-1, 2) for h in heads]
            if any(np.isnan(p[:, 0]).any() for p in pairs):
                raise SimError(f"{op.name}: a NaN value: its place in the order is not modelled", line)
            written[...] = _merge_pairs(pairs).reshape(-1)
            _mark(t)
            c.data[0, :blocks] = t.data[0, :blocks]
            _mark(c)
        return run

    def _merge_runs(self, op: Op) -> Step:
        """`pto.tmrgsort ins(%src, %blockLen) outs(%dst)` (format 1, PyPTO's `tile.mrgsort(src, block_len=n)`): src's
        one valid row of f32 (value, index) pairs is runs of blockLen lanes, each sorted descending by value;
        every four consecutive runs are merged into one, descending, an equal value taken from the earlier run
        first (so sort32 then merges sort stably, as PyPTO's and pypto-lib's goldens expect). Refused: other
        than one row, a blockLen that is not a positive multiple of 64 (PyPTO's check), valid lanes not whole
        groups of four runs, dst overlapping src (`_apart`), a run that is not sorted; a NaN is not modelled."""
        self._arity(op, 2, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        length = self.scalar(op, op.operands[1])
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        if src_type.dtype != "f32" or dst_type.dtype != "f32":
            raise rejected(f"{op.name}: f32 pairs, not {src_type.dtype} into {dst_type.dtype}", op.line)
        values, line = self.values, op.line

        def run() -> None:
            a, c, n = values[source], values[dest], int(values[length])
            _same_shape(op.name, a.valid.shape, c, line)
            rows, lanes = a.valid.shape
            if rows != 1:
                raise rejected(f"{op.name}: merges one row, not {rows}", line)
            _apart(op.name, c, (a,), line)
            if n <= 0 or n % 64 or lanes % (4 * n):
                raise rejected(f"{op.name}: {lanes} valid lanes are not whole groups of four runs of {n} "
                               "(a positive multiple of 64)", line)
            pairs = a.valid.reshape(lanes // (4 * n), 4 * n // 2, 2)
            keys = pairs[:, :, 0]
            if np.isnan(keys).any():
                raise SimError(f"{op.name}: a NaN value: its place in the order is not modelled", line)
            runs = keys.reshape(lanes // n, n // 2)
            if (runs[:, 1:] > runs[:, :-1]).any():
                raise SimError(f"{op.name}: a run of {n} lanes is not sorted descending: the merge of unsorted runs "
                               "is not modelled", line)
            order = np.argsort(-keys, axis=1, kind="stable")  # the runs in order, each sorted: a stable merge
            merged = np.take_along_axis(pairs, order[:, :, None], axis=1)
            c.valid[...] = merged.reshape(1, lanes)
            _mark(c)
        return run

    def op_pto_tgather(self, op: Op) -> Step:
        """`pto.tgather ins(%src, %idx, %tmp) outs(%dst)`, the index form: `dst[i, j] = src_flat[idx[i, j]]`, `src_flat`
        src's row-major physical layout; an index outside src's valid region is rejected (never wrapped). `tmp`, an
        i32 scratch tile of idx's shape, is the instruction's workspace: it is left holding the byte offsets, so
        a scratch overlapping another operand shows."""
        if op.attr("maskPattern") is not None:
            return self._gather_mask(op)
        self._arity(op, 3, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        indices, idx_type = self.tile(op, op.operands[1], "indices", ("vec",))
        scratch, tmp_type = self.tile(op, op.operands[2], "scratch", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        self._same_dtypes(op, src_type, dst_type)
        if idx_type.dtype != "i32" or tmp_type.dtype != "i32":
            raise rejected(f"{op.name}: indices and scratch are i32 tiles, not {idx_type.dtype} and {tmp_type.dtype}",
                           op.line)
        values, line, size = self.values, op.line, DTYPES[src_type.dtype].size

        def run() -> None:
            a, ix, t, c = values[source], values[indices], values[scratch], values[dest]
            _same_shape(op.name, (ix.valid_rows, ix.valid_cols), c, line)
            _same_shape(op.name, (ix.valid_rows, ix.valid_cols), t, line)
            flat = ix.valid.astype(np.int64)
            rows, cols = np.divmod(flat, a.cols)
            outside = (flat < 0) | (rows >= a.valid_rows) | (cols >= a.valid_cols)
            if outside.any():
                i, j = (int(k) for k in np.argwhere(outside)[0])
                raise rejected(f"{op.name}: index {flat[i, j]} at [{i}, {j}] is outside the source's valid "
                               f"{a.valid_rows}x{a.valid_cols} (row pitch {a.cols})", line)
            t.valid[...] = narrow(flat * size, "i32")
            _mark(t)
            c.valid[...] = a.data[rows, cols]
            _mark(c)
        return run

    def _gather_mask(self, op: Op) -> Step:
        """`pto.tgather ins(%src) outs(%dst) {maskPattern = #pto.mask_pattern<P>}`, the mask form: each valid row of src
        compacted to its even lanes (P0101) or its odd ones (P1010), their bits read in dst's dtype of the same
        width (PyPTO's gather_mask with `output_dtype=`)."""
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        match = _MASK.fullmatch(str(op.attr("maskPattern")))
        if match is None:
            raise rejected(f"{op.name}: mask pattern {op.attr('maskPattern')} is not #pto.mask_pattern<P0101> or "
                           "<P1010>", op.line)
        first = 0 if match.group(1) == "P0101" else 1
        width = DTYPES[src_type.dtype].size
        if DTYPES[dst_type.dtype].size != width:
            raise rejected(f"{op.name}: {src_type.dtype} lanes read as {dst_type.dtype}, of another width", op.line)
        storage = DTYPES[dst_type.dtype].storage
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            rows, cols = a.valid.shape
            if cols % 2:
                raise rejected(f"{op.name}: {cols} valid lanes are not whole pairs", line)
            _same_shape(op.name, (rows, cols // 2), c, line)
            c.valid[...] = np.ascontiguousarray(a.valid[:, first::2]).view(storage)
            _mark(c)
        return run

    def op_pto_tci(self, op: Op) -> Step:
        """`c[0, j] = start + j` on a one-row integer tile (wrapped to its dtype)."""
        self._arity(op, 1, 1)
        start = self.scalar(op, op.operands[0])
        kind = self.scope[op.operands[0]]
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        if DTYPES[dst_type.dtype].is_float or (isinstance(kind, ScalarType) and kind.name in _FLOAT_SCALARS | {"i1"}):
            raise rejected(f"{op.name}: an integer start into an integer tile, not {kind} into {dst_type.dtype}",
                           op.line)
        values, line = self.values, op.line

        def run() -> None:
            c = values[dest]
            if c.valid_rows != 1:
                raise rejected(f"{op.name}: a sequence fills one row, not {c.valid_rows}", line)
            c.valid[0, :] = narrow(np.arange(c.valid_cols, dtype=np.int64) + int(values[start]), dst_type.dtype)
            _mark(c)
        return run

    def op_pto_texpands(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        scalar_slot = self.scalar(op, op.operands[0])
        scalar_kind = self.scope[op.operands[0]]
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = dst_type.dtype
        is_float = DTYPES[dtype].is_float
        kind = scalar_kind.name if isinstance(scalar_kind, ScalarType) else ""
        if is_float != (kind in _FLOAT_SCALARS) or kind == "i1":
            raise rejected(f"{op.name}: cannot fill a {dtype} tile with a {kind} scalar", op.line)
        values = self.values

        def run() -> None:
            c = values[dest]
            value = np.float32(values[scalar_slot]) if is_float else np.int64(values[scalar_slot])
            c.valid[...] = narrow(np.full(c.valid.shape, value), dtype)
            _mark(c)
        return run

    def op_pto_tfillpad(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        dtype = self._same_dtypes(op, src_type, dst_type)
        if (src_type.rows, src_type.cols) != (dst_type.rows, dst_type.cols):
            raise rejected(f"{op.name}: a {src_type.rows}x{src_type.cols} source into a "
                           f"{dst_type.rows}x{dst_type.cols} destination", op.line)
        fill = _pad_fill(op, dst_type)
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            if (c.valid_rows, c.valid_cols) != (c.rows, c.cols):
                raise rejected(f"{op.name}: the destination's valid region {c.valid_rows}x{c.valid_cols} is not "
                               f"its whole {c.rows}x{c.cols}", line)
            kept = a.valid.copy()  # the destination may be the source's own bytes (in place)
            c.data[...] = fill
            c.data[:kept.shape[0], :kept.shape[1]] = kept
            _mark(c)
        return run

    def op_pto_tcvt(self, op: Op) -> Step:
        self._arity(op, 1, 1)
        source, src_type = self.tile(op, op.operands[0], "source", ("vec",))
        dest, dst_type = self.tile(op, op.group("outs")[0], "destination", ("vec",))
        src_dtype, dst_dtype = src_type.dtype, dst_type.dtype
        rmode = op.attr("rmode", "#pto<round_mode CAST_RINT>")
        match = _RMODE.fullmatch(str(rmode))
        if match is None or match.group(1) not in ROUND_MODES:
            raise rejected(f"{op.name}: rmode {rmode} is not one of "
                           + ", ".join(f"#pto<round_mode {m}>" for m in ROUND_MODES), op.line)
        mode = ROUND_MODES[match.group(1)]
        values, line = self.values, op.line

        def run() -> None:
            a, c = values[source], values[dest]
            _same_shape(op.name, a.valid.shape, c, line)
            c.valid[...] = _convert(a.valid, src_dtype, dst_dtype, mode)
            _mark(c)
        return run

    # --- shared checks ----------------------------------------------------------------------
    @staticmethod
    def _arity(op: Op, ins: int, outs: int) -> None:
        if len(op.operands) != ins or len(op.group("outs")) != outs:
            raise rejected(f"{op.name} takes {ins} ins and {outs} outs, not "
                           f"{len(op.operands)} and {len(op.group('outs'))}", op.line)


# --- numeric helpers --------------------------------------------------------------------------

_PAD_FILLS = {"1": "zero", "2": "max", "3": "min"}
"""PTO's `PadValue` codes in a `tile_buf` type's `pad=` field (0: none)."""


def _pad_fill(op: Op, tile_type: TileType) -> np.ndarray:
    """The storage element a `tfillpad` writes on the padding of a tile of *tile_type*: zero, or the dtype's
    largest / smallest value (an infinity for a float dtype, PTO's `PadValue::Max` / `Min`)."""
    code = dict(tile_type.extra).get("pad", "0")
    mode = _PAD_FILLS.get(code)
    if mode is None:
        raise rejected(f"{op.name}: the destination's type has no pad value (pad={code})", op.line)
    dtype = tile_type.dtype
    if mode == "zero":
        value: float = 0.0
    elif DTYPES[dtype].is_float:
        value = math.inf if mode == "max" else -math.inf
    else:
        limits = np.iinfo(DTYPES[dtype].storage)
        value = limits.max if mode == "max" else limits.min
    return narrow(np.array(value, dtype=np.float64 if DTYPES[dtype].is_float else np.int64), dtype)


def _scalar_type(op: Op) -> ScalarType:
    """The type of an `arith` op's result (the parser admits only a scalar type there)."""
    result_type = op.types[0]
    assert isinstance(result_type, ScalarType), result_type
    return result_type


def _constant_value(op: Op) -> int | float:
    value = op.attr("value")
    assert isinstance(value, (int, float)), value  # the parser's literal: int, float or bool
    kind = _scalar_type(op).name
    if kind == "i1":
        return bool(value)
    if kind in _FLOAT_SCALARS:
        return float(np.float32(value))
    return _wrap(_INT_BITS.get(kind, 64))(int(value))


def _shape_key(tile_type: TileType) -> tuple[str, str, int, int]:
    return tile_type.loc, tile_type.dtype, tile_type.rows, tile_type.cols


def _apart(name: str, dest: Tile, sources: tuple[Tile, ...], line: int) -> None:
    """Refuse a sort writing over a source it reads: `vbitsort` / `vmrgsort4` read while they write, and PyPTO
    marks `tile.sort32` / `tile.mrgsort_format1` / `_format2` not_inplace_safe (its memory reuse never places one so)."""
    for k, source in enumerate(sources):
        if np.shares_memory(source.valid, dest.valid):
            raise rejected(f"{name}: the destination (bytes from {dest.addr}) overlaps operand {k} (bytes from "
                           f"{source.addr}): the instruction does not sort in place", line)


def _merge_role(k: int, lists: int) -> str:
    """The operand *k* of a format-2 `pto.tmrgsort` as its message names it (lists, workspace, destination)."""
    return f"list {k}" if k < lists else ("the workspace", "the destination")[k - lists]


def _merge_pairs(lists: list[np.ndarray]) -> np.ndarray:
    """The (value, index) pairs of *lists* (each `n x 2`) merged as `vmrgsort4` merges: while a list has pairs
    left, the head pair of greatest value goes next, the lowest-numbered list on a tie (pto-isa's TMrgSort)."""
    keys = [p[:, 0].tolist() for p in lists]
    at = [0] * len(lists)
    picks: list[tuple[int, int]] = []
    for _ in range(sum(len(k) for k in keys)):
        best = -1
        for i, key in enumerate(keys):
            if at[i] < len(key) and (best < 0 or key[at[i]] > keys[best][at[best]]):
                best = i
        picks.append((best, at[best]))
        at[best] += 1
    if not picks:
        return np.empty((0, 2), dtype=np.float32)
    return np.stack([lists[i][j] for i, j in picks])


_CMP_MODES_ORDER: Final[tuple[str, ...]] = ("eq", "ne", "lt", "le", "gt", "ge")
_CMP_MODES: Final[dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]] = {
    f"#pto<cmp {name}>": fn for name, fn in zip(_CMP_MODES_ORDER, (
        np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal))}
"""`pto.tcmps` / `pto.tcmp`'s `cmpMode` -> its predicate (PyPTO's `cmp_type` 0..5, in this order)."""
_POISON_BYTES: Final[np.ndarray] = np.frombuffer(POISON_WORD.to_bytes(4, "little"), dtype=np.uint8)
"""The arena's poison pattern, byte by byte (`arena.POISON_WORD`)."""


def _mark(tile: Tile) -> None:
    if tile.written is not None:
        tile.written[...] = True


def _check_defined(name: str, tile: Tile, line: int) -> None:
    if tile.written is not None and not tile.written.all():
        raise rejected(f"{name} reads undefined L0C: acc tile at [{tile.addr}, "
                       f"{tile.addr + tile.nbytes}) has bytes never written", line)


def _tile_rows(window: np.ndarray) -> np.ndarray:
    """A GM window of rank 2 or more as the 2-D tile it loads into or is stored from (docs/pto-subset.md,
    `partition_view`): its leading axes merged into rows in row-major order, as PyPTO's FlattenTileNdTo2D
    merges a tile's. A strided view when the leading axes collapse without a copy (every axis but one of
    them of extent 1, or each axis's stride its successor's extent times its stride); else the window itself,
    of its own rank, which `pto.tload` / `pto.tstore` reshape."""
    if window.ndim == 2:
        return window
    kept = [(extent, stride) for extent, stride in zip(window.shape[:-1], window.strides[:-1]) if extent != 1]
    if any(outer[1] != inner[0] * inner[1] for outer, inner in zip(kept, kept[1:])):
        return window
    rows = math.prod(window.shape[:-1])
    row_stride = kept[-1][1] if kept else window.strides[-2]
    return as_strided(window, (rows, window.shape[-1]), (row_stride, window.strides[-1]))


def _rows_shape(window: np.ndarray) -> tuple[int, int]:
    """The 2-D shape of a GM window as a tile (`_tile_rows`)."""
    return (math.prod(window.shape[:-1]), window.shape[-1])


def _element(name: str, tile: Tile, offset: int, line: int) -> tuple[int, int]:
    """The (row, column) of the row-major flat *offset* into *tile* (`tgetval` / `tsetval`), inside its valid
    shape, else rejected."""
    row, col = divmod(offset, tile.cols)
    if not (0 <= row < tile.valid_rows and 0 <= col < tile.valid_cols):
        raise rejected(f"{name}: offset {offset} ([{row}, {col}]) is outside the tile's valid "
                       f"{tile.valid_rows}x{tile.valid_cols}", line)
    return row, col


def _same_shape(name: str, shape: tuple[int, ...], tile: Tile, line: int) -> None:
    if tuple(shape) != (tile.valid_rows, tile.valid_cols):
        raise rejected(f"{name}: shape mismatch: {shape[0]}x{shape[1]} against the tile's valid "
                       f"{tile.valid_rows}x{tile.valid_cols}", line)


def _check_mnk(name: str, a: Tile, b: Tile, c: Tile, line: int) -> None:
    if a.valid_cols != b.valid_rows or c.valid_rows != a.valid_rows or \
            c.valid_cols != b.valid_cols:
        raise rejected(f"{name}: shape mismatch: lhs {a.valid_rows}x{a.valid_cols}, rhs "
                       f"{b.valid_rows}x{b.valid_cols}, acc {c.valid_rows}x{c.valid_cols}", line)


def _over(name: str, tile: Tile, shape: tuple[int, ...], line: int) -> np.ndarray:
    """A second operand read over the first's valid region *shape*: its top-left corner in its bytes (PTO
    iterates over the destination's valid region), into its padding when its own valid region is narrower;
    refused when the tile is physically smaller."""
    if (tile.valid_rows, tile.valid_cols) == tuple(shape):
        return tile.valid
    rows, cols = shape
    if tile.rows < rows or tile.cols < cols:
        raise rejected(f"{name}: shape mismatch: {rows}x{cols} against the tile's valid "
                       f"{tile.valid_rows}x{tile.valid_cols}", line)
    return tile.data[:rows, :cols]


def _broadcast_operand(name: str, tile: Tile, shape: tuple[int, int], line: int) -> np.ndarray:
    """The column (`shape` `rows x 1`) or row (`1 x cols`) a broadcast reads from *tile*: its top-left corner of
    *shape* in its bytes. PTO iterates over the destination's valid region, so a vector whose valid region is
    narrower is read into its padding (whatever that holds); one smaller than *shape* physically is refused."""
    rows, cols = shape
    if (tile.valid_rows, tile.valid_cols) == shape:
        return tile.valid
    if tile.rows < rows or tile.cols < cols or (tile.valid_rows != 1 and tile.valid_cols != 1):
        raise rejected(f"{name}: shape mismatch: {rows}x{cols} against the tile's valid "
                       f"{tile.valid_rows}x{tile.valid_cols}", line)
    return tile.data[:rows, :cols]


def _check_covered(name: str, a: Tile, b: Tile, c: Tile, line: int) -> None:
    """An accumulating MAD's operands agree on K and the accumulator's valid region holds their product."""
    if a.valid_cols != b.valid_rows or c.valid_rows < a.valid_rows or c.valid_cols < b.valid_cols:
        raise rejected(f"{name}: shape mismatch: lhs {a.valid_rows}x{a.valid_cols}, rhs "
                       f"{b.valid_rows}x{b.valid_cols}, acc {c.valid_rows}x{c.valid_cols}", line)


def _as_f32(tile: Tile, dtype: str) -> np.ndarray:
    if dtype == "f32":
        return tile.valid
    if dtype == "bf16":
        return bf16_bits_to_f32(tile.valid)
    return tile.valid.astype(np.float32)


def _product(a: Tile, b: Tile, dtype: str, out: np.ndarray | None = None) -> np.ndarray:
    """`A @ B` as the cube computes it: f32 accumulation, or wrapped i32 for i8 inputs (into
    *out* when given)."""
    if dtype != "i8":
        return np.matmul(_as_f32(a, dtype), _as_f32(b, dtype), out=out)
    if a.valid_cols <= _I8_EXACT_IN_F32_K:  # every partial sum is an exact f32 integer
        product = np.matmul(a.valid.astype(np.float32), b.valid.astype(np.float32))
        if out is not None:  # converted straight into the accumulator (each an exact integer of i32)
            np.copyto(out, product, casting="unsafe")
            return out
        wrapped = product.astype(np.int32)
    else:
        product = np.matmul(a.valid.astype(np.float64), b.valid.astype(np.float64))
        wrapped = product.astype(np.int64).astype(np.int32)
    if out is None:
        return wrapped
    out[...] = wrapped
    return out


def _atomic_add(window: np.ndarray, stored: np.ndarray, dtype: str) -> np.ndarray:
    if DTYPES[dtype].is_float:
        return narrow(widen(window, dtype) + widen(stored, dtype), dtype)
    return (window.astype(np.int64) + stored.astype(np.int64)).astype(DTYPES[dtype].storage)


def _int_divide(name: str, x: np.ndarray, y: np.ndarray | np.number, line: int) -> np.ndarray:
    if np.any(y == 0):
        raise rejected(f"{name}: integer division by zero", line)
    quotient = np.abs(x) // np.abs(y)
    return np.where((x >= 0) == (y >= 0), quotient, -quotient)


def _remainder(name: str, x: np.ndarray, y: np.ndarray | np.number, line: int) -> np.ndarray:
    """C's `fmod` (exact; the sign of the dividend); a zero divisor is target-defined: refused."""
    if np.any(y == 0):
        raise rejected(f"{name}: remainder by zero (target-defined)", line)
    return np.fmod(x, y)


def _convert(storage: np.ndarray, src: str, dst: str, mode: str = "rint") -> np.ndarray:
    if src == dst:
        return storage
    if DTYPES[src].is_float:
        return narrow_rounded(widen(storage, src), dst, mode)
    values = storage.astype(np.int64)
    if DTYPES[dst].is_float:
        if mode != "rint":
            return narrow_rounded(values, dst, mode)
        return narrow(values.astype(np.float64).astype(np.float32), dst)
    return values.astype(DTYPES[dst].storage)


# --- entry point ------------------------------------------------------------------------------

def _bind_scalar(func: Func, name: str, kind: str, value: Any) -> object:
    """*value* is whatever the caller passed (Any: a float kind takes anything numpy converts)."""
    if kind == "i1":
        if not isinstance(value, (bool, int, np.integer)):
            raise SimError(f"argument {name} of @{func.name} must be a bool", func.line)
        return bool(value)
    if kind in _FLOAT_SCALARS:
        return float(np.float32(value))
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SimError(f"argument {name} of @{func.name} must be an int", func.line)
    bits = _INT_BITS[kind]
    if not -(1 << (bits - 1)) <= int(value) < (1 << (bits - 1)):
        raise SimError(f"argument {name} = {value} does not fit {kind}", func.line)
    return int(value)


def run_function(func: Func, args: dict[str, object], target: str,
                 strict_undef: bool = False, blocks_in_order: bool = False) -> dict[str, np.ndarray]:
    """Execute *func* on fresh poisoned arenas of *target*; the final GM tensors by arg name. A launch runs
    its blocks last to first, or first to last with *blocks_in_order*."""
    return _execute(func, args, target, strict_undef, None, blocks_in_order)[0]


def last_store_line(func: Func, args: dict[str, object], target: str, arg: str, element: int) -> int | None:
    """The PTO line of the last `pto.tstore` that wrote element *element* (row-major) of argument
    *arg* when *func* runs on *args*; None when no store wrote it."""
    writers = _execute(func, args, target, False, (arg, element))[1]
    return writers[-1] if writers else None


def run_ranks(func: Func, args: list[dict[str, object]], target: str, windows: frozenset[str],
              in_order: bool = False) -> list[dict[str, np.ndarray]]:
    """*func* once per rank of a run of `len(args)` ranks over the shared *windows* (`comm.run_ranks_function`),
    the ranks started last to first, or first to last (the reference's order) with *in_order*."""
    order = list(range(len(args)) if in_order else reversed(range(len(args))))

    def execute(func: Func, rank_args: dict[str, object], target: str, ranks: Ranks) -> dict[str, np.ndarray]:
        return _execute(func, rank_args, target, False, None, in_order, ranks)[0]
    return comm.run_ranks_function(func, args, target, windows, order, execute)


def _execute(func: Func, args: dict[str, object], target: str, strict_undef: bool,
             watch: tuple[str, int] | None, blocks_in_order: bool = False, ranks: Ranks | None = None
             ) -> tuple[dict[str, np.ndarray], list[int]]:
    if target not in TARGETS:
        raise SimError(f"unknown target {target!r} (expected one of {sorted(TARGETS)})")
    names = {arg.name for arg in func.args}
    unknown = sorted(set(args) - names)
    if unknown:
        raise SimError(f"@{func.name} has no argument {unknown[0]}", func.line)
    memory = Memory.for_target(target, track_writes=strict_undef)
    compiler = _Compiler(func, memory, strict_undef, watch)
    compiler.ranks = ranks
    body = compiler.compile_function()
    results: dict[str, Callable[[], np.ndarray]] = {}
    for arg in func.args:
        if arg.name not in args:
            raise SimError(f"missing argument {arg.name} of @{func.name}", func.line)
        slot = compiler.slots[arg.name]
        if ranks is not None and arg.name in ranks.windows:
            compiler.values[slot] = ranks.windows[arg.name][ranks.rank]  # read back by `comm`, after every rank
        elif isinstance(arg.type, PtrType):
            stored = arg.name in compiler.stored_args
            compiler.values[slot], results[arg.name] = _bind_tensor(args[arg.name], arg.type.dtype,
                                                                    stored)
        else:
            compiler.values[slot] = _bind_scalar(func, arg.name, arg.type.name, args[arg.name])
    blocks = block_dim(func)
    if blocks > MAX_ITERATIONS:
        raise over_limit(f"the launch runs {blocks} instances; the simulator's limit is {MAX_ITERATIONS}", func.line)
    order = list(range(blocks) if blocks_in_order else reversed(range(blocks)))  # the reference: first to last
    compiler.blocks_in_order = blocks_in_order
    with np.errstate(all="ignore"):
        _run_launch(compiler, memory, _phases(body), order)
    return {name: result() for name, result in results.items()}, compiler.writers


def _run_launch(compiler: _Compiler, memory: Memory, phases: list[tuple[Step, ...]], order: list[int]) -> None:
    """The instances of one launch in *order*, each on freshly poisoned arenas (its own core); phase by phase
    when its body has barriers."""
    if len(phases) > 1:
        _run_phases(compiler, memory, phases, order)
        return
    for instance in order:
        memory.poison()
        compiler.instance = (instance, len(order))
        for step in phases[0]:
            step()


def _BARRIER() -> None:
    """The step of a top-level `pto.syncall`: where one phase of a launch ends (`_phases`)."""


def _phases(body: tuple[Step, ...]) -> list[tuple[Step, ...]]:
    """*body* cut at its barriers."""
    phases: list[list[Step]] = [[]]
    for step in body:
        if step is _BARRIER:
            phases.append([])
        else:
            phases[-1].append(step)
    return [tuple(phase) for phase in phases]


def _run_phases(compiler: _Compiler, memory: Memory, phases: list[tuple[Step, ...]], order: list[int]) -> None:
    """Every instance runs a phase before any runs the next; each resumes its own slots and on-chip memory
    (saved at the barrier, as its core keeps them)."""
    saved: dict[int, tuple[list[Any], dict[str, tuple[np.ndarray, np.ndarray | None]]]] = {}
    for number, phase in enumerate(phases):
        for instance in order:
            if number:
                values, arenas = saved[instance]
                compiler.values[:] = values
                memory.restore(arenas)
            else:
                memory.poison()
            compiler.instance = (instance, len(order))
            for step in phase:
                step()
            saved[instance] = (list(compiler.values), memory.snapshot())


def runs_blocks(func: Func) -> bool:
    """Whether a launch of *func* may run more than one instance: a `pto.block_dim` above 1, or a `pto.launch`."""
    return block_dim(func) > 1 or any(op.name == "pto.launch" for op in walk(func.body))


def block_dim(func: Func) -> int:
    """How many instances a launch of *func* runs: its `pto.block_dim` attribute (1 without one)."""
    value = dict(func.attributes).get("pto.block_dim", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SimError(f"@{func.name}: pto.block_dim = {value} is not a positive integer", func.line)
    return value


def _bind_tensor(value: object, dtype: str, stored: bool
                 ) -> tuple[np.ndarray, Callable[[], np.ndarray]]:
    """The flat GM storage for a caller's array, and how to read the final array back.

    A tensor no `pto.tstore` writes is bound read-only (without a copy when its dtype needs no
    conversion, even when the array is strided, as bf16 bits viewed in f32 words are: flat then
    steps by its own stride) and handed back as the caller's own array.
    """
    array = np.asarray(value)
    if stored:
        flat = np.ascontiguousarray(to_storage(array, dtype)).reshape(-1)
        return flat, lambda: to_values(flat, dtype).reshape(array.shape)
    flat = to_storage(array, dtype, copy=False).reshape(-1)  # a view when the strides allow one
    flat = flat.view()
    flat.flags.writeable = False
    return flat, lambda: array
