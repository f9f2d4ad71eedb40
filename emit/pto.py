"""Emit PTO-AS text (docs/pto-subset.md) for lowered kernels: the input of the simulator (PV201).

Mirrors PyPTO's PTO codegen (TARGET_FACTS.md "8. PTO codegen"). Requires: a lowered function, after
allocate-memory-addr (every tile has a space and a MemRef whose offset is its byte address in that
space). Leaves: MLIR-style text in exactly the subset `sim/` parses. Output is deterministic.

How the IR maps onto PTO (one instruction per op, in statement order):
- Parameters, in order: a tensor is `%argN: !pto.ptr<dt>` with one `pto.make_tensor_view` (rank 1
  to 5, row-major strides); a scalar is `%argN: index` (`i1` for BOOL). A GM `tensor.reshape` is one
  more `make_tensor_view` of the same pointer (its new shape, row-major strides); a GM `tensor.slice` is a
  `pto.addptr` to its first element and a `make_tensor_view` of that with its source's strides (refused where
  the reference's copy of the slice would differ from the view: `_read_slice`). A `tensor.read(t, ...)` of
  a runtime scalar becomes one more trailing `index` argument per tensor read (`f32` for a float
  tensor; the subset has no scalar load from GM): its value is the caller's, see `EmittedFunction.args`.
  A parameter that only receives task ids (`ops.task_arrays`) has no argument; its `tensor.setitem`s emit
  nothing.
- Every tile value gets a `pto.alloc_tile` at its own window: its space, dtype, physical shape (Acc
  rows padded by `target.padded_rows`; leading unit dims dropped; a Vec tile of rank > 2 is the 2-D tile
  of its rows, `[4, 1, 64]` is `[4, 64]`, as PyPTO's FlattenTileNdTo2D makes it: its load and store move a
  `partition_view` of the tensor's own rank, `[4, 1, 64]`, a `tile.reshape` is a view of its bytes, and no
  other op takes it), valid shape and byte address.
  Two tiles on one window share an address, so they alias in the simulator's arenas.
- `tile.create` emits only the alloc (no instruction initialises L0C). `tile.load` is
  `partition_view` + `tload`; `tile.store` is `partition_view` + `tstore` (FIXPIPE from Acc;
  `{atomic = #pto.atomic<add>}` for `atomic=AtomicType.Add`); `tile.extract` is `textract`, with
  `{transpose = true}` when the operand is transposed (a `tile.transpose_view` source, or a matmul
  `a_trans=` / `b_trans=` on the extracted tile); `tile.move` is `tmov` (a transposed move into
  Left/Right is a full-window `textract {transpose = true}`; an Acc -> Vec move on a target without
  that path, a2a3, is the GM round trip the compiler's AIC/AIV split makes: `tstore` into a
  workspace argument, then `tload`). A load into the bias table is staged through a Mat tile
  placed after every Mat window, then `tmov`ed (`tload` fills only Mat / Vec).
- A `tensor.create` that stays a GM tensor (scratch) becomes a trailing `!pto.ptr` workspace
  argument (`EmittedFunction.args`, kind `workspace`; the comparison zero-fills it). A shape naming run-time
  sizes is folded (`_fold`) from constants, names assigned once and the scalar parameters' values the
  simulation gives (`emit_function(..., scalars=)`; without them such a shape is `NeedsScalars`). A
  `tensor.full` that stays in GM is such a workspace filled by a Vec tile of the value stored over it band by
  band (`op_tensor_full`); a `tensor.assemble` of a GM tensor into another is a copy through a Vec tile, band by
  band (`op_tensor_assemble`).
- MemRef offsets are byte addresses after allocate-memory-addr. When windows of different bases
  overlap in one space (a dump after MemoryReuse, where every base starts at 0), the emitter lays
  the bases out one after the other in `tile.alloc` order instead.
- `tile.matmul` is `tmatmul`, `tile.matmul_bias` is `tmatmul.bias`, and `tile.matmul_acc` is
  `tmatmul.acc ins(%dst, %a, %b) outs(%dst)` where **dst is the result's buffer**: the IR acc
  operand is never emitted, exactly like the real codegen. A literal `init_cond` picks one form
  (`tmatmul` when true); a runtime one emits `scf.if %p { tmatmul } else { tmatmul.acc }`.
- Tile loop carries and tile phis are not SSA values in PTO: an iter_arg and a loop's return var
  are the init value's buffer; an if's return var is an `alloc_tile` of its own window placed just
  before the `scf.if`, and the arms' yields emit nothing (the codegen assumes each arm wrote it). A
  scalar carry is an `scf.for ... iter_args(...)` block argument and a scalar phi an `scf.if -> (...)`
  result, each region ending in its `scf.yield` (PyPTO's own form). An `if` that only picks scalars
  (arms of scalar assignments that cannot fault) is both arms' arithmetic and one `arith.select` per phi.
- Scalars: `arith.constant`s are hoisted to the top of the function; index arithmetic `+ - * // %
  min max` is `addi subi muli divsi remsi minsi maxsi` (`pl.min` / `pl.max` of two scalars too),
  comparisons `cmpi` (of float scalars `cmpf`, ordered), `and or not` are `andi ori xori`; `tensor.dim` of a tensor of static shape is
  its extent; a scalar `pl.cast` is `scalar.cast_value` (a literal folds; an integer wraps in index
  arithmetic where its values may not fit; a run-time float to INT8 / INT32 / INT64 is `arith.fptosi`).
  Conditions are not folded (`if 128 == 0:` stays an `scf.if`).
- Vector ops of the subset: `add sub mul div maximum minimum` (`tadd tsub tmul tdiv tmax tmin`;
  with a scalar right operand `tadds tsubs tmuls tdivs tmaxs tmins`, and `fmods` `tfmods`: a constant is an `f32`
  `arith.constant`, `sub` by a constant c is `tadds` of -c, `maximum(x, 0)` is `trelu`), `exp relu
  recip rsqrt sqrt log abs` (`texp trelu trecip trsqrt tsqrt tlog tabs`), `neg` (`tmuls` by -1),
  `row_sum/max/min` and `col_sum/max/min` (`trowsum ... tcolmin`), `row_expand_<op>` /
  `col_expand_<op>` for op `add sub mul div max min` (`trowexpand<op>` / `tcolexpand<op>`),
  `row_expand` / `col_expand` (`trowexpand` / `tcolexpand`: the broadcast alone), `transpose`
  (`ttrans`), `concat` (`tconcat`), `write` of an element (`tsetval`), `arange(start, [1, N])` (`tci`), `full`
  (`texpands` of an `f32` constant, `i32` for an integer tile; a non-finite constant is spelled as
  its hexadecimal bit pattern) `cast` (`tcvt`, its `mode=` the `rmode` attribute) and `fillpad` (`tfillpad` into
  a whole-valid tile whose type's `pad=` is the pad value's PTO code). A `tile.slice` is a view (`ops.is_view`, PyPTO's
  `pto.subview`): of a Vec value or an accumulator, a window is an `alloc_tile` at its first element's
  address (computed with `arith` at a run-time offset) at the source's row pitch (valid shape = the
  slice's); `tile.gather_row` is such a view of its destination and a `tload` into it. `tile.set_validshape`
  (metadata only) is an `alloc_tile` at its source's
  address with the new valid rows and columns. `tile.reshape` of a Vec tile is a view (`ops.is_view`,
  as in PyPTO): an `alloc_tile` of the new shape at the source's address. None emits an instruction.

- `pl.array.create(N, pl.INT32 / pl.INT64)` is `pto.declare_local_array`, `arr[i] = v` (`tensor.setitem`) a
  `pto.local_array_set` whose result aliases the array, `arr[i]` (`tensor.getitem`, nested in a scalar expression
  too) a `pto.local_array_get` cast to `index`; an array of task ids (`pl.TASK_ID`) emits nothing.

- Launches (docs/pto-subset.md "Launches"): a function whose work is one `pl.spmd(n)` loop (`_launch`)
  is emitted as a launch: `pto.block_dim = n` on the function (n folded from the
  source, `_launch_size`), the loop's body as the function's, its loop variable and every
  `get_block_idx()` the index `pto.get_block_idx` reads; a `pl.system.syncall` at the top of its body is a
  `pto.syncall` barrier. Any other `pl.spmd` loop not nested in a launch (a step of an orchestration, a launch
  of a run-time size) is a `pto.launch` step of its body (`launch_step`); no tile crosses a step. Task ids
  (`system.task_dummy`, `scope.task_id`) emit nothing;
  `pl.tensor.dim` of a tensor parameter is its constant extent.

What the subset cannot express is an `EmitError` naming the op (the comparison then reports
`sim: skipped` with the reason): vector ops it lacks, windows of a Mat tile narrower than its rows, a
`tile.assemble` into an accumulator.
"""

from __future__ import annotations

import math

import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from pypto_verify import ops, scalar
from pypto_verify.callees import Callee, CallError, bound_callee, call_arguments, split_return
from pypto_verify.sizes import assigned_once
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DType, Eval, Expr, For, Function, If, IterArg, ListExpr,
    LoopKind, MemSpace, NO_SPAN, Return, ScalarType, Scope, Span, Stmt, Sym, TensorType, TileType,
    TupleExpr, Type, UnaryOp, Var, Yield, final_yield, map_expr, stmt_exprs, type_env, var_like,
    walk_exprs, walk_stmts,
)
from pypto_verify.lowering.incore_scopes import RegionCounter
from pypto_verify.target import Target, get_target


class EmitError(Exception):
    """The lowered IR holds something the PTO subset cannot express; the message names it."""

    def __init__(self, message: str, span: Span = NO_SPAN) -> None:
        super().__init__(message)
        self.message = message
        self.span = span

    def __str__(self) -> str:
        return f"{self.span}: {self.message}" if self.span != NO_SPAN else self.message


class NeedsScalars(EmitError):
    """A GM scratch tensor's shape is known only from the values of the function's run-time scalars: emit
    again with them (`emit_function(..., scalars=)`)."""


@dataclass(frozen=True, slots=True)
class ArgBinding:
    """One argument of an emitted function and what the caller binds to it."""

    name: str
    """The SSA name without `%` (`arg0`): the key of the simulator's argument dict."""
    kind: str
    """`tensor` (a GM array), `scalar` (a scalar parameter), `read` (the value `tensor.read`
    returns from tensor `param`) or `workspace` (GM scratch for `tensor.create` `param`)."""
    param: str
    """The IR parameter it stands for."""
    type: str
    """Its PTO type: `!pto.ptr<bf16>`, `index`, `i1`."""
    shape: tuple[int, ...] = ()
    """For a `workspace` (a GM scratch tensor made by `tensor.create`): its shape."""


@dataclass(frozen=True, slots=True)
class EmittedFunction:
    """One `func.func`: its name, its text (indented for a module body) and its arguments."""

    name: str
    text: str
    args: tuple[ArgBinding, ...]
    spans: tuple[tuple[int, Span], ...] = ()
    """(line of *text*, 1-based; the source statement that line was emitted for): where a PTO line that
    the simulator rejects (PV202) came from."""


_PTO_DTYPE = {
    DType.FP32: "f32", DType.FP16: "f16", DType.BF16: "bf16", DType.INT8: "i8",
    DType.INT32: "i32", DType.INT64: "i64", DType.BOOL: "i1", DType.INT16: "i16", DType.UINT8: "ui8",
    DType.UINT16: "ui16", DType.UINT32: "ui32",
}
_LOC = {
    MemSpace.Mat: "mat", MemSpace.Left: "left", MemSpace.Right: "right", MemSpace.Acc: "acc",
    MemSpace.Bias: "bias", MemSpace.Vec: "vec",
}
# Layout fields as the real codegen prints them (../shared/real-ir/*/main.pto); the simulator
# carries and ignores them.
_LAYOUT = {
    MemSpace.Mat: ("col_major", "row_major", 512), MemSpace.Left: ("row_major", "row_major", 512),
    MemSpace.Right: ("row_major", "col_major", 512), MemSpace.Acc: ("col_major", "row_major", 1024),
    MemSpace.Bias: ("row_major", "none_box", 512), MemSpace.Vec: ("row_major", "none_box", 512),
}
_ARITH = {"+": "addi", "-": "subi", "*": "muli", "//": "divsi", "%": "remsi", "min": "minsi",
          "max": "maxsi"}
_CMPI = {"==": "eq", "!=": "ne", "<": "slt", "<=": "sle", ">": "sgt", ">=": "sge"}
_CMPF = {"==": "oeq", "!=": "one", "<": "olt", "<=": "ole", ">": "ogt", ">=": "oge"}
"""PyPTO's float comparisons (its `VisitCmpExpr`): the ordered predicates, false when an operand is a NaN."""
_VECTOR_BINARY = {"add": "tadd", "sub": "tsub", "mul": "tmul", "div": "tdiv", "maximum": "tmax",
                  "max": "tmax", "minimum": "tmin", "min": "tmin"}
_VECTOR_SCALAR = {"add": "tadds", "adds": "tadds", "mul": "tmuls", "muls": "tmuls", "sub": "tadds",
                  "subs": "tsubs", "div": "tdivs", "divs": "tdivs", "maximum": "tmaxs", "max": "tmaxs",
                  "maxs": "tmaxs", "minimum": "tmins", "min": "tmins", "mins": "tmins", "fmods": "tfmods"}
"""A scalar right operand; `sub` by a constant c is `tadds` of -c (x - c == x + (-c) exactly), by a
runtime scalar `tsubs`; `fmods` is C's `fmod` (the remainder takes the dividend's sign)."""
_VECTOR_UNARY = {"exp": "texp", "relu": "trelu", "neg": "tmuls", "recip": "trecip", "rsqrt": "trsqrt",
                 "sqrt": "tsqrt", "log": "tlog", "abs": "tabs"}
"""`neg` is `tmuls` by -1.0 (exact: a sign flip)."""
_VECTOR_REDUCE = {"row_sum": "trowsum", "row_max": "trowmax", "row_min": "trowmin",
                  "col_sum": "tcolsum", "col_max": "tcolmax", "col_min": "tcolmin"}
"""Reductions of a Vec tile along its rows (to `[M, 1]`) or its columns (to `[1, N]`)."""
_EXPAND_KINDS = ("add", "sub", "mul", "div", "max", "min")
_RMODES = {"rint": "", "none": "", "round": "CAST_ROUND", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL",
           "trunc": "CAST_TRUNC"}
"""`tile.cast`'s `mode=` -> `pto.tcvt`'s `rmode` (empty: the default, to nearest with ties to even)."""
_FPTOSI = {DType.INT8: "i8", DType.INT32: "i32", DType.INT64: "i64"}
"""A scalar cast of a run-time float to these is PyPTO's `arith.fptosi` (toward zero) to the named type."""
_SCALAR_EXTREMA = {"tensor.min": "min", "tensor.max": "max"}
"""`pl.min` / `pl.max` of two scalars: what stays a `tensor.min` / `tensor.max` after the lowering."""
_MAX_VIEW_RANK = 5
"""The highest rank of a `make_tensor_view` (PTO IR's views have at most five dimensions)."""
_VECTOR_EXPAND = {**{f"row_expand_{k}": f"trowexpand{k}" for k in _EXPAND_KINDS},
                  **{f"col_expand_{k}": f"tcolexpand{k}" for k in _EXPAND_KINDS}}
"""`x op v` with v a `[M, 1]` (row_expand) or `[1, N]` (col_expand) Vec tile broadcast over x."""
_VECTOR_BROADCAST = {"row_expand": "trowexpand", "col_expand": "tcolexpand"}
"""`row_expand(x, v)` / `col_expand(x, v)`: v (`[M, 1]` / `[1, N]`) broadcast to x's shape; x's values are
not read (it gives the shape)."""


# ---------------------------------------------------------------------------------------------- bindings


@dataclass(frozen=True, slots=True)
class _Tile:
    """A tile SSA value: its name and physical description."""

    ssa: str
    space: MemSpace
    dtype: DType
    rows: int
    cols: int
    """Physical shape (Acc rows padded)."""
    valid: tuple[str, str]
    """SSA names of the valid rows / cols."""
    valid_static: tuple[int | None, int | None]
    addr: int
    dynamic_addr: str | None = None
    """The SSA name of an `i64` address computed at run time (a slice at a run-time offset; `addr` is
    then its source's): no other tile's address is derived from it."""
    pad: int = 0
    """PTO's pad code (`PadValue`: 0 none, 1 zero, 2 max, 3 min): what a `tfillpad` into it writes on
    the padding."""
    window: tuple[tuple[str, int | None], ...] = ()
    """Of a tile of rank > 2 (`[4, 1, 64]`, stored 2-D as `[4, 64]`: `_tile_dims`), its valid extents along
    every axis (SSA name, static value), the sizes of the `partition_view` it is loaded from or stored into;
    empty for a 2-D tile."""

    @property
    def type(self) -> str:
        blayout, slayout, fractal = _LAYOUT[self.space]
        return (f"!pto.tile_buf<loc={_LOC[self.space]}, dtype={_PTO_DTYPE[self.dtype]}, "
                f"rows={self.rows}, cols={self.cols}, v_row=?, v_col=?, blayout={blayout}, "
                f"slayout={slayout}, fractal={fractal}, pad={self.pad}>")


@dataclass(frozen=True, slots=True)
class _Transposed:
    """A `tile.transpose_view` of a tile: no instruction, consumed by a transposing extract."""

    base: _Tile


@dataclass(frozen=True, slots=True)
class _Tensor:
    """A GM tensor view: `view` is the SSA name of its `make_tensor_view` of pointer `arg`."""

    view: str
    param: str
    shape: tuple[int | None, ...]
    """Its extents (None: a runtime extent, a `tensor.reshape` to a size computed in the kernel)."""
    dtype: DType
    arg: str = ""
    """The `!pto.ptr` argument it views (a reshape is one more view of the same storage)."""
    ptr: str = ""
    """A GM slice's: the `pto.addptr` of `arg` at the slice's first element, its view's pointer."""
    strides: tuple[int, ...] | None = None
    """A GM slice's element strides (its source's); None: row-major over `shape`."""
    serial: int = -1
    """A GM slice's: when it was made (`_FunctionEmitter.slices`), and how many writes into `arg` preceded it."""
    epoch: int = 0

    @property
    def view_type(self) -> str:
        return f"!pto.tensor_view<{'x'.join('?' for _ in self.shape)}x{_PTO_DTYPE[self.dtype]}>"


@dataclass(frozen=True, slots=True)
class _Scalar:
    ssa: str
    type: str
    """`index`, `i1` or `f32`."""


@dataclass(frozen=True, slots=True)
class _Returned:
    """The values an inline callee returns (more than one): `tensor.getitem` picks one."""

    items: tuple[_Tensor | _Scalar | None, ...]
    """Each returned value when it is a GM tensor or a scalar; None for anything else (a task id)."""
    callee: str


@dataclass(frozen=True, slots=True)
class _Array:
    """An on-core scalar array (`pl.array.create(N, pl.INT32)`): PyPTO's `pto.declare_local_array`, written and
    read in place (`array.update_element` results alias it, as in PyPTO's codegen)."""

    ssa: str
    extent: int
    element: str
    """`i32` or `i64`."""

    @property
    def type(self) -> str:
        return f"!pto.local_array<{self.extent}x{self.element}>"


@dataclass(frozen=True, slots=True)
class _TaskIds:
    """An array of task ids (`pl.array.create(N, pl.TASK_ID)`): orchestration-only in PyPTO (a C array handed to
    `deps=`); it orders tasks, which the simulation runs in program order: no instruction, no value."""


_Binding = _Tile | _Transposed | _Tensor | _Scalar | _Returned | _Array | _TaskIds


# ---------------------------------------------------------------------------------------------- emitter


@dataclass
class _FunctionEmitter:
    fn: Function
    target: Target
    env: dict[str, Type] = field(default_factory=dict)
    typed: dict[str, Type] = field(default_factory=dict)
    """`env` with the op results and literals typed too (`ops.value_type`): which phis are scalars."""
    bind: dict[str, _Binding] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    counter: int = 0
    constants: dict[tuple[object, str], str] = field(default_factory=dict)
    constant_lines: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    line_spans: list[Span] = field(default_factory=list)
    """The source statement of each of `lines`."""
    at: Span = NO_SPAN
    """The source statement being emitted (its enclosing one when it has no line of its own)."""
    depth: int = 2
    args: list[ArgBinding] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    """The tensors a `tensor.write` stores into."""
    transposed_uses: set[str] = field(default_factory=set)
    cube: bool = False
    launch: For | None = None
    """The `pl.spmd` loop that is the function's whole work (`_launch`): emitted as a launch."""
    block_index: str | None = None
    """Inside the launch: the SSA name of the running instance's index."""
    spmd_depth: int = 0
    """How many `pl.spmd` loops other than the launch enclose the statement being emitted."""
    launch_depth: int = -1
    """The indentation depth of the launch's body (a barrier is emitted only there)."""
    task_arrays: frozenset[str] = frozenset()
    """The parameters that only receive task ids (`ops.task_arrays`): their `tensor.setitem`s emit nothing."""
    sealed: dict[str, str] = field(default_factory=dict)
    """Names bound to something no later statement may read here -> why (a tile across a `pl.spmd` step, a
    task id)."""
    base_address: dict[str, int] | None = None
    """Set when the IR has no byte addresses yet (see `_plan_addresses`): base -> its address."""
    callees: Mapping[str, Callee | str] = field(default_factory=dict)
    """The functions a call may name (`call.f`, `extern.f`), spliced in the call's place (`inline_call`), or why
    one cannot be."""
    inlining: tuple[str, ...] = ()
    """The callees being spliced, outermost first (a call of one of them again is recursion)."""
    blocks: int | None = None
    """The block count a launcher gives a function that reads its block index outside every `pl.spmd` loop of its
    own (`callees.block_launched`): the function is then a launch of that many instances."""
    scalars: Mapping[str, int] | None = None
    """The values the simulation gives the scalar parameters (None: not chosen yet)."""
    known: dict[str, int] = field(default_factory=dict)
    """Scalars of a value known here: the given parameters, and names assigned once to what folds from them
    and from constants (`_fold`): what a GM scratch tensor's shape may name."""
    once: set[str] = field(default_factory=set)
    """The names the function assigns exactly once (never a loop variable, a carry or a phi)."""
    gm_writes: dict[str, int] = field(default_factory=dict)
    """`!pto.ptr` argument -> how many stores into it were emitted so far (a GM slice read after one is stale)."""
    slices: int = 0
    """GM slices made so far (`_Tensor.serial`)."""
    slice_reads: list[list[_Tensor]] = field(default_factory=list)
    """Per enclosing loop or launch, innermost last: the GM slices read in its body."""

    # names ------------------------------------------------------------------------------
    def fresh(self, base: str | None = None) -> str:
        """A new SSA name: *base* (sanitised) when free, else `base_N`; a number without base."""
        if base is None:
            while str(self.counter) in self.used:
                self.counter += 1
            name = str(self.counter)
            self.counter += 1
        else:
            # MLIR's suffix-id is ASCII: `ä`.isalnum() holds, yet no PTO parser reads it
            clean = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_$.") else "_" for ch in base) or "v"
            name, n = clean, 0
            while name in self.used:
                n += 1
                name = f"{clean}_{n}"
        self.used.add(name)
        return name

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)
        self.line_spans.append(self.at)

    def const(self, value: int | bool | float, kind: str) -> str:
        """The SSA name of the hoisted constant *value* of type *kind*."""
        key = (value, kind)
        if key in self.constants:
            return self.constants[key]
        if kind == "i1":
            name = self.fresh("true" if value else "false")
            literal = "true" if value else "false"
        elif kind in ("f32", "f16", "bf16"):
            number = float(value)
            name = self.fresh(f"cst_{kind}")
            literal = repr(number)
            if number != number or number in (float("inf"), float("-inf")):
                if kind != "f32":
                    raise EmitError(f"{kind} constant {number} has no arith.constant spelling")
                # No decimal spelling: MLIR's hexadecimal form, the f32 bit pattern.
                literal = f"0x{struct.unpack('<I', struct.pack('<f', number))[0]:08X}"
        else:
            number = int(value)
            name = self.fresh(f"c{number}_{kind}" if number >= 0 else f"cn{-number}_{kind}")
            literal = str(number)
        self.constants[key] = name
        self.constant_lines.append(f"    %{name} = arith.constant {literal} : {kind}")
        return name

    # entry ------------------------------------------------------------------------------
    def run(self) -> EmittedFunction:
        self.env = type_env(self.fn)
        self.once = assigned_once(self.fn)
        self.typed = type_env(self.fn, ops.value_type)
        self._collect_transposed_uses()
        self.base_address = _plan_addresses(self.fn, self.env)
        views: list[str] = []
        self.task_arrays = ops.task_arrays(self.fn)
        for param in self.fn.params:
            if param.name in self.task_arrays:
                # it only receives task ids (`ops.task_arrays`): no data the kernel reads, no argument
                self.sealed[param.name] = (f"`{param.name}` holds task ids: it orders tasks and has no value in the "
                                           "PTO subset")
                continue
            arg = f"arg{len(self.args)}"
            self.used.add(arg)
            if isinstance(param.type, TensorType):
                dtype = _pto_dtype(param.type.dtype, param.span)
                self.args.append(ArgBinding(arg, "tensor", param.name, f"!pto.ptr<{dtype}>"))
            elif isinstance(param.type, ScalarType):
                kind = "i1" if param.type.dtype is DType.BOOL else "index"
                self.args.append(ArgBinding(arg, "scalar", param.name, kind))
                self.bind[param.name] = _Scalar(arg, kind)
                if self.scalars is not None and param.name in self.scalars and kind == "index":
                    self.known[param.name] = int(self.scalars[param.name])
            else:
                why = param.untyped or "is neither a tensor nor a scalar"
                raise EmitError(f"parameter `{param.name}` {why}", param.span)
        for binding in self.args:
            param = next(p for p in self.fn.params if p.name == binding.param)
            if isinstance(param.type, TensorType):
                views.append(self._tensor_view(param.name, binding.name, param.type, param.span))
        self.launch = _launch(self.fn) if self.blocks is None else None
        size = None if self.launch is None else _launch_size(self.fn, self.launch)
        if size is None:
            self.launch = None  # a launch size known only at run time: a `pto.launch` step of the function
        if self.blocks is not None:
            size = self.blocks
            self.launched_by_caller()
        block_dim = "" if size is None else f", pto.block_dim = {size}"
        self.body(self.fn.body)
        if self.written & set(self.reads):
            # a `tensor.read` is an argument holding the element it returns, which a store cannot change
            raise EmitError(f"`{min(self.written & set(self.reads))}` is written by tensor.write and read by "
                            "tensor.read: the subset has no pto.load_scalar")
        kind = "cube" if self.cube else "vector"
        header = (f"  func.func @{self.fn.name}("
                  + ", ".join(f"%{a.name}: {a.type}" for a in self.args)
                  + f") attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>{block_dim}}} {{")
        prefix = "\n".join([header, *self.constant_lines, *(v for v in views if v)])
        text = "\n".join([prefix, *self.lines, "    return", "  }"])
        first = prefix.count("\n") + 2  # the line of lines[0]
        spans = tuple((first + i, span) for i, span in enumerate(self.line_spans) if span.line)
        return EmittedFunction(self.fn.name, text, tuple(self.args), spans)

    def _collect_transposed_uses(self) -> None:
        plain: set[str] = set()
        for stmt in walk_stmts(self.fn.body):
            for expr in _stmt_calls(stmt):
                if expr.op not in ops.MADS:
                    continue
                parts = ops.matmul_parts(expr)
                for operand, flag in ((parts.lhs, parts.a_trans), (parts.rhs, parts.b_trans)):
                    v = var_like(operand)
                    if v is not None:
                        (self.transposed_uses if flag else plain).add(v.name)
        both = sorted(self.transposed_uses & plain)
        if both:
            raise EmitError(f"tile `{both[0]}` is a matmul operand both transposed and not")

    def _tensor_view(self, name: str, arg: str, t: TensorType, span: Span) -> str:
        shape = ops.static_shape(t.shape)
        if shape is None:
            raise EmitError(f"tensor `{name}` has a symbolic shape", span)
        _pto_dtype(t.dtype, span)
        binding = _Tensor(self.fresh(f"{name}_view"), name, shape, t.dtype, arg)
        if not 1 <= len(shape) <= _MAX_VIEW_RANK:
            self.used.discard(binding.view)
            self.bind[name] = _Tensor("", name, shape, t.dtype, arg)
            return ""
        self.bind[name] = binding
        strides = [1]
        for dim in reversed(shape[1:]):
            strides.insert(0, strides[0] * dim)
        dims = ", ".join(f"%{self.const(d, 'index')}" for d in shape)
        steps = ", ".join(f"%{self.const(s, 'index')}" for s in strides)
        return (f"    %{binding.view} = pto.make_tensor_view %{arg}, shape = [{dims}], strides = "
                f"[{steps}] {{layout = #pto.layout<nd>}} : {binding.view_type}")

    def op_tensor_reshape(self, name, call, declared, span):
        # A GM tensor is row-major contiguous storage behind its `!pto.ptr`: its reshape is one more
        # `make_tensor_view` of the same pointer with the new shape and row-major strides (no data
        # moves; a write through either view is seen through the other).
        source = self._operand(call.args[0], span, "tensor.reshape source")
        if not isinstance(source, _Tensor):
            raise EmitError("tensor.reshape of something other than a GM tensor has no PTO form", span)
        if not source.view:
            raise EmitError(f"tensor.reshape source: tensor `{source.param}` of rank {len(source.shape)} "
                            "has no view", span)
        source = self._read_slice(source, span)
        if source.strides is not None and source.strides != _row_major(source.shape):
            raise EmitError(f"tensor.reshape of a GM slice of `{source.param}` that is not contiguous has no PTO "
                            "form in the subset", span)
        shape_arg = call.args[1] if len(call.args) > 1 else call.kwarg("shape")
        dims = _items(shape_arg, span, "tensor.reshape shape")
        if name is None or not 1 <= len(dims) <= _MAX_VIEW_RANK:
            raise EmitError(f"tensor.reshape to rank {len(dims)} has no tensor view", span)
        static = tuple(ops.const_int(d) for d in dims)
        if any(d is not None and d < 0 for d in static):
            raise EmitError(f"tensor.reshape to a negative extent {list(static)}", span)
        if None not in static and None not in source.shape and \
                math.prod(d for d in static if d is not None) != math.prod(s for s in source.shape if s is not None):
            raise EmitError(f"tensor.reshape of `{source.param}` {list(source.shape)} to {list(static)} "
                            "changes its element count", span)
        sizes = [self.index(d, span) for d in dims]
        step = self.const(1, "index")
        known: int | None = 1
        strides = [step]
        for dim, size in zip(reversed(static[1:]), reversed(sizes[1:])):
            if known is not None and dim is not None:
                known *= dim
                step = self.const(known, "index")
            else:
                known, product = None, self.fresh()
                self.emit(f"%{product} = arith.muli %{step}, %{size} : index")
                step = product
            strides.insert(0, step)
        binding = _Tensor(self.fresh(f"{name}_view"), source.param, static, source.dtype, source.arg, source.ptr,
                          None, source.serial, source.epoch)
        self.emit(f"%{binding.view} = pto.make_tensor_view %{source.ptr or source.arg}, shape = "
                  f"[{', '.join('%' + s for s in sizes)}], strides = [{', '.join('%' + s for s in strides)}] "
                  f"{{layout = #pto.layout<nd>}} : {binding.view_type}")
        return binding

    # statements -------------------------------------------------------------------------
    def body(self, stmts: tuple[Stmt, ...]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, stmt: Stmt) -> None:
        outer = self.at
        span: Span = getattr(stmt, "span", NO_SPAN)  # every concrete statement has one (ir.py)
        self.at = span if span.line else outer
        try:
            self._stmt(stmt)
        finally:
            self.at = outer

    def _stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, Assign):
            self.assign(stmt)
        elif isinstance(stmt, Eval):
            if not isinstance(stmt.value, Call):
                raise EmitError("an expression statement that is not a call", stmt.span)
            self.call(None, stmt.value, None, stmt.span)
        elif isinstance(stmt, For):
            self.loop(stmt)
        elif isinstance(stmt, If):
            self.branch(stmt)
        elif isinstance(stmt, Scope):
            self.body(stmt.body)
        elif isinstance(stmt, Return):
            # tensors are returned in place; a store in the return (`return pl.store(...)`) is done before it
            for value in stmt.values:
                if isinstance(value, Call) and (value.op == ops.STORE or value.op in self.callees):
                    self.call(None, value, None, stmt.span)  # `return f(...)`: its writes are done, as the reference's
        elif isinstance(stmt, Yield):
            pass  # yields are handled by the enclosing loop / if
        else:
            raise EmitError(f"statement {type(stmt).__name__} has no PTO form", getattr(stmt, "span", NO_SPAN))

    def assign(self, stmt: Assign) -> None:
        target, value = stmt.target, stmt.value
        declared = stmt.type if stmt.type is not None else self.env.get(target.name)
        if target.name in self.once and not isinstance(declared, (TileType, TensorType)):
            folded = self._fold(value)
            if folded is not None:
                self.known[target.name] = folded
        if isinstance(value, Call) and value.op != ops.T_READ:
            self.call(target, value, declared, stmt.span)
            return
        source = var_like(value)
        if source is not None and source.name in self.sealed:
            self.sealed[target.name] = self.sealed[source.name]  # a copy of a task id: still no value
            return
        if source is not None:
            bound = self._lookup(source.name, stmt.span)
            if isinstance(bound, _Tile) and isinstance(declared, TileType) and declared.memref is not None:
                # An identity copy is its own window (the lowering puts it on the source's).
                self.bind[target.name] = self.alloc(target.name, declared, stmt.span)
            else:
                self.bind[target.name] = bound
            return
        if isinstance(declared, (TileType, TensorType)):
            raise EmitError(f"`{target.name}` is a tile or tensor defined by an expression", stmt.span)
        ssa, kind = self.scalar(value, stmt.span, target.name)
        self.bind[target.name] = _Scalar(ssa, kind)

    def loop(self, stmt: For) -> None:
        if stmt is self.launch:
            self.launch_body(stmt)
            return
        if stmt.kind is LoopKind.SPMD and self.block_index is None:
            self.launch_step(stmt)
            return
        if stmt.kind is LoopKind.SPMD:
            self.spmd_depth += 1
            try:
                self._loop(stmt)
            finally:
                self.spmd_depth -= 1
            return
        self._loop(stmt)

    def _loop(self, stmt: For) -> None:
        lower = self.index(stmt.start, stmt.span)
        upper = self.index(stmt.stop, stmt.span)
        step = self.index(stmt.step, stmt.span)
        # PyPTO's codegen (pto_control_flow_codegen.cpp, ForStmt): a tile or tensor carry is its init's buffer; a
        # scalar carry is an `iter_args` block argument, its result the loop's, the body's yield an `scf.yield`
        scalars: list[tuple[IterArg, Var, str, str]] = []  # (iter_arg, return var, its block argument, its type)
        inits: list[str] = []
        for arg, init, rv in zip(stmt.iter_args, stmt.inits, stmt.return_vars):
            if not self._scalar_carry(init):
                self.bind[arg.name] = self._carried(init, arg.name, stmt.span)
                continue
            ssa, kind = self.scalar(init, stmt.span)
            inits.append(ssa)
            scalars.append((arg, rv, self.fresh(arg.name), kind))
        induction = self.fresh(stmt.loop_var.name)
        self.bind[stmt.loop_var.name] = _Scalar(induction, "index")
        head = f"scf.for %{induction} = %{lower} to %{upper} step %{step}"
        results: list[str] = []
        if scalars:
            results = [self.fresh(rv.name) for _, rv, _, _ in scalars]
            carried = ", ".join(f"%{block_arg} = %{init}" for (_, _, block_arg, _), init in zip(scalars, inits))
            head = (f"{', '.join('%' + r for r in results)} = {head} iter_args({carried}) -> "
                    f"({', '.join(kind for *_, kind in scalars)})")
            for arg, _, block_arg, kind in scalars:
                self.bind[arg.name] = _Scalar(block_arg, kind)
        self.emit(head + " {")
        self.depth += 1
        self._repeated(stmt.body, stmt.span)
        if scalars:
            self._scalar_yield(stmt.body, [stmt.iter_args.index(arg) for arg, *_ in scalars],
                               [kind for *_, kind in scalars], stmt.span)
        self.depth -= 1
        self.emit("}")
        for rv, arg in zip(stmt.return_vars, stmt.iter_args):
            # TARGET_FACTS.md, PTO codegen: a loop's result is the init value's buffer.
            self.bind[rv.name] = self.bind[arg.name]
        for (_, rv, _, kind), result in zip(scalars, results):
            self.bind[rv.name] = _Scalar(result, kind)

    def _scalar_carry(self, init: Expr) -> bool:
        """Whether a carry starting from *init* is a scalar (a literal, or a name bound to a scalar)."""
        v = var_like(init)
        return v is None or isinstance(self.bind.get(v.name), _Scalar)

    def _scalar_yield(self, body: tuple[Stmt, ...], positions: list[int], kinds: list[str], span: Span) -> None:
        """The `scf.yield` of the scalars at *positions* of *body*'s final yield, of types *kinds*."""
        last = final_yield(body)
        if last is None or len(last.values) <= max(positions):
            raise EmitError("a region with scalar results does not yield them", span)
        yielded = []
        for position, kind in zip(positions, kinds):
            ssa, actual = self.scalar(last.values[position], getattr(last, "span", span))
            if actual != kind:
                raise EmitError(f"a scalar carried as {kind} is yielded as {actual}", span)
            yielded.append(ssa)
        self.emit(f"scf.yield {', '.join('%' + y for y in yielded)} : {', '.join(kinds)}")

    # launches ---------------------------------------------------------------------------
    def launch_body(self, stmt: For) -> None:
        """The launch loop's body, once per instance: its loop variable is the instance's index
        (`pto.get_block_idx`); the size is the function's `pto.block_dim`."""
        raw = self.fresh(f"{stmt.loop_var.name}_block")
        self.emit(f"%{raw} = pto.get_block_idx")
        induction = self.fresh(stmt.loop_var.name)
        self.emit(f"%{induction} = arith.index_cast %{raw} : i64 to index")
        self.bind[stmt.loop_var.name] = _Scalar(induction, "index")
        self.block_index = induction
        self.launch_depth = self.depth
        try:
            self._repeated(stmt.body, stmt.span)
        finally:
            self.block_index = None

    def launch_step(self, stmt: For) -> None:
        """A `pl.spmd` loop that is one step of its function (an orchestration of several, or a launch of a size
        known only at run time): `pto.launch` of its body, the kernel PyPTO outlines from it, over its block
        count. No tile crosses into or out of it: each block runs on a core of its own."""
        if ops.const_int(stmt.start) != 0 or ops.const_int(stmt.step) != 1:
            raise EmitError("a `pl.spmd` launch that does not count its blocks from 0 by 1", stmt.span)
        unread = {a.name for a in stmt.iter_args} - _names_read(stmt.body)
        for arg, init in zip(stmt.iter_args, stmt.inits):
            if arg.name in unread:  # a name every block sets before it reads it: no value crosses from block to block
                continue
            bound = None if self._scalar_carry(init) else self._carried(init, arg.name, stmt.span)
            if not isinstance(bound, _Tensor):
                what = "scalar" if bound is None else "tile"
                raise EmitError(f"a `pl.spmd` step carrying {what} `{arg.name}` from block to block: each block runs "
                                "on a core of its own", stmt.span)
            self.bind[arg.name] = bound
        count = self.index(stmt.stop, stmt.span)
        self._seal_tiles()
        self.emit(f"pto.launch %{count} {{")
        self.depth += 1
        try:
            self.launch_body(stmt)
        finally:
            self.depth -= 1
            self.launch_depth = -1
        self.emit("}")
        self._seal_tiles()
        for rv, arg in zip(stmt.return_vars, stmt.iter_args):
            if arg.name in unread:
                self.sealed[rv.name] = (f"`{rv.name}` is what the blocks of a `pl.spmd` step leave in a name each sets "
                                        "on a core of its own: it has no one value after the step")
            else:
                self.bind[rv.name] = self.bind[arg.name]

    def _seal_tiles(self) -> None:
        for name, bound in self.bind.items():
            if isinstance(bound, (_Tile, _Transposed)):
                self.sealed[name] = (f"tile `{name}` is read across a `pl.spmd` step: each block of a launch runs on "
                                     "a core of its own, so no tile crosses into or out of it")

    def launched_by_caller(self) -> None:
        """A function whose block index its launcher gives (`blocks`): the whole body is the launch's, once per
        instance; `get_block_idx()` outside its own `pl.spmd` loops reads the instance's index."""
        if self.blocks is None or self.blocks < 1:
            raise EmitError(f"a launch of {self.blocks} blocks", self.fn.span)
        raw = self.fresh("block")
        self.emit(f"%{raw} = pto.get_block_idx")
        induction = self.fresh("block_idx")
        self.emit(f"%{induction} = arith.index_cast %{raw} : i64 to index")
        self.block_index = induction
        self.launch_depth = self.depth

    def inline_call(self, name: str | None, call: Call, span: Span) -> _Binding | None:
        """A call of another function (`call.f`, `extern.f`) with the callee's lowered body spliced in its place:
        its parameters bound to the arguments (GM tensors and scalars), its `get_block_idx()` the caller's, its
        returned tensor the call's result. The callee keeps the buffers its own lowering gave it, so no tile of the
        caller is read after the call (`callees` module docstring)."""
        callee = self.callees[call.op]
        if isinstance(callee, str):
            raise EmitError(f"the call `{call.op}` is not spliced: {callee}", span)
        fn = callee.lowered
        if fn.name in self.inlining or len(self.inlining) >= _MAX_INLINE_DEPTH:
            raise EmitError(f"the call of `{fn.name}` is recursive or nests too deeply to splice", span)
        try:
            given = call_arguments(fn, call)
        except CallError as error:
            raise EmitError(str(error), span) from None
        bind: dict[str, _Binding] = {}
        sealed: dict[str, str] = {}
        shapes: dict[str, tuple[int, ...]] = {}
        for param in fn.params:
            expr = given[param.name]
            v = var_like(expr)
            if v is not None and v.name in self.sealed:
                sealed[param.name] = self.sealed[v.name]  # a task id passed on: still no value
            elif isinstance(param.type, TensorType):
                tensor = self.tensor(expr, span, f"argument `{param.name}` of `{fn.name}`")
                if None in tensor.shape:
                    raise EmitError(f"argument `{param.name}` of `{fn.name}` has a run-time extent", span)
                shapes[param.name] = tuple(d for d in tensor.shape if d is not None)
                bind[param.name] = tensor
            elif isinstance(param.type, ScalarType):
                ssa, kind = self.scalar(expr, span)
                bind[param.name] = _Scalar(ssa, kind)
            else:
                raise EmitError(f"parameter `{param.name}` of `{fn.name}` is neither a tensor nor a scalar", span)
        try:
            fn = bound_callee(fn, shapes)
        except CallError as error:
            raise EmitError(str(error), span) from None
        try:
            body, returned = split_return(fn)
        except CallError as error:
            raise EmitError(str(error), span) from None
        saved = (self.fn, self.env, self.bind, self.sealed, self.transposed_uses, self.base_address, self.callees,
                 self.inlining)
        self.fn, self.bind, self.sealed, self.callees = fn, bind, sealed, callee.callees
        self.env, self.transposed_uses, self.inlining = type_env(fn), set(), (*self.inlining, fn.name)
        try:
            self._collect_transposed_uses()
            self.base_address = _plan_addresses(fn, self.env)
            self.body(body)
            results = tuple(self._handed_back(v, fn, i, span) for i, v in enumerate(returned))
        finally:
            (self.fn, self.env, self.bind, self.sealed, self.transposed_uses, self.base_address, self.callees,
             self.inlining) = saved
        for held, bound in self.bind.items():
            if isinstance(bound, (_Tile, _Transposed)):
                self.sealed[held] = (f"tile `{held}` is read across the call of `{fn.name}` (line {span.line}): the "
                                     "callee's buffers were allocated apart from the caller's, so the simulation "
                                     "carries no tile across a call")
        values = tuple(r if isinstance(r, (_Tensor, _Scalar)) else None for r in results)
        if name is None:
            return None
        if len(values) == 1 and values[0] is not None:
            return values[0]
        if len(values) > 1:
            return _Returned(values, fn.name)
        self.sealed[name] = (f"`{name}` is what `{fn.name}` returns, neither a GM tensor nor a scalar: it has no value "
                             "in the PTO subset")
        return None

    def _handed_back(self, expr: Expr, fn: Function, index: int, span: Span) -> _Binding | None:
        """What a spliced callee returns, as its caller reads a call's result: a GM tensor or a scalar as it is; a
        tile stored whole into a GM workspace of the callee's declared return shape, as PyPTO 10
        ConvertTensorToTileOps gives an InCore function's returned tile an output of its own and an exit store (the
        caller's lowering reads a call's result as a GM tensor)."""
        declared = fn.return_types[index] if index < len(fn.return_types) else None
        if isinstance(expr, Call) and expr.op in self.callees:  # `return g(...)`: g spliced here, its result handed on
            return self.inline_call(f"{fn.name}_returned{index}", expr, span)
        if isinstance(declared, ScalarType) and var_like(expr) is None:
            return _Scalar(*self.scalar(expr, span))  # `return first + band * TILE`
        bound = self._maybe(expr)
        if not isinstance(bound, _Tile):
            return bound
        if not isinstance(declared, TensorType) or ops.static_shape(declared.shape) is None:
            raise EmitError(f"`{fn.name}` returns a tile without a tensor type of constant shape to hand it back in",
                            span)
        arg = f"arg{len(self.args)}"
        self.used.add(arg)
        name = f"{fn.name}_returned{index}"
        shape = ops.static_shape(declared.shape)
        assert shape is not None
        declared = replace(declared, dtype=bound.dtype)
        self.args.append(ArgBinding(arg, "workspace", name, f"!pto.ptr<{_pto_dtype(bound.dtype, span)}>", shape))
        line = self._tensor_view(name, arg, declared, span)
        if not line:
            raise EmitError(f"`{fn.name}` returns a tile of rank {len(shape)}: its GM workspace has no view", span)
        self.emit(line.strip())
        workspace = self.bind.pop(name)
        assert isinstance(workspace, _Tensor)
        view, view_type = self.partition(workspace, tuple(Const(0) for _ in shape), bound, span)
        self.emit(f"pto.tstore ins(%{bound.ssa} : {bound.type}) outs(%{view} : {view_type})")
        return self._written(workspace, span)

    def op_getitem(self, name, call, declared, span):
        # `tensor.getitem`: an item of what an inline callee returned, or an element of an on-core array
        source = self._operand(call.args[0], span, "tensor.getitem source") if call.args else None
        if isinstance(source, _Returned):
            return self.op_returned_item(name, call, declared, span)
        return self.op_array_item(name, call, declared, span)

    def op_returned_item(self, name, call, declared, span):
        # `a, b = f(...)` of an inline callee: item i of what it returned
        source = self._operand(call.args[0], span, "tensor.getitem source") if call.args else None
        index = ops.const_int(call.args[1]) if len(call.args) > 1 else None
        if not isinstance(source, _Returned) or index is None or not 0 <= index < len(source.items):
            raise EmitError("`tensor.getitem` of something other than what an inline callee returns", span)
        item = source.items[index]
        if item is None:
            if name is not None:
                self.sealed[name] = (f"`{name}` is item {index} of what `{source.callee}` returns, not a GM tensor: it "
                                     "has no value in the PTO subset")
            return None
        return item

    def block_idx(self, span: Span) -> str:
        """The SSA name of `get_block_idx()` here: the launch's instance index."""
        if self.block_index is None:
            raise EmitError("`tile.get_block_idx` outside a `pl.spmd` loop: its launch size is given at run "
                            "time, not in the source", span)
        if self.spmd_depth:
            raise EmitError("`tile.get_block_idx` in a `pl.spmd` loop nested in the function's launch: the PTO "
                            "subset launches one function per `pl.spmd`", span)
        return self.block_index

    def op_block_idx(self, name, call, declared, span):
        return _Scalar(self.block_idx(span), "index")

    def op_syncall(self, name, call, declared, span):
        # `pl.system.syncall(core_type=C)`: every block of the launch reaches it before any goes on
        core = call.kwarg("core_type")
        mode = call.kwarg("mode")
        if mode is not None and not (isinstance(mode, Const) and mode.value == "hard"):
            raise EmitError("`pl.system.syncall` in soft mode (a GM workspace barrier) has no form in the PTO subset",
                            span)
        if not isinstance(core, Const) or core.value not in ("mix", "aic", "aiv"):
            raise EmitError("`pl.system.syncall` without a literal `core_type` (`mix`, `aic` or `aiv`)", span)
        if self.block_index is None or self.spmd_depth or self.depth != self.launch_depth:
            raise EmitError("`pl.system.syncall` not at the top level of a `pl.spmd` launch: the simulation splits "
                            "a launch into phases only there", span)
        self.emit(f"pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<{core.value}>")
        return None

    def op_task_id(self, name, call, declared, span):
        # `pl.system.task_dummy(deps=...)` / `with pl.at(...) as tid`: a task handle that orders tasks (docs/pto-subset.md
        # "Launches": the simulation runs every step in program order); no instruction, no value
        if name is not None:
            self.sealed[name] = f"`{name}` is a task id (`{call.op}`): it orders tasks and has no value in the PTO subset"
        return None

    def op_array_create(self, name, call, declared, span):
        # PyPTO: `array.create(N, dtype)` in an InCore function is `pto.declare_local_array -> !pto.local_array<NxT>`
        # (pto_ops_memory.cpp); a TASK_ID array exists only in the orchestration (a C array of task ids for `deps=`)
        extent = ops.const_int(call.args[0]) if call.args else None
        dtype = ops.dtype_of_sym(call.args[1] if len(call.args) > 1 else call.kwarg("dtype"))
        if extent is None or extent < 1 or dtype is None:
            raise EmitError("array.create of other than a constant positive extent and a dtype has no PTO form", span)
        if dtype is DType.TASK_ID:
            return _TaskIds()
        element = {DType.INT32: "i32", DType.INT64: "i64"}.get(dtype)
        if element is None or name is None:
            raise EmitError(f"array.create of {dtype.value} has no PTO form in the subset (INT32 and INT64 have)", span)
        array = _Array(self.fresh(name), extent, element)
        self.emit(f"%{array.ssa} = pto.declare_local_array -> {array.type}")
        return array

    def op_setitem(self, name, call, declared, span):
        # `arr[i] = v` is `arr = tensor.setitem(arr, i, v)` (PyPTO's array.update_element): written in place, the
        # result aliasing the array (`pto.local_array_set`); into an array of task ids it only orders tasks
        target = var_like(call.args[0]) if call.args else None
        if target is not None and target.name in self.task_arrays:
            # a task id stored into a parameter that only holds task ids (`ops.task_arrays`): it orders tasks, which
            # the simulation runs in program order anyway; no instruction
            return None
        array = self._operand(call.args[0], span, "tensor.setitem target") if len(call.args) == 3 else None
        if isinstance(array, _TaskIds):
            return array
        if not isinstance(array, _Array):
            raise EmitError("tensor.setitem of other than an on-core array (`pl.array.create`) has no PTO form", span)
        index = self.index(call.args[1], span)
        value, kind = self.scalar(call.args[2], span)
        if kind != "index":
            raise EmitError(f"an {kind} value stored into a {array.element} array has no PTO form in the subset", span)
        cast = self.fresh()
        self.emit(f"%{cast} = arith.index_cast %{value} : index to {array.element}")
        self.emit(f"pto.local_array_set %{array.ssa}[%{index}], %{cast} : {array.type}, {array.element}")
        return array

    def op_array_item(self, name, call, declared, span):
        array = self._operand(call.args[0], span, "tensor.getitem source") if len(call.args) == 2 else None
        if isinstance(array, _TaskIds):
            if name is not None:
                self.sealed[name] = f"`{name}` is a task id (an element of a task-id array): it orders tasks and has " \
                                    "no value in the PTO subset"
            return None
        if not isinstance(array, _Array):
            raise EmitError("`tensor.getitem` has no instruction in the PTO subset", span)
        return _Scalar(self._array_get(call, span, name), "index")

    def _array_read(self, call: Call) -> bool:
        """Whether *call* reads an element of an on-core array (a scalar, wherever it is nested)."""
        base = var_like(call.args[0]) if call.op == "tensor.getitem" and len(call.args) == 2 else None
        return base is not None and base.name not in self.sealed and isinstance(self.bind.get(base.name), _Array)

    def _array_get(self, call: Call, span: Span, name: str | None) -> str:
        """`pto.local_array_get` of element `call.args[1]` of the array, as an `index` value."""
        array = self._operand(call.args[0], span, "tensor.getitem source")
        assert isinstance(array, _Array)  # _array_read
        index = self.index(call.args[1], span)
        element = self.fresh()
        self.emit(f"%{element} = pto.local_array_get %{array.ssa}[%{index}] : {array.type} -> {array.element}")
        result = self.fresh(name)
        self.emit(f"%{result} = arith.index_cast %{element} : {array.element} to index")
        return result

    def op_dim(self, name, call, declared, span):
        return _Scalar(self.const(self._dim(call, span), "index"), "index")

    def _carried(self, init: Expr, name: str, span: Span) -> _Binding:
        v = var_like(init)
        if v is None:
            raise EmitError(f"loop carry `{name}` starts from an expression", span)
        return self._lookup(v.name, span)

    def branch(self, stmt: If) -> None:
        if stmt.return_vars and self._scalar_arms(stmt):
            self._select(stmt)
            return
        cond = self._bool(stmt.cond, stmt.span)
        then_yield = final_yield(stmt.then_body)
        scalars: list[int] = []  # the positions of the scalar phis: `scf.if` results (PyPTO's IfStmt codegen)
        kinds: list[str] = []
        for i, rv in enumerate(stmt.return_vars):
            declared = stmt.return_types[i] if i < len(stmt.return_types) else None
            declared = declared if declared is not None else self.env.get(rv.name)
            if isinstance(declared, TileType):
                # TARGET_FACTS.md, PTO codegen: the phi is its own buffer; the arms are assumed to
                # have written it.
                self.bind[rv.name] = self.alloc(rv.name, declared, stmt.span)
            elif (why := self._sealed_phi(stmt, i, declared)) is not None:
                self.sealed[rv.name] = why
            elif (kind := self._phi_kind(stmt, i, declared)) is not None:
                scalars.append(i)
                kinds.append(kind)
        # the header is written once the then arm has told the type of a phi no type names (a scalar it computes)
        header, indent = len(self.lines), self.depth
        self.emit("")
        self.depth += 1
        self.body(stmt.then_body)
        for i, rv in enumerate(stmt.return_vars):
            bound = self._maybe(then_yield.values[i]) if then_yield is not None and i < len(then_yield.values) else None
            if i not in scalars and rv.name not in self.bind and rv.name not in self.sealed and isinstance(bound, _Scalar):
                scalars.append(i)
                kinds.append(bound.type)
        order = sorted(range(len(scalars)), key=scalars.__getitem__)
        scalars, kinds = [scalars[k] for k in order], [kinds[k] for k in order]
        if scalars and not stmt.else_body:
            raise EmitError(f"scalar phi `{stmt.return_vars[scalars[0]].name}` of an `if` without an else arm",
                            stmt.span)
        if scalars:
            self._scalar_yield(stmt.then_body, scalars, kinds, stmt.span)
        self.depth -= 1
        results = [self.fresh(stmt.return_vars[i].name) for i in scalars]
        head = f"scf.if %{cond}"
        if scalars:
            head = f"{', '.join('%' + r for r in results)} = {head} -> ({', '.join(kinds)})"
        self.lines[header] = "  " * indent + head + " {"
        if stmt.else_body:
            self.emit("} else {")
            self.depth += 1
            self.body(stmt.else_body)
            if scalars:
                self._scalar_yield(stmt.else_body, scalars, kinds, stmt.span)
            self.depth -= 1
        self.emit("}")
        for i, result, kind in zip(scalars, results, kinds):
            self.bind[stmt.return_vars[i].name] = _Scalar(result, kind)
        for i, rv in enumerate(stmt.return_vars):
            if rv.name in self.bind or rv.name in self.sealed:
                continue
            bound = self._maybe(then_yield.values[i]) if then_yield is not None and i < len(then_yield.values) else None
            if isinstance(bound, (_Array, _TaskIds)) and stmt.else_body:
                other = final_yield(stmt.else_body)
                if other is None or i >= len(other.values) or self._maybe(other.values[i]) != bound:
                    raise EmitError(f"`{rv.name}` picks one of two arrays: an array phi has no PTO form", stmt.span)
            if not isinstance(bound, (_Tensor, _Array, _TaskIds)):
                raise EmitError(f"phi `{rv.name}` is not a tile, a GM tensor, an array or a scalar", stmt.span)
            self.bind[rv.name] = bound  # a tensor is a reference to GM, an array is written in place: both arms name it

    def _sealed_phi(self, stmt: If, i: int, declared: Type | None) -> str | None:
        """Why phi *i* of *stmt* has no value, when it has none: it is typed a task id (`pl.Scalar[pl.TASK_ID]`), or an
        arm yields a value defined before the `if` that has none (the prior task an arm without a launch passes on)."""
        typed = declared if declared is not None else self.typed.get(stmt.return_vars[i].name)
        if isinstance(typed, ScalarType) and typed.dtype is DType.TASK_ID:
            return (f"`{stmt.return_vars[i].name}` is a task id (one of an `if`'s): it orders tasks and has no value in "
                    "the PTO subset")
        for arm in (stmt.then_body, stmt.else_body):
            last = final_yield(arm) if arm else None
            value = var_like(last.values[i]) if last is not None and i < len(last.values) else None
            if value is not None and value.name in self.sealed:
                return self.sealed[value.name]
        return None

    def _phi_kind(self, stmt: If, i: int, declared: Type | None) -> str | None:
        """The subset type of phi *i* of *stmt* when it is a scalar (typed so, or an arm yields a literal or a
        scalar defined before the `if`); None otherwise."""
        if isinstance(declared, (TileType, TensorType)):
            return None
        typed = declared if declared is not None else self.typed.get(stmt.return_vars[i].name)
        if isinstance(typed, ScalarType):
            return _scalar_kind(typed)
        for arm in (stmt.then_body, stmt.else_body):
            last = final_yield(arm) if arm else None
            value = last.values[i] if last is not None and i < len(last.values) else None
            if isinstance(value, Const) and isinstance(value.value, (bool, int, float)):
                return self.scalar(value, stmt.span)[1]
            bound = self._maybe(value) if value is not None else None
            if isinstance(bound, _Scalar):
                return bound.type
        return None

    def _scalar_arms(self, stmt: If) -> bool:
        """Whether *stmt* only picks scalars: every phi a scalar, both arms scalar assignments that cannot
        fault (no division by a run-time value, no op but a cast, a read, `tensor.dim`, a min or a max)
        ending in their yield. Such an `if` is an `arith.select` (the subset's `scf.if` has no results)."""
        if not stmt.else_body:
            return False
        # (a value these checks let through that is not a scalar after all is an EmitError when emitted)
        for rv, declared in zip(stmt.return_vars, (*stmt.return_types, *[None] * len(stmt.return_vars))):
            if isinstance(declared if declared is not None else self.env.get(rv.name), (TileType, TensorType)):
                return False
        for body in (stmt.then_body, stmt.else_body):
            *assigns, last = body
            if not isinstance(last, Yield) or not all(
                    isinstance(a, Assign) and _pure_scalar(a.value)
                    and not isinstance(a.type or self.env.get(a.target.name), (TileType, TensorType)) for a in assigns):
                return False
            if not all(_pure_scalar(v) for v in last.values):
                return False
        return True

    def _select(self, stmt: If) -> None:
        """A scalar-only `if`: both arms computed (they cannot fault), each phi an `arith.select`."""
        cond = self._bool(stmt.cond, stmt.span)
        picked = []
        for body in (stmt.then_body, stmt.else_body):
            for inner in body[:-1]:
                self.stmt(inner)
            last = body[-1]
            assert isinstance(last, Yield)  # _scalar_arms
            picked.append([self.scalar(v, stmt.span) for v in last.values])
        for rv, (then_ssa, then_kind), (else_ssa, else_kind) in zip(stmt.return_vars, *picked):
            if then_kind != else_kind:
                raise EmitError(f"scalar phi `{rv.name}` of a {then_kind} and a {else_kind}", stmt.span)
            result = self.fresh(rv.name)
            self.emit(f"%{result} = arith.select %{cond}, %{then_ssa}, %{else_ssa} : {then_kind}")
            self.bind[rv.name] = _Scalar(result, then_kind)

    def _maybe(self, expr: Expr) -> _Binding | None:
        v = var_like(expr)
        return self.bind.get(v.name) if v is not None else None

    def _lookup(self, name: str, span: Span) -> _Binding:
        if name in self.sealed:
            raise EmitError(self.sealed[name], span)
        bound = self.bind.get(name)
        if bound is None:
            raise EmitError(f"`{name}` is used before it is defined", span)
        return bound

    # tiles ------------------------------------------------------------------------------
    def alloc(self, name: str, t: TileType | None, span: Span, *, transposed: bool = False,
              addr: int | None = None, shape: tuple[int, int] | None = None,
              dynamic_addr: str | None = None, pad: int = 0) -> _Tile:
        """Emit the `alloc_tile` of tile value *name* at its own window."""
        if not isinstance(t, TileType):
            raise EmitError(f"`{name}` has no tile type", span)
        if t.space is None or t.memref is None:
            raise EmitError(f"tile `{name}` has no memory space or MemRef: lower it first", span)
        if t.space is MemSpace.DDR:
            raise EmitError(f"tile `{name}` lives in DDR", span)
        dims = _tile_dims(t.shape, name, span) if shape is None else shape
        ranked = _squeeze_exprs(t.shape)
        if len(ranked) > 2:
            if shape is not None or t.space is not MemSpace.Vec:
                raise EmitError(f"tile `{name}` of rank {len(ranked)} in {t.space.value}: only a Vec tile of rank > 2 "
                                "has a PTO form in the subset (a 2-D tile of its rows, PyPTO's FlattenTileNdTo2D)", span)
            if t.valid_shape is not None:
                if len(t.valid_shape) != len(t.shape):
                    raise EmitError(f"tile `{name}` of shape rank {len(t.shape)} and valid shape rank "
                                    f"{len(t.valid_shape)}", span)
                ranked = tuple(t.valid_shape)[len(t.shape) - len(ranked):]  # the valid extents of the same axes
        valid_exprs = _merge_rows(_squeeze_exprs(t.valid_shape)) if t.valid_shape is not None else None
        if valid_exprs is not None and len(ranked) > 2:
            valid_exprs = _merge_rows(ranked)
        if valid_exprs is not None and len(valid_exprs) == 1:
            valid_exprs = (Const(1), valid_exprs[0])
        if transposed:
            dims = (dims[1], dims[0])
            if valid_exprs is not None:
                valid_exprs = (valid_exprs[1], valid_exprs[0])
        # a tile at a given address is a view of another tile's bytes: their padding is that tile's, not its own
        rows = dims[0] if addr is not None else self.target.padded_rows(dims[0], t.dtype, t.space)
        valid: list[str] = []
        static: list[int | None] = []
        for i, dim in enumerate(dims):
            expr = valid_exprs[i] if valid_exprs is not None else Const(dim)
            known = ops.const_int(expr)
            static.append(known)
            valid.append(self.const(known, "index") if known is not None else self.index(expr, span))
        offset = t.memref.window.offset if addr is None else addr
        if addr is None and self.base_address is not None:
            offset += self.base_address.get(t.memref.base, 0)
        window = tuple((self.const(known, "index"), known) if (known := ops.const_int(e)) is not None
                       else (self.index(e, span), None) for e in ranked) if len(ranked) > 2 else ()
        tile = _Tile(self.fresh(name), t.space, t.dtype, rows, dims[1], (valid[0], valid[1]),
                     (static[0], static[1]), offset, dynamic_addr, pad, window)
        _pto_dtype(t.dtype, span)
        address = dynamic_addr if dynamic_addr is not None else self.const(offset, 'i64')
        self.emit(f"%{tile.ssa} = pto.alloc_tile addr = %{address} valid_row = "
                  f"%{valid[0]} valid_col = %{valid[1]} : {tile.type}")
        return tile

    def tile(self, expr: Expr, span: Span, what: str) -> _Tile:
        bound = self._operand(expr, span, what)
        if isinstance(bound, _Transposed):
            raise EmitError(f"{what}: a transposed view is only read by tile.extract / tile.move", span)
        if not isinstance(bound, _Tile):
            raise EmitError(f"{what} is not a tile", span)
        return bound

    def vec_tile(self, expr: Expr, span: Span, what: str) -> _Tile:
        """A vector-op operand: it must be in Vec (the subset's vector ops read only UB)."""
        bound = self.tile(expr, span, what)
        if bound.space is not MemSpace.Vec:
            # TARGET_FACTS.md, who may read L0C: on a2a3 an Acc value reaches the vector unit only
            # through GM (a cross-core round trip the subset does not model).
            raise EmitError(f"{what} is a {bound.space.value} tile; vector ops read only Vec tiles", span)
        return bound

    def tensor(self, expr: Expr, span: Span, what: str) -> _Tensor:
        bound = self._operand(expr, span, what)
        if not isinstance(bound, _Tensor):
            raise EmitError(f"{what} is not a GM tensor parameter", span)
        if not bound.view:
            raise EmitError(f"{what}: tensor `{bound.param}` of rank {len(bound.shape)} has no view", span)
        return self._read_slice(bound, span)

    def _operand(self, expr: Expr, span: Span, what: str) -> _Binding:
        v = var_like(expr)
        if v is None:
            raise EmitError(f"{what} is not a value", span)
        return self._lookup(v.name, span)

    # calls ------------------------------------------------------------------------------
    def call(self, target: Var | None, call: Call, declared: Type | None, span: Span) -> None:
        # An operand written as a nested call (an op the lowering left unconverted) has no SSA
        # value: name the innermost such op, the one the subset lacks.
        for arg in (*call.args, *(v for _, v in call.kwargs)):
            for inner in walk_exprs(arg):
                if isinstance(inner, Call) and inner.op != ops.T_READ and not self._array_read(inner):
                    innermost = _innermost(inner)
                    if innermost.op == _UNEVALUATED:
                        raise EmitError(_unevaluated(innermost), span)
                    raise EmitError(f"`{innermost.op}` has no instruction in the PTO subset", span)
        op = call.op
        distributed = _distributed_calls().get(op)
        if distributed is not None:
            bound = distributed(self, target.name if target is not None else None, call, declared, span)
            if target is not None and bound is not None:
                self.bind[target.name] = bound
            return
        if op.startswith("distributed."):
            raise EmitError(f"`{op}` has no PTO form in the subset (docs/pto-subset.md, \"Ranks\")", span)
        name = target.name if target is not None else None
        if op not in _RANKED:
            self._two_dimensional(call, declared, span)
        handler = _CALLS.get(op)
        if op == _UNEVALUATED:
            raise EmitError(_unevaluated(call), span)
        if op in self.callees:
            bound = self.inline_call(name, call, span)
        elif handler is not None:
            bound = handler(self, name, call, declared, span)
        elif _is_vector(op):
            bound = self.vector(name, call, declared, span, op.partition(".")[2])
        else:
            raise EmitError(f"`{op}` has no instruction in the PTO subset", span)
        if name is not None and bound is not None:
            self.bind[name] = bound

    def _two_dimensional(self, call: Call, declared: Type | None, span: Span) -> None:
        """Refuse a tile of rank > 2 as an operand or the result of *call*: of the ops PyPTO's FlattenTileNdTo2D
        rewrites, only loads, stores and reshapes (`_RANKED`) have a form here (an op along a leading axis — a
        column reduction, a slice — would act on the merged rows)."""
        ranks = [len(_squeeze_exprs(declared.shape))] if isinstance(declared, TileType) else []
        ranks += [len(bound.window) for arg in (*call.args, *(v for _, v in call.kwargs))
                  if isinstance(bound := self._maybe(arg), _Tile) and bound.window]
        rank = max(ranks, default=2)
        if rank > 2:
            raise EmitError(f"`{call.op}` of a tile of rank {rank}: only loads, stores and reshapes of a tile of "
                            "rank > 2 have a PTO form in the subset", span)

    def _result(self, name: str | None, declared: Type | None, call: Call, span: Span) -> _Tile:
        if name is None:
            raise EmitError(f"`{call.op}` result is not named", span)
        return self.alloc(name, declared if isinstance(declared, TileType) else None, span)

    def op_create(self, name, call, declared, span):
        # TARGET_FACTS.md: tile.create emits no instruction; the L0C contents are undefined.
        return self._result(name, declared, call, span)

    def op_alloc(self, name, call, declared, span):
        return None

    def op_tensor_create(self, name, call, declared, span):
        # A GM scratch tensor: the subset's tensors are all arguments, so it becomes one more
        # `!pto.ptr` argument, a workspace the caller provides (the comparison zero-fills it, like
        # the reference's zero-filled create).
        if name is None or not isinstance(declared, TensorType):
            raise EmitError("tensor.create without a tensor type", span)
        shape = ops.static_shape(declared.shape)
        if shape is None:
            folded = tuple(self._fold(d) for d in declared.shape)
            if None in folded:
                if self.scalars is None and any(isinstance(p.type, ScalarType) for p in self.fn.params):
                    raise NeedsScalars(f"GM scratch tensor `{name}` has a shape known only at run time", span)
                raise EmitError(f"GM scratch tensor `{name}` has a symbolic shape", span)
            # a shape of run-time sizes, at the values the simulation runs with (a workspace of that size)
            shape = tuple(d for d in folded if d is not None)
            declared = replace(declared, shape=tuple(Const(d) for d in shape))
        if min(shape, default=0) < 0:
            raise EmitError(f"GM scratch tensor `{name}` of a negative extent {list(shape)}", span)
        arg = f"arg{len(self.args)}"
        self.used.add(arg)
        self.args.append(ArgBinding(arg, "workspace", name, f"!pto.ptr<{_pto_dtype(declared.dtype, span)}>",
                                    shape))
        line = self._tensor_view(name, arg, declared, span)
        if line:
            self.emit(line.strip())
        return self.bind[name]

    def op_tensor_slice(self, name, call, declared, span):
        # PyPTO's orchestration `tensor.slice` (tensor_op_codegen.cpp) is a view of the same GM storage at the
        # slice's offsets with its source's strides; PTO IR spells a view at an offset as a `pto.addptr` of the
        # pointer to the first element and a `make_tensor_view` of it (pto_ops_distributed.cpp). No data moves.
        source = self._operand(call.args[0], span, "tensor.slice source") if call.args else None
        if not isinstance(source, _Tensor) or not source.arg:
            raise EmitError("tensor.slice of something other than a GM tensor has no PTO form in the subset", span)
        source = self._read_slice(source, span)
        dims = _items(call.args[1] if len(call.args) > 1 else call.kwarg("shape"), span, "tensor.slice shape")
        offsets = _items(call.args[2] if len(call.args) > 2 else call.kwarg("offsets"), span, "tensor.slice offsets")
        shape = tuple(ops.const_int(d) for d in dims)
        if name is None or len(dims) != len(source.shape) or len(offsets) != len(dims) or None in shape \
                or not 1 <= len(dims) <= _MAX_VIEW_RANK:
            raise EmitError(f"tensor.slice of `{source.param}` other than a constant extent and an offset per axis "
                            "has no PTO form in the subset", span)
        valid = call.kwarg("valid_shape")
        if valid is not None and tuple(ops.const_int(v) for v in _items(valid, span, "valid_shape")) != shape:
            raise EmitError("a GM tensor.slice whose valid_shape is not its shape has no PTO form in the subset", span)
        strides = source.strides if source.strides is not None else _row_major(source.shape)
        if strides is None:
            raise EmitError(f"tensor.slice of `{source.param}` of a run-time extent has no PTO form in the subset",
                            span)
        first = self._flat_offset(offsets, strides, span)
        element = _PTO_DTYPE[source.dtype]
        ptr = self.fresh(f"{name}_ptr")
        self.emit(f"%{ptr} = pto.addptr %{source.ptr or source.arg}, %{first} : !pto.ptr<{element}> -> "
                  f"!pto.ptr<{element}>")
        view = _Tensor(self.fresh(f"{name}_view"), source.param, shape, source.dtype, source.arg, ptr, strides,
                       self.slices, self.gm_writes.get(source.arg, 0))
        self.slices += 1
        extents = ", ".join(f"%{self.const(d, 'index')}" for d in shape if d is not None)
        steps = ", ".join(f"%{self.const(d, 'index')}" for d in strides)
        self.emit(f"%{view.view} = pto.make_tensor_view %{ptr}, shape = [{extents}], strides = [{steps}] "
                  f"{{layout = #pto.layout<nd>}} : {view.view_type}")
        return view

    def _fold(self, expr: Expr) -> int | None:
        """The value of scalar *expr* from `known` and constants (`pl.min` / `pl.max`, `pl.tensor.dim` of a
        static extent included), None when some part is known only at run time."""
        def foldable(sub: Expr) -> Expr | None:
            if isinstance(sub, Call) and sub.op in _SCALAR_EXTREMA and len(sub.args) == 2 and not sub.kwargs:
                return BinOp(_SCALAR_EXTREMA[sub.op], sub.args[0], sub.args[1])
            if isinstance(sub, Call) and sub.op in _DIMS:
                try:
                    return Const(self._dim(sub, NO_SPAN))
                except EmitError:
                    return None
            return None
        try:
            value = scalar.evaluate(map_expr(expr, foldable), self.known)
        except (ArithmeticError, TypeError, ValueError):
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _flat_offset(self, offsets: tuple[Expr, ...], strides: tuple[int, ...], span: Span) -> str:
        """The SSA name of `sum(offsets[i] * strides[i])` (folded where the offsets are constants)."""
        known = 0
        terms: list[str] = []
        for offset, stride in zip(offsets, strides):
            value = ops.const_int(offset)
            if value is not None:
                known += value * stride
                continue
            term = self.index(offset, span)
            if stride != 1:
                scaled = self.fresh()
                self.emit(f"%{scaled} = arith.muli %{term}, %{self.const(stride, 'index')} : index")
                term = scaled
            terms.append(term)
        total = self.const(known, "index") if known or not terms else None
        for term in terms:
            if total is None:
                total = term
                continue
            summed = self.fresh()
            self.emit(f"%{summed} = arith.addi %{total}, %{term} : index")
            total = summed
        assert total is not None
        return total

    def _read_slice(self, bound: _Tensor, span: Span) -> _Tensor:
        """*bound*, read here. The reference copies a slice where PTO views it: the two agree while nothing is
        stored into the slice's tensor between the slice and its reads, which is what this checks (in program
        order here, across iterations when its loop ends: `_repeated`)."""
        if bound.serial < 0:
            return bound
        if self.gm_writes.get(bound.arg, 0) != bound.epoch:
            raise EmitError(f"a GM slice of `{bound.param}` is read after a store into `{bound.param}`: the view "
                            "would see the store, the reference's copy of the slice would not", span)
        for reads in self.slice_reads:
            reads.append(bound)
        return bound

    def _written(self, dst: _Tensor, span: Span) -> _Tensor:
        """*dst*, stored into here (the GM slices of its storage made before are stale from here on)."""
        if dst.serial >= 0:
            raise EmitError(f"a store into a GM slice of `{dst.param}`: the reference writes a copy of the slice, "
                            "not the tensor", span)
        self.gm_writes[dst.arg] = self.gm_writes.get(dst.arg, 0) + 1
        return dst

    def _repeated(self, stmts: tuple[Stmt, ...], span: Span) -> None:
        """A body that runs again and again (a loop's, a launch's): a GM slice made before it and read in it must
        not have its tensor stored into anywhere in it (a later iteration would read it after the store)."""
        made, before = self.slices, dict(self.gm_writes)
        self.slice_reads.append([])
        try:
            self.body(stmts)
        finally:
            reads = self.slice_reads.pop()
        for view in reads:
            if view.serial < made and self.gm_writes.get(view.arg, 0) != before.get(view.arg, 0):
                raise EmitError(f"a GM slice of `{view.param}` made before a loop is read in it, and the loop stores "
                                f"into `{view.param}`: the view would see the store, the reference's copy of the "
                                "slice would not", span)

    def op_load(self, name, call, declared, span):
        src = self.tensor(call.args[0], span, "tile.load source")
        dst = self._result(name, declared, call, span)
        offsets = _items(call.args[1] if len(call.args) > 1 else call.kwarg("offsets"), span, "offsets")
        if dst.space not in (MemSpace.Mat, MemSpace.Vec):
            # `pto.tload` fills only Mat / Vec tiles (docs/pto-subset.md): a load into the bias
            # table is staged through a Mat tile placed after every Mat window, then `tmov`ed.
            staging = _Tile(self.fresh(f"{dst.ssa}_mat"), MemSpace.Mat, dst.dtype, dst.rows, dst.cols,
                            dst.valid, dst.valid_static, self._free_mat_address())
            self.emit(f"%{staging.ssa} = pto.alloc_tile addr = %{self.const(staging.addr, 'i64')} valid_row = "
                      f"%{staging.valid[0]} valid_col = %{staging.valid[1]} : {staging.type}")
            view, view_type = self.partition(src, offsets, staging, span)
            self.emit(f"pto.tload ins(%{view} : {view_type}) outs(%{staging.ssa} : {staging.type})")
            self.emit(f"pto.tmov ins(%{staging.ssa} : {staging.type}) outs(%{dst.ssa} : {dst.type})")
            return dst
        view, view_type = self.partition(src, offsets, dst, span)
        self.emit(f"pto.tload ins(%{view} : {view_type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def _free_mat_address(self) -> int:
        """The first 512-aligned Mat byte after every Mat window of the function."""
        return self._free_address(MemSpace.Mat)

    def _free_address(self, space: MemSpace) -> int:
        """The first 512-aligned byte of *space* after every window of the function in it."""
        end = 0
        for t in (*self.env.values(), *_annotated_types(self.fn)):
            if isinstance(t, TileType) and t.space is space and t.memref is not None:
                w = t.memref.window
                base = self.base_address.get(w.base, 0) if self.base_address is not None else 0
                end = max(end, base + w.offset + w.size)
        return -(-end // 512) * 512

    def partition(self, src: _Tensor, offsets: tuple[Expr, ...], tile: _Tile, span: Span
                  ) -> tuple[str, str]:
        """Emit a `partition_view` of *src* at *offsets* the size of *tile*'s valid region; its
        name and type."""
        rank = len(src.shape)
        if len(offsets) != rank:
            raise EmitError(f"{len(offsets)} offsets for tensor `{src.param}` of rank {rank}", span)
        sizes = [tile.valid[0], tile.valid[1]]
        static = [tile.valid_static[0], tile.valid_static[1]]
        if tile.window:
            # A tile of rank > 2 reads and writes a window of its own rank (PyPTO's FlattenTileNdTo2D keeps a Vec
            # load's N-D source window and gives a store its tile's N-D shape): its rows are the window's
            # leading axes in row-major order (docs/pto-subset.md, `partition_view`).
            if len(tile.window) > rank:
                raise EmitError(f"a tile of rank {len(tile.window)} and tensor `{src.param}` of rank {rank}", span)
            sizes, static = [n for n, _ in tile.window], [v for _, v in tile.window]
        if rank == 1:
            # A window of a 1-D tensor is one row of the tile: [1, N] (docs/pto-subset.md)
            if tile.valid_static[0] != 1:
                raise EmitError(f"a window of 1-D tensor `{src.param}` into a tile of "
                                f"{tile.valid_static[0] or 'runtime'} valid rows", span)
            sizes, static = sizes[1:], static[1:]
        # Leading dimensions of a higher-rank view are windows of extent 1: the tile is 2-D.
        sizes[:0] = [self.const(1, "index")] * (rank - len(sizes))
        static[:0] = [1] * (rank - len(static))
        if any(s is not None and s <= 0 for s in static):
            raise EmitError(f"a window of `{src.param}` with extent {static}: PTO has no empty or negative view", span)
        names = [self.index(o, span) for o in offsets]
        view = self.fresh(f"{src.param}_pview")
        dims = "x".join("?" if s is None else str(s) for s in static)
        view_type = f"!pto.partition_tensor_view<{dims}x{_PTO_DTYPE[src.dtype]}>"
        self.emit(f"%{view} = pto.partition_view %{src.view}, offsets = [{', '.join('%' + n for n in names)}], "
                  f"sizes = [{', '.join('%' + s for s in sizes)}] : {src.view_type} -> {view_type}")
        return view, view_type

    def op_store(self, name, call, declared, span):
        tile = self.tile(call.args[0], span, "tile.store source")
        dst = self._written(self.tensor(call.args[2] if len(call.args) > 2 else call.kwarg("output_tensor"), span,
                                        "tile.store destination"), span)
        offsets = _items(call.args[1], span, "offsets")
        view, view_type = self.partition(dst, offsets, tile, span)
        atomic = " {atomic = #pto.atomic<add>}" if _is_atomic(call.kwarg("atomic")) else ""
        self.emit(f"pto.tstore ins(%{tile.ssa} : {tile.type}) outs(%{view} : {view_type}){atomic}")
        return dst

    def op_extract(self, name, call, declared, span):
        self.cube = True
        source = self._operand(call.args[0], span, "tile.extract source")
        row = self.index(call.args[1], span)
        col = self.index(call.args[2], span)
        wants_t = name in self.transposed_uses
        if isinstance(source, _Transposed):
            base, flip = source.base, not wants_t
            row, col = col, row
        elif isinstance(source, _Tile):
            base, flip = source, wants_t
        else:
            raise EmitError("tile.extract source is not a tile", span)
        # In the source's coordinates the window is [row, col] of the IR shape, or its transpose.
        dst = self.alloc(name or "", declared if isinstance(declared, TileType) else None, span,
                         transposed=wants_t)
        attr = " {transpose = true}" if flip else ""
        self.emit(f"pto.textract ins(%{base.ssa}, %{row}, %{col} : {base.type}, index, index) "
                  f"outs(%{dst.ssa} : {dst.type}){attr}")
        return dst

    def op_move(self, name, call, declared, span):
        source = self._operand(call.args[0], span, "tile.move source")
        wants_t = name in self.transposed_uses
        dst = self.alloc(name or "", declared if isinstance(declared, TileType) else None, span,
                         transposed=wants_t)
        if isinstance(source, _Transposed) or wants_t:
            base = source.base if isinstance(source, _Transposed) else source
            if not isinstance(base, _Tile):
                raise EmitError("tile.move source is not a tile", span)
            if isinstance(source, _Transposed) and wants_t:
                self.emit(f"pto.tmov ins(%{base.ssa} : {base.type}) outs(%{dst.ssa} : {dst.type})")
                return dst
            zero = self.const(0, "index")
            self.cube = True
            self.emit(f"pto.textract ins(%{base.ssa}, %{zero}, %{zero} : {base.type}, index, index) "
                      f"outs(%{dst.ssa} : {dst.type}) {{transpose = true}}")
            return dst
        if not isinstance(source, _Tile):
            raise EmitError("tile.move source is not a tile", span)
        if source.space is MemSpace.Acc and dst.space is MemSpace.Vec and not self.target.acc_to_vec:
            self._through_gm(source, dst, span)
            return dst
        if source.space is MemSpace.Vec and dst.space in (MemSpace.Left, MemSpace.Right):
            # TARGET_FACTS.md: no Vec -> L0A / L0B path; a computed matmul operand goes through a Mat tile
            # (`tmov` vec -> mat, then mat -> left / right), placed after every Mat window
            staging = _Tile(self.fresh(f"{dst.ssa}_mat"), MemSpace.Mat, dst.dtype, dst.rows, dst.cols,
                            dst.valid, dst.valid_static, self._free_mat_address())
            self._alloc_view(staging)
            self.emit(f"pto.tmov ins(%{source.ssa} : {source.type}) outs(%{staging.ssa} : {staging.type})")
            source = staging
        self.emit(f"pto.tmov ins(%{source.ssa} : {source.type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def _through_gm(self, source: _Tile, dst: _Tile, span: Span) -> None:
        """An Acc -> Vec move where the target has no such path (a2a3, TARGET_FACTS.md "Who may
        read L0C"): the FIXPIPE drain into a GM workspace, then a load into Vec — the round trip
        the compiler's AIC / AIV split makes. The workspace is one more `!pto.ptr` argument."""
        rows, cols = dst.valid_static
        if rows is None or cols is None:
            raise EmitError("an Acc -> Vec move of a runtime valid shape has no GM round trip", span)
        arg = f"arg{len(self.args)}"
        self.used.add(arg)
        name = f"{dst.ssa}_gm"
        dtype = _PTO_DTYPE[dst.dtype]
        self.args.append(ArgBinding(arg, "workspace", name, f"!pto.ptr<{dtype}>", (rows, cols)))
        line = self._tensor_view(name, arg, TensorType((Const(rows), Const(cols)), dst.dtype), span)
        self.emit(line.strip())
        workspace = self.bind[name]
        assert isinstance(workspace, _Tensor)
        zero = (Const(0), Const(0))
        view, view_type = self.partition(workspace, zero, source, span)
        self.emit(f"pto.tstore ins(%{source.ssa} : {source.type}) outs(%{view} : {view_type})")
        view, view_type = self.partition(workspace, zero, dst, span)
        self.emit(f"pto.tload ins(%{view} : {view_type}) outs(%{dst.ssa} : {dst.type})")

    def op_transpose_view(self, name, call, declared, span):
        source = self._operand(call.args[0], span, "tile.transpose_view source")
        if isinstance(source, _Transposed):
            return source.base
        if not isinstance(source, _Tile):
            raise EmitError("tile.transpose_view source is not a tile", span)
        return _Transposed(source)

    def op_matmul(self, name, call, declared, span):
        self.cube = True
        parts = ops.matmul_parts(call)
        lhs = self.tile(parts.lhs, span, f"`{call.op}` lhs")
        rhs = self.tile(parts.rhs, span, f"`{call.op}` rhs")
        # TARGET_FACTS.md, PTO codegen: dst is the result's buffer; the IR acc operand is not emitted.
        dst = self._result(name, declared, call, span)
        fresh = (f"pto.tmatmul ins(%{lhs.ssa}, %{rhs.ssa} : {lhs.type}, {rhs.type}) "
                 f"outs(%{dst.ssa} : {dst.type})")
        accumulate = (f"pto.tmatmul.acc ins(%{dst.ssa}, %{lhs.ssa}, %{rhs.ssa} : {dst.type}, "
                      f"{lhs.type}, {rhs.type}) outs(%{dst.ssa} : {dst.type})")
        if call.op == ops.MATMUL:
            self.emit(fresh)
        elif call.op == ops.MATMUL_BIAS:
            if parts.bias is None:
                raise EmitError("tile.matmul_bias has no bias operand", span)
            bias = self.tile(parts.bias, span, "tile.matmul_bias bias")
            self.emit(f"pto.tmatmul.bias ins(%{lhs.ssa}, %{rhs.ssa}, %{bias.ssa} : {lhs.type}, "
                      f"{rhs.type}, {bias.type}) outs(%{dst.ssa} : {dst.type})")
        elif parts.init_cond is None:
            self.emit(accumulate)
        else:
            literal = scalar.evaluate(parts.init_cond)
            if isinstance(literal, bool):
                self.emit(fresh if literal else accumulate)
            else:
                cond = self.scalar(parts.init_cond, span)[0]
                self.emit(f"scf.if %{cond} {{")
                self.emit("  " + fresh)
                self.emit("} else {")
                self.emit("  " + accumulate)
                self.emit("}")
        return dst

    def op_assemble(self, name, call, declared, span):
        dst = self.static_addressed(self.tile(call.args[0], span, "tile.assemble destination"),
                                    "tile.assemble destination", span)
        src = self.tile(call.args[1], span, "tile.assemble source")
        offsets = _items(call.args[2] if len(call.args) > 2 else call.kwarg("offsets"), span, "offsets")
        row, col = (ops.const_int(o) for o in offsets[-2:])
        if dst.space is MemSpace.Acc or src.rows > dst.rows or src.cols > dst.cols \
                or (row is not None and row + src.rows > dst.rows) or (col is not None and col + src.cols > dst.cols):
            raise EmitError("tile.assemble outside its destination or into an accumulator has no PTO form in the "
                            "subset", span)
        # PyPTO: a `pto.subview` of the destination, then `tmov` into it. In the simulator's row-major tiles
        # the window is a tile at its first element's address with the destination's row pitch (its columns)
        # and the source's valid shape, as a `tile.slice` view is (its address computed at a run-time offset).
        window = self.fresh(f"{name or 'assemble'}_window")
        if row is not None and col is not None:
            addr = dst.addr + (row * dst.cols + col) * dst.dtype.bytes
            address, dynamic = self.const(addr, "i64"), None
        else:
            r, c = (self.index(o, span) for o in offsets[-2:])
            scaled, element, byte, offset = (self.fresh(f"{window}_{part}") for part in ("row", "elem", "byte", "off"))
            self.emit(f"%{scaled} = arith.muli %{r}, %{self.const(dst.cols, 'index')} : index")
            self.emit(f"%{element} = arith.addi %{scaled}, %{c} : index")
            self.emit(f"%{byte} = arith.muli %{element}, %{self.const(dst.dtype.bytes, 'index')} : index")
            self.emit(f"%{offset} = arith.addi %{byte}, %{self.const(dst.addr, 'index')} : index")
            address = dynamic = self.fresh(f"{window}_addr")
            self.emit(f"%{address} = arith.index_cast %{offset} : index to i64")
            addr = dst.addr
        sub = _Tile(window, dst.space, dst.dtype, src.rows, dst.cols, src.valid, src.valid_static, addr, dynamic)
        self.emit(f"%{sub.ssa} = pto.alloc_tile addr = %{address} valid_row = "
                  f"%{sub.valid[0]} valid_col = %{sub.valid[1]} : {sub.type}")
        self.emit(f"pto.tmov ins(%{src.ssa} : {src.type}) outs(%{sub.ssa} : {sub.type})")
        if name is None:
            return None
        return self._result(name, declared, call, span)

    def op_slice(self, name, call, declared, span):
        # A view (`ops.is_view`, PyPTO's `pto.subview`): the slice moves no data and takes no buffer of its
        # own; the lowering keeps it on its source's window and PV004 reports a write to the source while
        # the slice is live.
        # A window of an accumulator is one too (PyPTO: a `pto.subview` of the one L0C buffer, read only by the
        # FIXPIPE drain or a move, PV006): in the simulator's row-major Acc tiles, the same alloc_tile in its bytes.
        offsets = _items(call.args[2] if len(call.args) > 2 else call.kwarg("offsets"), span, "offsets")
        source = self.tile(call.args[0], span, "tile.slice source")
        if source.space not in (MemSpace.Vec, MemSpace.Acc):
            source = self.vec_tile(call.args[0], span, "tile.slice source")  # the error naming the space
        if not isinstance(declared, TileType) or len(offsets) < 2:
            raise EmitError(f"tile.slice of a {source.space.value} tile needs a tile type and two offsets", span)
        source = self.static_addressed(source, "tile.slice source", span)
        row, col = (ops.const_int(o) for o in offsets[-2:])
        rows, cols = _tile_dims(declared.shape, name or "", span)
        if (row is not None and row + rows > source.rows) or (col is not None and col + cols > source.cols):
            raise EmitError("tile.slice window outside its source tile", span)
        # In the simulator's row-major tiles the window is a tile at its first element's address with the
        # source's row pitch (its columns) and the slice's valid shape; at a run-time offset that address
        # is computed (PyPTO: the subview's byte offset is an expression).
        valid = declared.valid_shape if declared.valid_shape is not None else (Const(rows), Const(cols))
        window = replace(declared, shape=(Const(rows), Const(source.cols)), valid_shape=valid)
        return self._view(source, window, offsets, name or "", span)

    def _view(self, source: _Tile, window: TileType, offsets: tuple[Expr, ...], name: str, span: Span) -> _Tile:
        """The `alloc_tile` of *window* (its row pitch *source*'s) inside *source*'s bytes at its last two
        *offsets*: at a constant address, or one computed with `arith` when an offset is known only at run time."""
        row, col = (ops.const_int(o) for o in offsets[-2:])
        if row is not None and col is not None:
            addr = source.addr + (row * source.cols + col) * window.dtype.bytes
            return self.alloc(name, window, span, addr=addr)
        r, c = (self.index(o, span) for o in offsets[-2:])
        element, byte, address = self.fresh("slice_elem"), self.fresh("slice_byte"), self.fresh("slice_addr")
        scaled = self.fresh("slice_row")
        self.emit(f"%{scaled} = arith.muli %{r}, %{self.const(source.cols, 'index')} : index")
        self.emit(f"%{element} = arith.addi %{scaled}, %{c} : index")
        self.emit(f"%{byte} = arith.muli %{element}, %{self.const(window.dtype.bytes, 'index')} : index")
        offset = self.fresh("slice_off")
        self.emit(f"%{offset} = arith.addi %{byte}, %{self.const(source.addr, 'index')} : index")
        self.emit(f"%{address} = arith.index_cast %{offset} : index to i64")
        return self.alloc(name, window, span, addr=source.addr, dynamic_addr=address)

    def op_gather_row(self, name, call, declared, span):
        # PyPTO's `tile.gather_row(dst, src, dst_offset, src_offset, shape[, valid_shape])` (its
        # MakeGatherRowCodegenPTO): a sub-view of dst at dst_offset, then `tload` of src's window at src_offset, of the
        # valid extent, into it; no tmov. The result is dst's buffer (DPS). The transposed form is not modelled.
        transpose = call.kwarg("transpose")
        if transpose is not None and not (isinstance(transpose, Const) and transpose.value is False):
            raise EmitError("tile.gather_row with transpose= has no PTO form in the subset", span)
        if len(call.args) < 5 or not isinstance(declared, TileType):
            raise EmitError("tile.gather_row needs dst, src, two offsets, a shape and a tile type", span)
        dst = self.static_addressed(self.tile(call.args[0], span, "tile.gather_row destination"),
                                    "tile.gather_row destination", span)
        if dst.space not in (MemSpace.Mat, MemSpace.Vec):
            raise EmitError(f"tile.gather_row into a {dst.space.value} tile; `tload` fills only Mat / Vec", span)
        src = self.tensor(call.args[1], span, "tile.gather_row source")
        dst_offsets = _items(call.args[2], span, "tile.gather_row destination offsets")
        src_offsets = _items(call.args[3], span, "tile.gather_row source offsets")
        shape = _items(call.args[4], span, "tile.gather_row shape")
        valid_arg = call.args[5] if len(call.args) > 5 else call.kwarg("valid_shape")
        valid = _items(valid_arg, span, "tile.gather_row valid_shape") if valid_arg is not None else shape
        rows, cols = (ops.const_int(d) for d in shape[-2:])
        if rows is None or cols is None or len(valid) < 2:
            raise EmitError("tile.gather_row of a shape that is not constant has no PTO form", span)
        window = replace(declared, shape=(Const(rows), Const(dst.cols)), valid_shape=tuple(valid[-2:]))
        row_view = self._view(dst, window, dst_offsets, f"{name or 'gather'}_row", span)
        view, view_type = self.partition(src, src_offsets, row_view, span)
        self.emit(f"pto.tload ins(%{view} : {view_type}) outs(%{row_view.ssa} : {row_view.type})")
        return self._result(name, declared, call, span)

    def static_addressed(self, tile: _Tile, what: str, span: Span) -> _Tile:
        """*tile*, whose address other tiles are placed relative to: refused when it is only known at run time."""
        if tile.dynamic_addr is not None:
            raise EmitError(f"{what} is a slice at a run-time offset: a window of it has no PTO form in the "
                            "subset", span)
        return tile

    def op_reshape(self, name, call, declared, span):
        source = self.static_addressed(self.tile(call.args[0], span, "tile.reshape source"), "tile.reshape source", span)
        if not isinstance(declared, TileType):
            raise EmitError("tile.reshape result has no tile type", span)
        dims = _tile_dims(declared.shape, name or "", span)
        if self.target.padded_rows(dims[0], source.dtype, source.space) != dims[0] or \
                source.rows * source.cols != dims[0] * dims[1]:
            raise EmitError("tile.reshape of a padded tile has no PTO form", span)
        # A view (`ops.is_view`, PyPTO `tile.reshape` / `pto.treshape`): the source's row-major bytes seen
        # in the new shape, an alloc_tile at the source's address; no instruction. The lowering keeps the
        # source's buffer live while the reshape is (one sharing group), and PV004 reports a write to it.
        if source.space is not MemSpace.Vec:
            raise EmitError(f"tile.reshape of a {source.space.value} tile has no PTO form in the subset", span)
        return self.alloc(name or "", declared, span, addr=source.addr)


    def op_set_validshape(self, name, call, declared, span):
        # PyPTO's `tile.set_validshape` moves no data: the result is a second alloc_tile at the
        # source's address with the new valid operands (an Acc narrowed before its drain stays put).
        source = self.static_addressed(self.tile(call.args[0], span, "tile.set_validshape source"),
                                       "tile.set_validshape source", span)
        if not isinstance(declared, TileType) or len(call.args) < 3:
            raise EmitError("tile.set_validshape needs a tile type and the valid rows and columns", span)
        return self.alloc(name or "", replace(declared, valid_shape=(call.args[1], call.args[2])), span,
                          addr=source.addr)

    def op_fillpad(self, name, call, declared, span):
        # PyPTO `tile.fillpad` -> `pto.tfillpad` (pto_ops_elementwise): the source's valid region copied
        # into a whole-valid destination whose type's pad code says what the rest of it holds.
        if not call.args:
            raise EmitError("tile.fillpad has no source", span)
        source = self.vec_tile(call.args[0], span, "tile.fillpad source")
        pad = _PAD_CODES.get(_pad_name(call.kwarg("pad_value")) or "")
        if pad is None:
            raise EmitError("tile.fillpad needs pad_value PadValue.zero, .max or .min", span)
        if name is None or not isinstance(declared, TileType):
            raise EmitError("tile.fillpad result has no tile type", span)
        dst = self.alloc(name, replace(declared, valid_shape=None), span, pad=pad)
        if (dst.rows, dst.cols) != (source.rows, source.cols):
            raise EmitError("tile.fillpad into a tile of another shape has no PTO form in the subset", span)
        self.emit(f"pto.tfillpad ins(%{source.ssa} : {source.type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_scalar_extremum(self, name, call, declared, span):
        if any(isinstance(self._maybe(a), (_Tile, _Tensor, _Transposed)) for a in call.args):
            raise EmitError(f"`{call.op}` of a tile or tensor has no instruction in the PTO subset", span)
        ssa, kind = self.scalar(call, span, name)
        return _Scalar(ssa, kind)

    def op_arange(self, name, call, declared, span):
        # PyPTO `arange(start, [1, N], dtype)` (its `ci`): `start + j` along one row, PTO TCI.
        extra = [k for k, _ in call.kwargs if k not in ("dtype", "target_memory")]
        start = call.args[0] if call.args else call.kwarg("start")
        if start is None or extra:
            raise EmitError(f"`{call.op}` with {', '.join(extra) or 'no start'} has no PTO form in the subset", span)
        dst = self._result(name, declared, call, span)
        if dst.space is not MemSpace.Vec or dst.dtype.is_float or dst.valid_static[0] != 1:
            raise EmitError(f"`{call.op}` into other than one row of an integer Vec tile has no PTO form", span)
        first = self.index(start, span)
        self.emit(f"pto.tci ins(%{first} : index) outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_transpose(self, name, call, declared, span):
        # A Vec tile's transpose (PyPTO `tile.transpose`, PTO TTRANS): the data moves into the result's
        # own tile. Only the two axes of a 2-D tile are swapped; the real instruction's scratch tile is
        # not modelled.
        source = self.vec_tile(call.args[0], span, "tile.transpose source")
        axes = [ops.const_int(a) for a in (*call.args[1:3], call.kwarg("axis1"), call.kwarg("axis2")) if a is not None]
        if len(axes) != 2 or {a % 2 if a is not None else None for a in axes} != {0, 1}:
            raise EmitError("tile.transpose of other than the two axes of a 2-D tile has no PTO form", span)
        dst = self._result(name, declared, call, span)
        self.emit(f"pto.ttrans ins(%{source.ssa} : {source.type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_concat(self, name, call, declared, span):
        # PyPTO's `tile.concat(a, b)` is `pto.tconcat ins(a, b) outs(dst)` (its pto_ops_elementwise.cpp): a's columns,
        # then b's, in one Vec tile of their dtype
        if len(call.args) != 2:
            raise EmitError("tile.concat of other than two tiles has no PTO form in the subset", span)
        first, second = (self.vec_tile(a, span, f"tile.concat {w} source") for a, w in zip(call.args, ("first", "second")))
        dst = self._result(name, declared, call, span)
        if not first.dtype is second.dtype is dst.dtype:
            raise EmitError("tile.concat of tiles of different dtypes has no PTO form", span)
        self.emit(f"pto.tconcat ins(%{first.ssa}, %{second.ssa} : {first.type}, {second.type}) "
                  f"outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_compare(self, name, call, declared, span):
        # PyPTO's `tile.cmps(x, s, cmp_type=k)` is `pto.tcmps ins(x, s {cmpMode = #pto<cmp MODE>}) outs(mask)`, its
        # `tile.cmp(x, y, ...)` `pto.tcmp` of two tiles (its pto_ops_elementwise.cpp, MakeModalCodegenPTO): the
        # UINT8 packed predicate mask `ops.packed_mask_type`; the subset has the f32 source
        mode = ops.const_int(call.kwarg("cmp_type") or Const(0))
        if mode is None or not 0 <= mode < len(ops.CMP_MODES) or len(call.args) != 2:
            raise EmitError(f"`{call.op}` takes two operands and a constant cmp_type in 0..5", span)
        a = self.vec_tile(call.args[0], span, f"`{call.op}` lhs")
        if a.dtype is not DType.FP32:
            raise EmitError(f"`{call.op}` of a {a.dtype.value} tile has no PTO form in the subset (f32 only)", span)
        if call.op == "tile.cmp":
            b = self.vec_tile(call.args[1], span, f"`{call.op}` rhs")
            operand, kind = b.ssa, b.type
        else:
            operand, kind = self._f32_operand(call.args[1], call, span), "f32"
        dst = self._result(name, declared, call, span)
        if dst.dtype is not DType.UINT8:
            raise EmitError(f"`{call.op}` into a {dst.dtype.value} tile: its mask is UINT8", span)
        mnemonic = "tcmp" if call.op == "tile.cmp" else "tcmps"
        self.emit(f"pto.{mnemonic} ins(%{a.ssa}, %{operand} {{cmpMode = #pto<cmp {ops.CMP_MODES[mode]}>}} : "
                  f"{a.type}, {kind}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def _f32_operand(self, rhs: Expr, call: Call, span: Span) -> str:
        """The scalar operand of a vector op on an f32 tile: a float constant, or an `f32` scalar."""
        bound = self._maybe(rhs)
        literal = scalar.evaluate(rhs) if bound is None else None
        if isinstance(literal, (int, float)) and not isinstance(literal, bool):
            return self.const(float(literal), "f32")
        if isinstance(bound, _Scalar) and bound.type == "f32":
            return bound.ssa
        raise EmitError(f"`{call.op}`: the scalar operand must be a float constant", span)

    def op_select(self, name, call, declared, span):
        # PyPTO's `tile.sel(mask, a, b, tmp)` is `pto.tsel ins(mask, a, b, tmp) outs(dst)` (its pto_ops_elementwise.cpp):
        # a's lane where the mask's bit is set, else b's; tmp the UINT8 [1, 32] scratch TSEL needs
        if len(call.args) != 4:
            raise EmitError("tile.sel takes a mask, two tiles and a scratch tile", span)
        mask, first, second, tmp = (self.vec_tile(a, span, f"tile.sel {w}") for a, w in
                                    zip(call.args, ("mask", "lhs", "rhs", "scratch")))
        dst = self._result(name, declared, call, span)
        self.emit(f"pto.tsel ins(%{mask.ssa}, %{first.ssa}, %{second.ssa}, %{tmp.ssa} : {mask.type}, {first.type}, "
                  f"{second.type}, {tmp.type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_sort32(self, name, call, declared, span):
        # PyPTO's `tile.sort32(src, idx)` is `pto.tsort32 ins(src, idx) outs(dst)` (its pto_ops_datamove.cpp): each
        # 32-column block of every row sorted by value, descending, each value followed by its `idx` entry's
        # u32 bits; the subset has the f32 form (dst of twice src's columns), not f16's packing
        if len(call.args) != 2:
            raise EmitError("tile.sort32 takes a value tile and an index tile", span)
        src, idx = (self.vec_tile(a, span, f"tile.sort32 {w}") for a, w in zip(call.args, ("values", "indices")))
        dst = self._result(name, declared, call, span)
        if src.dtype is not DType.FP32 or dst.dtype is not DType.FP32:
            raise EmitError(f"tile.sort32 of {src.dtype.value} values has no PTO form in the subset (f32 only)", span)
        self.emit(f"pto.tsort32 ins(%{src.ssa}, %{idx.ssa} : {src.type}, {idx.type}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def op_mrgsort(self, name, call, declared, span):
        # PyPTO's format 1, `tile.mrgsort(src, block_len=n)` (its tile.mrgsort_format1), is `pto.tmrgsort ins(src,
        # n : ..., i32) outs(dst)`: every four consecutive sorted runs of n lanes of (value, index) pairs merged
        # into one. Format 2 is the other form.
        block = call.kwarg("block_len")
        if block is None:
            return self._merge_lists(name, call, declared, span)
        length = ops.const_int(block)
        if len(call.args) != 1:
            raise EmitError("tile.mrgsort with a block_len merges one tile", span)
        if length is None:
            raise EmitError("tile.mrgsort with a block_len that is not a constant has no PTO form in the subset", span)
        src = self.vec_tile(call.args[0], span, "tile.mrgsort source")
        dst = self._result(name, declared, call, span)
        if src.dtype is not DType.FP32 or dst.dtype is not DType.FP32:
            raise EmitError(f"tile.mrgsort of {src.dtype.value} pairs has no PTO form in the subset (f32 only)", span)
        self.emit(f"pto.tmrgsort ins(%{src.ssa}, %{self.const(length, 'i32')} : {src.type}, i32) "
                  f"outs(%{dst.ssa} : {dst.type})")
        return dst

    def _merge_lists(self, name, call, declared, span):
        # PyPTO's format 2, `tile.mrgsort(src0, src1[, src2[, src3]], tmp)` (its tile.mrgsort_format2, the workspace
        # last or `tmp=`), is `pto.tmrgsort ins(srcs..., tmp {exhausted = false} : ...) outs(dst, executed : ...,
        # vector<4xi16>)` with `executed` a zero `vector<4xi16>` constant made for it (its pto_ops_datamove.cpp)
        args = (*call.args, call.kwarg("tmp")) if call.kwarg("tmp") is not None else call.args
        if not 3 <= len(args) <= 5:
            raise EmitError(f"tile.mrgsort of {len(args) - 1} sorted tiles and a workspace has no PTO form (2 to 4)",
                            span)
        exhausted = call.kwarg("exhausted")
        if exhausted is not None and not (isinstance(exhausted, Const) and exhausted.value is False):
            raise EmitError("tile.mrgsort with exhausted=True (stop when a list runs out) has no PTO form in the "
                            "subset", span)
        tiles = [self.vec_tile(a, span, "tile.mrgsort list" if i < len(args) - 1 else "tile.mrgsort workspace")
                 for i, a in enumerate(args)]
        dst = self._result(name, declared, call, span)
        if any(t.dtype is not DType.FP32 for t in (*tiles, dst)):
            raise EmitError("tile.mrgsort of other than f32 pairs has no PTO form in the subset (f32 only)", span)
        executed = self.fresh("executed_vec")
        self.emit(f"%{executed} = arith.constant dense<0> : vector<4xi16>")
        names = ", ".join(f"%{t.ssa}" for t in tiles)
        types = ", ".join(t.type for t in tiles)
        self.emit(f"pto.tmrgsort ins({names} {{exhausted = false}} : {types}) "
                  f"outs(%{dst.ssa}, %{executed} : {dst.type}, vector<4xi16>)")
        return dst

    def _gather_mask(self, name, call, declared, span):
        # PyPTO's `tile.gather(src, mask_pattern=P[, output_dtype=])` (its gather_mask) is a row-axis `pto.tgather`
        # with the pattern as an attribute: P0101 keeps each row's even lanes, P1010 its odd ones, their bits
        # reinterpreted in the result's dtype of the same width (sort32's index lanes as integers)
        pattern = call.kwarg("mask_pattern")
        mask = pattern.path.rsplit(".", 1)[-1] if isinstance(pattern, Sym) else _MASKS.get(ops.const_int(pattern) or 0)
        if mask not in _MASKS.values() or len(call.args) != 1:
            raise EmitError(f"tile.gather's mask form with pattern {mask or '?'} has no PTO form in the subset "
                            "(P0101 and P1010 only)", span)
        src = self.vec_tile(call.args[0], span, "tile.gather source")
        dst = self._result(name, declared, call, span)
        self.emit(f"pto.tgather ins(%{src.ssa} : {src.type}) outs(%{dst.ssa} : {dst.type}) "
                  f"{{maskPattern = #pto.mask_pattern<{mask}>}}")
        return dst

    def op_tensor_cast(self, name, call, declared, span):
        # What stays a `tensor.cast` after the lowering is a scalar's (`pl.cast(n, pl.INDEX)`): a tile's
        # is `tile.cast` (tcvt). A GM tensor's would be a conversion copy the subset has no form for.
        if call.args and isinstance(self._maybe(call.args[0]), (_Tile, _Tensor, _Transposed)):
            raise EmitError("tensor.cast of a GM tensor has no instruction in the PTO subset", span)
        ssa, kind = self.scalar(call, span, name)
        return _Scalar(ssa, kind)

    def op_read(self, name, call, declared, span):
        ssa, kind = self.scalar(call, span)
        return _Scalar(ssa, kind)

    def op_tile_read(self, name, call, declared, span):
        # PyPTO's `tile.read(t, [i, j])` is `pto.tgetval` at the row-major flat offset i * cols + j of the
        # tile's shape (`[i]` of a rank-1 tile: i); the subset reads float Vec tiles into an `f32` scalar.
        indices = call.args[1].items if len(call.args) == 2 and isinstance(call.args[1], ListExpr) else None
        source = self.vec_tile(call.args[0], span, "tile.read source") if call.args else None
        if source is None or indices is None or len(indices) not in (1, 2) or not source.dtype.is_float:
            raise EmitError("tile.read of other than a float Vec tile at [row, col] or [i] has no PTO form in the "
                            "subset", span)
        if len(indices) == 1:  # a rank-1 tile (one row): the index is the offset
            offset = self.index(indices[0], span)
        else:
            row, col = (self.index(i, span) for i in indices)
            scaled = self.fresh(None)
            self.emit(f"%{scaled} = arith.muli %{row}, %{self.const(source.cols, 'index')} : index")
            offset = self.fresh(None)
            self.emit(f"%{offset} = arith.addi %{scaled}, %{col} : index")
        result = self.fresh(name)
        self.emit(f"%{result} = pto.tgetval ins(%{source.ssa}, %{offset} : {source.type}, index) outs : f32")
        return _Scalar(result, "f32")

    def op_tile_write(self, name, call, declared, span):
        # PyPTO's `tile.write(t, [i, j], v)` is `pto.tsetval ins(off, v : index, T) outs(t)` at the row-major flat
        # offset i * cols + j (its MakeTileWriteCodegenPTO); the subset writes an f32 into a float Vec tile, an
        # integer (an `index` cast to i32 / i64) into an INT32 / INT64 one
        indices = call.args[1].items if len(call.args) == 3 and isinstance(call.args[1], ListExpr) else None
        tile = self.vec_tile(call.args[0], span, "tile.write destination") if call.args else None
        if tile is None or indices is None or len(indices) not in (1, 2):
            raise EmitError("tile.write of other than a Vec tile at [row, col] or [i] has no PTO form in the subset",
                            span)
        value, kind = self.scalar(call.args[2], span)
        element = _PTO_DTYPE[tile.dtype]
        if (kind, tile.dtype.is_float) == ("index", False) and element in ("i32", "i64"):
            cast = self.fresh(None)
            self.emit(f"%{cast} = arith.index_cast %{value} : index to {element}")
            value, kind = cast, element
        elif (kind, tile.dtype.is_float) != ("f32", True):
            raise EmitError(f"tile.write of a {kind} value into a {element} tile has no PTO form in the subset", span)
        if len(indices) == 1:
            offset = self.index(indices[0], span)
        else:
            row, col = (self.index(i, span) for i in indices)
            scaled = self.fresh(None)
            self.emit(f"%{scaled} = arith.muli %{row}, %{self.const(tile.cols, 'index')} : index")
            offset = self.fresh(None)
            self.emit(f"%{offset} = arith.addi %{scaled}, %{col} : index")
        self.emit(f"pto.tsetval ins(%{offset}, %{value} : index, {kind}) outs(%{tile.ssa} : {tile.type})")
        return tile

    def op_gather(self, name, call, declared, span):
        # `pto.tgather ins(src, idx, tmp) outs(dst)`: dst[i, j] = src_flat[idx[i, j]], tmp an INT32 scratch of
        # idx's shape (PyPTO's tile.gather, arity 3). `pl.gather(x, dim=-1, index=i)` keeps per-row indices:
        # PyPTO's op_conversion_registry.cpp expands it on a2a3 into single-row gathers (a5 flattens the
        # indices instead); here each row is one tgather on one-row views of the three tiles.
        if call.kwarg("mask_pattern") is not None:
            return self._gather_mask(name, call, declared, span)
        index = call.kwarg("index")
        if index is None:
            if len(call.args) != 3:
                raise EmitError("tile.gather without an index tile has no PTO form in the subset", span)
            source, indices, scratch = (self.vec_tile(a, span, f"tile.gather {w}")
                                        for a, w in zip(call.args, ("source", "indices", "scratch")))
            dst = self._result(name, declared, call, span)
            self._tgather(source, indices, scratch, dst)
            return dst
        dim = ops.const_int(call.kwarg("dim") if call.kwarg("dim") is not None else
                            (call.args[1] if len(call.args) > 1 else None))
        source = self.vec_tile(call.args[0], span, "tile.gather source")
        in_gm = self._maybe(index)
        free = self._free_address(MemSpace.Vec)
        one = self.const(1, "index")
        if isinstance(in_gm, _Tensor):
            in_gm = self._read_slice(in_gm, span)
            # indices left in GM (PyPTO's conversion loads each row, `emit_load_or_slice`): a `tload` of each
            # row into a one-row tile placed after the scratch
            if len(in_gm.shape) != 2 or None in in_gm.shape or in_gm.dtype is not DType.INT32 or not in_gm.view:
                raise EmitError("tile.gather of indices other than a 2-D INT32 GM tensor of static shape has no "
                                "PTO form in the subset", span)
            count, width = in_gm.shape
            assert count is not None and width is not None
            width_ssa = self.const(width, "index")
            indices = _Tile(self.fresh(f"{in_gm.param}_rows"), MemSpace.Vec, DType.INT32, count, width,
                            (self.const(count, "index"), width_ssa), (count, width), free + -(-width * 4 // 512) * 512)
        else:
            in_gm = None
            indices = self.vec_tile(index, span, "tile.gather index")
        rows = indices.valid_static[0]
        # a source whose valid rows are fewer (a padded tile) is read into its padding, as the per-row gathers do
        if dim not in (-1, 1) or rows is None or source.rows < rows or indices.dtype is not DType.INT32:
            raise EmitError("tile.gather of other than INT32 indices along the last axis of a 2-D tile, one index "
                            "row per source row (a static count of them), has no PTO form in the subset", span)
        dst = self._result(name, declared, call, span)
        if rows != 1:
            for t, what in ((source, "source"), (indices, "indices"), (dst, "result")):
                self.static_addressed(t, f"tile.gather {what} of {rows} rows", span)
        # a one-row tile at a run-time address (a row sliced at a run-time offset) is its own row view
        row_views = [[t if t.dynamic_addr is not None else
                      _Tile(self.fresh(f"{t.ssa}_row"), t.space, t.dtype, 1, t.cols, (one, t.valid[1]),
                            (1, t.valid_static[1]), t.addr + (row * t.cols * t.dtype.bytes if t is not indices
                                                              or in_gm is None else 0))
                      for t in (source, indices, dst)] for row in range(rows)]
        # the whole-tile op's buffers were planned for one instruction: a row written in place of its own
        # source or index row is read before it is written, one that a later row still reads is not; the
        # rows go first to last, or last to first (a result wider than its source, written over it)
        for order in (row_views, row_views[::-1]):
            if not any(_overlap(order[r][2], later[k]) for r in range(rows) for later in order[r + 1:] for k in (0, 1)):
                row_views = order
                break
        else:
            raise EmitError("tile.gather row by row into a buffer a later row's source or indices occupy, in either "
                            "order, has no PTO form in the subset", span)
        scratch = _Tile(self.fresh(f"{name}_tmp"), MemSpace.Vec, DType.INT32, 1, indices.cols,
                        (one, indices.valid[1]), (1, indices.valid_static[1]), free)
        self._alloc_view(scratch)
        for views in row_views:
            row = (views[0].addr - source.addr) // (source.cols * source.dtype.bytes)
            for view in views:
                if view.dynamic_addr is None:
                    self._alloc_view(view)
            if in_gm is not None:
                pview, view_type = self.partition(in_gm, (Const(row), Const(0)), views[1], span)
                self.emit(f"pto.tload ins(%{pview} : {view_type}) outs(%{views[1].ssa} : {views[1].type})")
            self._tgather(views[0], views[1], scratch, views[2])
        return dst

    def _alloc_view(self, tile: _Tile) -> None:
        self.emit(f"%{tile.ssa} = pto.alloc_tile addr = %{self.const(tile.addr, 'i64')} valid_row = "
                  f"%{tile.valid[0]} valid_col = %{tile.valid[1]} : {tile.type}")

    def _tgather(self, source: _Tile, indices: _Tile, scratch: _Tile, dst: _Tile) -> None:
        self.emit(f"pto.tgather ins(%{source.ssa}, %{indices.ssa}, %{scratch.ssa} : {source.type}, {indices.type}, "
                  f"{scratch.type}) outs(%{dst.ssa} : {dst.type})")

    def _row_major_offset(self, target: _Tensor, indices: tuple[Expr, ...], span: Span) -> str:
        """The row-major flat offset of *indices* over *target*'s static shape (PyPTO's GetFlatOffsetSSA)."""
        offset = self.index(indices[0], span)
        extents = [d for d in target.shape if d is not None]
        for extent, index in zip(extents[1:], indices[1:]):
            scaled = self.fresh(None)
            self.emit(f"%{scaled} = arith.muli %{offset}, %{self.const(extent, 'index')} : index")
            offset = self.fresh(None)
            self.emit(f"%{offset} = arith.addi %{scaled}, %{self.index(index, span)} : index")
        return offset

    def _load_scalar(self, target: _Tensor, call: Call, span: Span, name: str | None) -> tuple[str, str]:
        # PyPTO's `tensor.read(t, [i, j])` is `pto.load_scalar %base[%off] : !pto.ptr<T> -> T` on the tensor's base
        # pointer (its MakeTensorReadCodegenPTO); emitted for a GM tensor the kernel makes (a parameter's read is an
        # argument holding the element, docs/pto-subset.md), an integer element cast to `index`
        indices = call.args[1].items if len(call.args) == 2 and isinstance(call.args[1], ListExpr) else None
        if indices is None or len(indices) != len(target.shape) or None in target.shape:
            raise EmitError(f"tensor.read of `{target.param}` at other than one index per static axis has no PTO "
                            "form in the subset", span)
        if target.ptr or target.strides is not None:
            raise EmitError(f"tensor.read of a GM slice of `{target.param}` has no PTO form in the subset (the "
                            "offset is row-major from the base pointer)", span)
        element = _pto_dtype(target.dtype, span)
        if element not in ("f32", "i32", "i64"):
            raise EmitError(f"tensor.read of a {element} tensor has no PTO form in the subset", span)
        offset = self._row_major_offset(target, indices, span)
        loaded = self.fresh(name if element == "f32" else None)
        self.emit(f"%{loaded} = pto.load_scalar %{target.arg}[%{offset}] : !pto.ptr<{element}> -> {element}")
        if element == "f32":
            return loaded, "f32"
        result = self.fresh(name)
        self.emit(f"%{result} = arith.index_cast %{loaded} : {element} to index")
        return result, "index"

    def op_tensor_write(self, name, call, declared, span):
        # PyPTO's `tensor.write(t, [i, j], v)` is `pto.store_scalar %v, %base[%off] : !pto.ptr<T>, T` on the
        # tensor's base pointer, `off` the row-major flat offset of the indices over the tensor's shape
        # (its MakeTensorWriteCodegenPTO); the subset's scalars are `f32` and `index` (cast to i32 / i64).
        target = self._maybe(call.args[0]) if call.args else None
        indices = call.args[1].items if len(call.args) == 3 and isinstance(call.args[1], ListExpr) else None
        if not isinstance(target, _Tensor) or not target.arg or indices is None or len(indices) != len(target.shape):
            raise EmitError("tensor.write of other than a GM tensor at one index per axis has no PTO form in "
                            "the subset", span)
        if None in target.shape:
            raise EmitError(f"tensor.write into `{target.param}` of a run-time extent has no PTO form in the "
                            "subset", span)
        self._written(target, span)
        element = _pto_dtype(target.dtype, span)
        value, kind = self.scalar(call.args[2], span)
        if (kind, element) not in (("f32", "f32"), ("index", "i32"), ("index", "i64")):
            raise EmitError(f"tensor.write of a {kind} value into a {element} tensor has no PTO form in the "
                            "subset", span)
        if kind == "index":
            cast = self.fresh(None)
            self.emit(f"%{cast} = arith.index_cast %{value} : index to {element}")
            value = cast
        offset = self._row_major_offset(target, indices, span)  # every extent static, checked above
        self.emit(f"pto.store_scalar %{value}, %{target.arg}[%{offset}] : !pto.ptr<{element}>, {element}")
        self.written.add(target.param)
        return target

    def op_cast(self, name, call, declared, span):
        source = self.vec_tile(call.args[0], span, "tile.cast source")
        mode = call.kwarg("mode")
        mode_name = mode.value if isinstance(mode, Const) else "rint"
        if mode_name not in _RMODES:
            raise EmitError(f"tile.cast mode {mode_name!r} has no PTO form in the subset", span)
        dst = self._result(name, declared, call, span)
        # `rint` / `none` are tcvt's default (round to nearest, ties to even): no attribute
        rmode = f" {{rmode = #pto<round_mode {_RMODES[mode_name]}>}}" if _RMODES[mode_name] else ""
        self.emit(f"pto.tcvt ins(%{source.ssa} : {source.type}) outs(%{dst.ssa} : {dst.type}){rmode}")
        return dst

    def op_full(self, name, call, declared, span):
        fill = call.kwarg("value")
        if fill is None and len(call.args) > 1:
            fill = call.args[1]
        if fill is None:
            raise EmitError(f"`{call.op}` has no fill value", span)
        dst = self._result(name, declared, call, span)
        if dst.space is not MemSpace.Vec:
            raise EmitError(f"`{call.op}` into a {dst.space.value} tile; texpands fills only Vec tiles", span)
        operand, kind = self._fill_scalar(fill, dst.dtype, call, span)
        self.emit(f"pto.texpands ins(%{operand} : {kind}) outs(%{dst.ssa} : {dst.type})")
        return dst

    def _fill_scalar(self, fill: Expr, dtype: DType, call: Call, span: Span) -> tuple[str, str]:
        """The `texpands` scalar filling a tile of *dtype* with *fill*: its SSA name and type."""
        literal = scalar.evaluate(fill)
        if isinstance(literal, bool) or not isinstance(literal, (int, float)):
            bound = self._maybe(fill)
            if not isinstance(bound, _Scalar) or bound.type != "f32" or not dtype.is_float:
                raise EmitError(f"`{call.op}`: the fill value must be a number", span)
            return bound.ssa, "f32"
        if dtype.is_float:
            return self.const(float(literal), "f32"), "f32"
        if isinstance(literal, float) and not math.isfinite(literal) or literal != int(literal):
            raise EmitError(f"`{call.op}`: fill value {literal} for an integer tile", span)
        return self.const(int(literal), "i32"), "i32"

    def op_tensor_assemble(self, name, call, declared, span):
        # A GM tensor written into a window of another GM tensor (what the lowering leaves of a `pl.assemble` of two
        # GM tensors): the copy goes through a Vec tile placed after every Vec window, a band of rows at a time
        # (`tload` from the source, `tstore` into the window; `{atomic = #pto.atomic<add>}` for an atomic add).
        if len(call.args) < 3:
            raise EmitError("tensor.assemble without a destination, a source and offsets", span)
        dst = self.tensor(call.args[0], span, "tensor.assemble destination")
        src = self.tensor(call.args[1], span, "tensor.assemble source")
        offsets = _items(call.args[2], span, "tensor.assemble offsets")
        shape = tuple(d for d in src.shape if d is not None)
        if len(shape) != len(src.shape) or len(src.shape) != 2 or len(offsets) != len(dst.shape) \
                or src.dtype is not dst.dtype:
            raise EmitError(f"tensor.assemble of `{src.param}` {list(src.shape)} into `{dst.param}` other than a 2-D GM "
                            "tensor of a static shape and the destination's dtype has no PTO form in the subset", span)
        if src.arg == dst.arg:
            # band by band, a window of the storage it reads could be written before it is read
            raise EmitError(f"tensor.assemble of a view of `{dst.param}` into `{dst.param}` has no PTO form in the subset",
                            span)
        rows, cols = shape
        free = self._free_address(MemSpace.Vec)
        room = (self.target.capacity[MemSpace.Vec] - free) // max(cols * src.dtype.bytes, 1)
        band = max((r for r in range(1, min(rows, room, _FILL_BAND_ROWS) + 1) if rows % r == 0), default=0)
        if not band:
            raise EmitError(f"tensor.assemble of `{src.param}` {list(src.shape)} has no room for a band of its rows in "
                            "Vec", span)
        self._written(dst, span)
        extents = (self.const(band, "index"), self.const(cols, "index"))
        stage = _Tile(self.fresh(f"{src.param}_band"), MemSpace.Vec, src.dtype, band, cols, extents, (band, cols), free)
        self._alloc_view(stage)
        row = self.fresh(f"{src.param}_row")
        self.emit(f"scf.for %{row} = %{self.const(0, 'index')} to %{self.const(rows, 'index')} step %{extents[0]} {{")
        self.depth += 1
        zero = self.const(0, "index")
        view_type = f"!pto.partition_tensor_view<{band}x{cols}x{_PTO_DTYPE[src.dtype]}>"
        window = self.fresh(f"{src.param}_pview")
        self.emit(f"%{window} = pto.partition_view %{src.view}, offsets = [%{row}, %{zero}], sizes = [%{extents[0]}, "
                  f"%{extents[1]}] : {src.view_type} -> {view_type}")
        self.emit(f"pto.tload ins(%{window} : {view_type}) outs(%{stage.ssa} : {stage.type})")
        starts = [self.index(o, span) for o in offsets]
        target = self.fresh()
        self.emit(f"%{target} = arith.addi %{starts[-2]}, %{row} : index")
        starts[-2] = target
        dst_type = f"!pto.partition_tensor_view<{'x'.join(['1'] * (len(starts) - 2))}{'x' if len(starts) > 2 else ''}" \
                   f"{band}x{cols}x{_PTO_DTYPE[dst.dtype]}>"
        sizes = [self.const(1, "index")] * (len(starts) - 2) + list(extents)
        into = self.fresh(f"{dst.param}_pview")
        self.emit(f"%{into} = pto.partition_view %{dst.view}, offsets = [{', '.join('%' + o for o in starts)}], "
                  f"sizes = [{', '.join('%' + z for z in sizes)}] : {dst.view_type} -> {dst_type}")
        atomic = " {atomic = #pto.atomic<add>}" if _is_atomic(call.kwarg("atomic")) else ""
        self.emit(f"pto.tstore ins(%{stage.ssa} : {stage.type}) outs(%{into} : {dst_type}){atomic}")
        self.depth -= 1
        self.emit("}")
        return dst

    def op_tensor_full(self, name, call, declared, span):
        # A `pl.full` the lowering keeps in GM (a tensor it stores windows into): a workspace like a
        # `tensor.create`'s, filled where the op stands by a Vec tile filled with the value (texpands, placed
        # after every Vec window) stored over it a band of rows at a time; PyPTO makes the op a `tile.full`.
        fill = call.kwarg("value") if call.kwarg("value") is not None else (call.args[1] if len(call.args) > 1 else None)
        if fill is None:
            raise EmitError(f"`{call.op}` has no fill value", span)
        target = self.op_tensor_create(name, call, declared, span)
        shape = tuple(d for d in target.shape if d is not None)
        rows, cols = (math.prod(shape[:-1]), shape[-1]) if len(shape) == len(target.shape) and shape else (0, 0)
        free = self._free_address(MemSpace.Vec)
        room = (self.target.capacity[MemSpace.Vec] - free) // max(cols * target.dtype.bytes, 1)
        band = max((r for r in range(1, min(rows, room, _FILL_BAND_ROWS) + 1) if rows % r == 0), default=0)
        if not band:
            raise EmitError(f"`{call.op}` of {list(target.shape)} has no room for a band of its rows in Vec", span)
        grid = target
        if len(shape) != 2:  # the fill of a row-major tensor is the fill of its [rows, cols] view
            grid = _Tensor(self.fresh(f"{name}_rows"), target.param, (rows, cols), target.dtype, target.arg)
            self.emit(f"%{grid.view} = pto.make_tensor_view %{target.arg}, shape = [%{self.const(rows, 'index')}, "
                      f"%{self.const(cols, 'index')}], strides = [%{self.const(cols, 'index')}, "
                      f"%{self.const(1, 'index')}] {{layout = #pto.layout<nd>}} : {grid.view_type}")
        one_band = (self.const(band, "index"), self.const(cols, "index"))
        stage = _Tile(self.fresh(f"{name}_fill"), MemSpace.Vec, target.dtype, band, cols, one_band, (band, cols), free)
        self._alloc_view(stage)
        operand, kind = self._fill_scalar(fill, target.dtype, call, span)
        self.emit(f"pto.texpands ins(%{operand} : {kind}) outs(%{stage.ssa} : {stage.type})")
        row, view = self.fresh(f"{name}_row"), self.fresh(f"{name}_pview")
        view_type = f"!pto.partition_tensor_view<{band}x{cols}x{_PTO_DTYPE[target.dtype]}>"
        self.emit(f"scf.for %{row} = %{self.const(0, 'index')} to %{self.const(rows, 'index')} step %{one_band[0]} {{")
        self.emit(f"  %{view} = pto.partition_view %{grid.view}, offsets = [%{row}, %{self.const(0, 'index')}], "
                  f"sizes = [%{one_band[0]}, %{one_band[1]}] : {grid.view_type} -> {view_type}")
        self.emit(f"  pto.tstore ins(%{stage.ssa} : {stage.type}) outs(%{view} : {view_type})")
        self.emit("}")
        return self._written(target, span)

    def vector(self, name, call, declared, span, short):
        a = self.vec_tile(call.args[0], span, f"`{call.op}` lhs")
        if short in _VECTOR_REDUCE:
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.{_VECTOR_REDUCE[short]} ins(%{a.ssa} : {a.type}) outs(%{dst.ssa} : {dst.type})")
            return dst
        if short in _VECTOR_BROADCAST:
            if len(call.args) < 2:
                raise EmitError(f"`{call.op}` has no operand to broadcast", span)
            v = self.vec_tile(call.args[1], span, f"`{call.op}` broadcast operand")
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.{_VECTOR_BROADCAST[short]} ins(%{v.ssa} : {v.type}) outs(%{dst.ssa} : {dst.type})")
            return dst
        if short in _VECTOR_EXPAND:
            if len(call.args) < 2:
                raise EmitError(f"`{call.op}` has no broadcast operand", span)
            v = self.vec_tile(call.args[1], span, f"`{call.op}` broadcast operand")
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.{_VECTOR_EXPAND[short]} ins(%{a.ssa}, %{v.ssa} : {a.type}, {v.type}) "
                      f"outs(%{dst.ssa} : {dst.type})")
            return dst
        if short == "neg":
            minus_one = self.const(-1.0, "f32")
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.tmuls ins(%{a.ssa}, %{minus_one} : {a.type}, f32) outs(%{dst.ssa} : {dst.type})")
            return dst
        if short in _VECTOR_UNARY:
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.{_VECTOR_UNARY[short]} ins(%{a.ssa} : {a.type}) outs(%{dst.ssa} : {dst.type})")
            return dst
        if len(call.args) < 2:
            raise EmitError(f"`{call.op}` has no right operand", span)
        rhs = call.args[1]
        bound = self._maybe(rhs)
        if isinstance(bound, _Tile):
            bound = self.vec_tile(rhs, span, f"`{call.op}` rhs")
        if isinstance(bound, _Tile) and short in _VECTOR_BINARY:
            dst = self._result(name, declared, call, span)
            self.emit(f"pto.{_VECTOR_BINARY[short]} ins(%{a.ssa}, %{bound.ssa} : {a.type}, {bound.type}) "
                      f"outs(%{dst.ssa} : {dst.type})")
            return dst
        if short in ("maximum", "max") and isinstance(rhs, Const) and rhs.value == 0 and a.dtype.is_float:
            dst = self._result(name, declared, call, span)  # max(x, 0) is relu
            self.emit(f"pto.trelu ins(%{a.ssa} : {a.type}) outs(%{dst.ssa} : {dst.type})")
            return dst
        if short not in _VECTOR_SCALAR:
            raise EmitError(f"`{call.op}` with a scalar operand has no instruction in the PTO subset", span)
        mnemonic = _VECTOR_SCALAR[short]
        literal = scalar.evaluate(rhs) if bound is None else None
        if isinstance(literal, (int, float)) and not isinstance(literal, bool):
            value = float(literal)
            operand = self.const(-value if short == "sub" else value, "f32")
        elif isinstance(bound, _Scalar) and bound.type == "f32":
            operand = bound.ssa
            mnemonic = "tsubs" if short == "sub" else mnemonic
        else:
            raise EmitError(f"`{call.op}`: the scalar operand must be a float constant", span)
        dst = self._result(name, declared, call, span)
        self.emit(f"pto.{mnemonic} ins(%{a.ssa}, %{operand} : {a.type}, f32) "
                  f"outs(%{dst.ssa} : {dst.type})")
        return dst

    # scalars ----------------------------------------------------------------------------
    def index(self, expr: Expr, span: Span) -> str:
        ssa, kind = self.scalar(expr, span)
        if kind != "index":
            raise EmitError(f"expected an index value, got {kind}", span)
        return ssa

    def scalar(self, expr: Expr, span: Span, name: str | None = None) -> tuple[str, str]:
        """Emit *expr* as scalar arithmetic; its SSA name and type (`index` / `i1` / `f32`)."""
        if isinstance(expr, Const):
            if isinstance(expr.value, bool):
                return self.const(expr.value, "i1"), "i1"
            if isinstance(expr.value, int):
                return self.const(expr.value, "index"), "index"
            if isinstance(expr.value, float):
                return self.const(expr.value, "f32"), "f32"
            raise EmitError(f"constant {expr.value!r} is not a scalar", span)
        v = var_like(expr)
        if v is not None:
            bound = self._lookup(v.name, span)
            if not isinstance(bound, _Scalar):
                raise EmitError(f"`{v.name}` is not a scalar", span)
            return bound.ssa, bound.type
        if isinstance(expr, BinOp):
            mnemonic = _ARITH.get(expr.op)
            if mnemonic is None:
                raise EmitError(f"scalar operator `{expr.op}` has no arith form in the PTO subset", span)
            lhs = self.index(expr.lhs, span)
            rhs = self.index(expr.rhs, span)
            result = self.fresh(name)
            self.emit(f"%{result} = arith.{mnemonic} %{lhs}, %{rhs} : index")
            return result, "index"
        if isinstance(expr, Compare):
            return self._compare(expr, span, name)
        if isinstance(expr, BoolOp):
            current = self._bool(expr.operands[0], span)
            for operand_expr in expr.operands[1:]:
                other = self._bool(operand_expr, span)
                result = self.fresh(name if operand_expr is expr.operands[-1] else None)
                self.emit(f"%{result} = arith.{'andi' if expr.op == 'and' else 'ori'} %{current}, %{other} : i1")
                current = result
            return current, "i1"
        if isinstance(expr, UnaryOp):
            if expr.op == "not":
                operand = self._bool(expr.operand, span)
                result = self.fresh(name)
                self.emit(f"%{result} = arith.xori %{operand}, %{self.const(True, 'i1')} : i1")
                return result, "i1"
            operand = self.index(expr.operand, span)
            result = self.fresh(name)
            self.emit(f"%{result} = arith.subi %{self.const(0, 'index')}, %{operand} : index")
            return result, "index"
        if isinstance(expr, Call) and expr.op in ops.BLOCK_IDX:
            return self.block_idx(span), "index"
        if isinstance(expr, Call) and expr.op == _UNEVALUATED:
            raise EmitError(_unevaluated(expr), span)
        if isinstance(expr, Call) and expr.op in _DIMS:
            return self.const(self._dim(expr, span), "index"), "index"
        if isinstance(expr, Call) and expr.op == ops.T_READ:
            tensor = var_like(expr.args[0]) if expr.args else None
            bound_tensor = self.bind.get(tensor.name) if tensor is not None else None
            if not isinstance(bound_tensor, _Tensor):
                raise EmitError("tensor.read of something other than a tensor parameter", span)
            if bound_tensor.arg and all(p.name != bound_tensor.param for p in self.fn.params):
                return self._load_scalar(bound_tensor, expr, span, name)
            param = bound_tensor.param
            # a float tensor's element is an `f32` scalar (exact for FP32 / BF16 / FP16 values)
            kind = "f32" if bound_tensor.dtype.is_float else "index"
            if param not in self.reads:
                arg = f"arg{len(self.args)}"
                self.used.add(arg)
                self.args.append(ArgBinding(arg, "read", param, kind))
                self.reads[param] = arg
            return self.reads[param], kind
        if isinstance(expr, Call) and expr.op == ops.T_CAST:
            return self._scalar_cast(expr, span, name)
        if isinstance(expr, Call) and self._array_read(expr):
            return self._array_get(expr, span, name), "index"
        if isinstance(expr, Call) and expr.op in _SCALAR_EXTREMA and len(expr.args) == 2 and not expr.kwargs:
            # `pl.min(a, b)` of two scalars (an index clamp) is the scalar `min` (`minsi` / `maxsi`)
            return self.scalar(BinOp(_SCALAR_EXTREMA[expr.op], expr.args[0], expr.args[1]), span, name)
        raise EmitError(f"expression {type(expr).__name__} has no scalar PTO form", span)

    def _dim(self, call: Call, span: Span) -> int:
        """`pl.tensor.dim(t, axis)` of a tensor parameter: its constant extent."""
        tensor = var_like(call.args[0]) if call.args else None
        bound = self.bind.get(tensor.name) if tensor is not None else None
        axis = ops.const_int(call.args[1]) if len(call.args) == 2 else None
        if not isinstance(bound, _Tensor) or axis is None or not -len(bound.shape) <= axis < len(bound.shape):
            raise EmitError(f"`{call.op}` of something other than an axis of a tensor parameter", span)
        extent = bound.shape[axis]
        if extent is None:
            raise EmitError(f"`{call.op}` of a run-time extent has no PTO form in the subset", span)
        return extent

    def _compare(self, expr: Compare, span: Span, name: str | None) -> tuple[str, str]:
        """A comparison: of index values `arith.cmpi`; of float scalars PyPTO's `arith.cmpf` with the ordered
        predicate (its `VisitCmpExpr`: false when an operand is a NaN, `!=` too). A literal operand takes the
        other's type."""
        sides: list[tuple[int | float | None, tuple[str, str] | None]] = []
        for side in (expr.lhs, expr.rhs):
            literal = side.value if isinstance(side, Const) else None
            if isinstance(literal, (int, float)) and not isinstance(literal, bool):
                sides.append((literal, None))
            else:
                sides.append((None, self.scalar(side, span)))
        kinds = {emitted[1] for _, emitted in sides if emitted is not None}
        kind = "f32" if "f32" in kinds or any(isinstance(lit, float) for lit, _ in sides) else "index"
        operands = []
        for literal, emitted in sides:
            if emitted is None:
                assert literal is not None
                if kind == "index" and not isinstance(literal, int):
                    raise EmitError(f"a comparison of an index value and the float {literal}", span)
                operands.append(self.const(float(literal) if kind == "f32" else literal, kind))
            elif emitted[1] != kind:
                raise EmitError(f"a comparison of a {kind} and a {emitted[1]} value has no PTO form in the subset", span)
            else:
                operands.append(emitted[0])
        result = self.fresh(name)
        if kind == "f32":
            self.emit(f"%{result} = arith.cmpf {_CMPF[expr.op]}, %{operands[0]}, %{operands[1]} : f32")
        else:
            self.emit(f"%{result} = arith.cmpi {_CMPI[expr.op]}, %{operands[0]}, %{operands[1]} : index")
        return result, "i1"

    def _scalar_cast(self, call: Call, span: Span, name: str | None) -> tuple[str, str]:
        """A scalar `pl.cast` (`scalar.cast_value`): a literal folds; a run-time integer becomes the
        target's value in `index` arithmetic (a wrap only where the source's values may not fit), a
        condition `cmpi ne 0`, a condition to an integer `select`; a run-time float has no form."""
        target = ops.dtype_of_sym(call.kwarg("target_type") or call.kwarg("dtype")
                                  or (call.args[1] if len(call.args) > 1 else None))
        if target is None or not call.args:
            raise EmitError("a scalar cast without a target type", span)
        if not scalar.default_cast_mode(call.kwarg("mode")):
            raise EmitError("a scalar cast with a `mode=` other than the default: PyPTO refuses it", span)
        operand = call.args[0]
        literal = scalar.evaluate(operand)
        if isinstance(literal, (bool, int, float)):
            try:
                value = scalar.cast_value(literal, target)
            except ValueError as error:
                raise EmitError(str(error), span) from None
            kind = "i1" if isinstance(value, bool) else "f32" if isinstance(value, float) else "index"
            return self.const(value, kind), kind
        ssa, kind = self.scalar(operand, span)
        bounds = scalar.int_range(target)
        if kind == "f32" and target in _FPTOSI:
            # PyPTO's codegen: `arith.fptosi` (toward zero), then the subset's `index` arithmetic
            truncated, result = self.fresh(), self.fresh(name)
            self.emit(f"%{truncated} = arith.fptosi %{ssa} : f32 to {_FPTOSI[target]}")
            self.emit(f"%{result} = arith.index_cast %{truncated} : {_FPTOSI[target]} to index")
            return result, "index"
        if kind == "f32" or bounds is None:
            raise EmitError(f"a scalar cast of a run-time {'float' if kind == 'f32' else 'value'} to "
                            f"{target.value} has no PTO form in the subset", span)
        if target is DType.BOOL:
            if kind == "i1":
                return ssa, kind
            result = self.fresh(name)
            self.emit(f"%{result} = arith.cmpi ne, %{ssa}, %{self.const(0, 'index')} : index")
            return result, "i1"
        source: tuple[int, int] | None
        if kind == "i1":
            widened = self.fresh()
            self.emit(f"%{widened} = arith.select %{ssa}, %{self.const(1, 'index')}, "
                      f"%{self.const(0, 'index')} : index")
            ssa, source = widened, (0, 1)
        else:
            declared = self.env.get(v.name) if (v := var_like(operand)) is not None else None
            source = (scalar.int_range(declared.dtype) if isinstance(declared, ScalarType) else None) \
                or scalar.int_range(DType.INDEX)
        lo, hi = bounds
        if source is not None and lo <= source[0] and source[1] <= hi:
            return ssa, "index"  # every value of the source is one of the target: nothing changes
        if hi >= 1 << 63:
            raise EmitError(f"a scalar cast to {target.value} has no form in 64-bit index arithmetic", span)
        # ((x - lo) mod 2^bits) + lo with truncating remainders: ((x - lo) rem m + m) rem m + lo
        modulus = self.const(hi - lo + 1, "index")
        shifted = self.fresh()
        self.emit(f"%{shifted} = arith.subi %{ssa}, %{self.const(lo, 'index')} : index")
        rem = self.fresh()
        self.emit(f"%{rem} = arith.remsi %{shifted}, %{modulus} : index")
        positive = self.fresh()
        self.emit(f"%{positive} = arith.addi %{rem}, %{modulus} : index")
        wrapped = self.fresh()
        self.emit(f"%{wrapped} = arith.remsi %{positive}, %{modulus} : index")
        result = self.fresh(name)
        self.emit(f"%{result} = arith.addi %{wrapped}, %{self.const(lo, 'index')} : index")
        return result, "index"

    def _bool(self, expr: Expr, span: Span) -> str:
        ssa, kind = self.scalar(expr, span)
        if kind != "i1":
            raise EmitError(f"expected a condition, got {kind}", span)
        return ssa


def _distributed_calls() -> dict:
    """The distributed ops' emissions (`emit/distributed.py`, which imports this module)."""
    from .distributed import CALLS

    return CALLS


_RANKED = (ops.LOAD, ops.STORE, "tile.reshape")
"""The tile ops that take a tile of rank > 2 (`_FunctionEmitter._two_dimensional`): a reshape is a view of the
source's row-major bytes, which merging the leading axes into rows leaves as they are."""
_CALLS = {
    ops.CREATE: _FunctionEmitter.op_create, ops.ALLOC: _FunctionEmitter.op_alloc,
    ops.T_CREATE: _FunctionEmitter.op_tensor_create,
    ops.LOAD: _FunctionEmitter.op_load, ops.STORE: _FunctionEmitter.op_store,
    ops.EXTRACT: _FunctionEmitter.op_extract, ops.MOVE: _FunctionEmitter.op_move,
    ops.TRANSPOSE_VIEW: _FunctionEmitter.op_transpose_view,
    ops.MATMUL: _FunctionEmitter.op_matmul, ops.MATMUL_ACC: _FunctionEmitter.op_matmul,
    ops.MATMUL_BIAS: _FunctionEmitter.op_matmul, ops.ASSEMBLE: _FunctionEmitter.op_assemble,
    "tile.reshape": _FunctionEmitter.op_reshape, "tile.cast": _FunctionEmitter.op_cast,
    ops.SET_VALIDSHAPE: _FunctionEmitter.op_set_validshape,
    "tile.full": _FunctionEmitter.op_full, "tile.slice": _FunctionEmitter.op_slice,
    ops.T_READ: _FunctionEmitter.op_read, ops.T_RESHAPE: _FunctionEmitter.op_tensor_reshape,
    ops.T_SLICE: _FunctionEmitter.op_tensor_slice,
    ops.T_CAST: _FunctionEmitter.op_tensor_cast, "tile.transpose": _FunctionEmitter.op_transpose,
    "tile.arange": _FunctionEmitter.op_arange, "tile.ci": _FunctionEmitter.op_arange,
    **dict.fromkeys(("tensor.min", "tensor.max"), _FunctionEmitter.op_scalar_extremum),
    **{op: _FunctionEmitter.op_block_idx for op in ops.BLOCK_IDX},
}
_DIMS = ("tensor.dim", "tile.dim")
_CALLS.update({op: _FunctionEmitter.op_dim for op in _DIMS})
_CALLS["system.syncall"] = _FunctionEmitter.op_syncall
_CALLS.update(dict.fromkeys(("system.task_dummy", "scope.task_id"), _FunctionEmitter.op_task_id))
_CALLS["tile.read"] = _FunctionEmitter.op_tile_read
_CALLS["tensor.write"] = _FunctionEmitter.op_tensor_write
_CALLS["tensor.full"] = _FunctionEmitter.op_tensor_full
_CALLS[ops.T_ASSEMBLE] = _FunctionEmitter.op_tensor_assemble
_CALLS.update({"array.create": _FunctionEmitter.op_array_create, "tensor.setitem": _FunctionEmitter.op_setitem,
               "tensor.getitem": _FunctionEmitter.op_getitem})
_CALLS["tile.gather"] = _FunctionEmitter.op_gather
_CALLS["tile.concat"] = _FunctionEmitter.op_concat
_CALLS["tile.sort32"] = _FunctionEmitter.op_sort32
_CALLS.update(dict.fromkeys(("tile.cmps", "tile.cmp"), _FunctionEmitter.op_compare))
_CALLS["tile.sel"] = _FunctionEmitter.op_select
_CALLS["tile.mrgsort"] = _FunctionEmitter.op_mrgsort
_CALLS["tile.write"] = _FunctionEmitter.op_tile_write
_CALLS[ops.GATHER_ROW] = _FunctionEmitter.op_gather_row
_CALLS["tile.fillpad"] = _FunctionEmitter.op_fillpad

_PAD_CODES = {"zero": 1, "max": 2, "min": 3}
"""PTO's `PadValue` codes in a `tile_buf` type's `pad=` field (0 is none)."""


def _pad_name(expr: Expr | None) -> str | None:
    """`pl.PadValue.min` -> `min`; the literal sugars PyPTO accepts (`0`, `math.inf`, `-math.inf`) are not
    read: None."""
    return expr.path.rpartition(".")[2] if isinstance(expr, Sym) else None


# ---------------------------------------------------------------------------------------------- helpers


_BASE_ALIGN = 32
_FILL_BAND_ROWS = 16
"""The most rows of a GM fill (`op_tensor_full`) one store writes."""


def _plan_addresses(fn: Function, env: dict[str, Type]) -> dict[str, int] | None:
    """None when the MemRef offsets are byte addresses (after allocate-memory-addr: windows of
    different bases used in one InCore scope never overlap; buffers of two scopes, never live together,
    may share addresses, as each outlined scope allocates from 0). Otherwise (a dump after MemoryReuse, a
    pipeline without allocate-memory-addr: every base starts at offset 0) the address of each base, laid
    out one after the other per space in `tile.alloc` order, so that distinct bases never alias."""
    windows: dict[tuple[MemSpace, int], dict[str, tuple[int, int]]] = {}
    for t, region in _types_by_scope(fn, env):
        if isinstance(t, TileType) and t.memref is not None and t.space is not None:
            w = t.memref.window
            lo, hi = windows.setdefault((t.space, region), {}).get(w.base, (w.offset, w.offset + w.size))
            windows[(t.space, region)][w.base] = (min(lo, w.offset), max(hi, w.offset + w.size))
    overlapping = False
    for bases in windows.values():
        spans = sorted(bases.values())
        overlapping |= any(a_hi > b_lo for (_, a_hi), (b_lo, _) in zip(spans, spans[1:]))
    if not overlapping:
        return None
    merged: dict[MemSpace, dict[str, tuple[int, int]]] = {}
    for (in_space, _), bases in windows.items():
        for base, (lo, hi) in bases.items():
            was = merged.setdefault(in_space, {}).get(base, (lo, hi))
            merged[in_space][base] = (min(was[0], lo), max(was[1], hi))
    sizes: dict[str, int] = {}
    order: list[tuple[MemSpace, str]] = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == ops.ALLOC:
            space = ops.space_of_sym(stmt.value.args[0]) if stmt.value.args else None
            size = ops.const_int(stmt.value.args[1]) if len(stmt.value.args) > 1 else None
            if space is not None:
                order.append((space, stmt.target.name))
                sizes[stmt.target.name] = size or 0
    for space, bases in merged.items():
        for base, (_, hi) in bases.items():
            sizes[base] = max(sizes.get(base, 0), hi)
            if (space, base) not in order:
                order.append((space, base))
    addresses: dict[str, int] = {}
    cursor: dict[MemSpace, int] = {}
    for space, base in order:
        start = cursor.get(space, 0)
        addresses[base] = start
        cursor[space] = start + -(-sizes[base] // _BASE_ALIGN) * _BASE_ALIGN
    return addresses


def _types_by_scope(fn: Function, env: dict[str, Type]) -> Iterator[tuple[Type | None, int]]:
    """Every type *fn* gives a value (of its parameters, its definitions, its loops' and ifs' results and
    carries), with the InCore scope (`incore_scopes` region) the value is made in."""
    counter = RegionCounter(fn)
    yield from ((p.type, counter.current) for p in fn.params)

    def visit(body: tuple[Stmt, ...]) -> Iterator[tuple[Type | None, int]]:
        for stmt in body:
            region = counter.current
            if isinstance(stmt, Assign):
                yield env.get(stmt.target.name), region
                yield stmt.type, region
            elif isinstance(stmt, (For, If)):
                yield from ((t, region) for t in stmt.return_types)
                yield from ((env.get(v.name), region) for v in stmt.return_vars)
            inner = (*stmt.then_body, *stmt.else_body) if isinstance(stmt, If) else (
                stmt.body if isinstance(stmt, (For, Scope)) else ())
            if inner:
                counter.enter(stmt)
                if isinstance(stmt, For):
                    yield from ((env.get(a.name), counter.current) for a in stmt.iter_args)
                yield from visit(inner)
                counter.leave()

    yield from visit(fn.body)


def _annotated_types(fn: Function) -> Iterable[Type]:
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and stmt.type is not None:
            yield stmt.type
        elif isinstance(stmt, (For, If)):
            yield from (t for t in stmt.return_types if t is not None)


_PURE_SCALAR_CALLS = frozenset({ops.T_CAST, ops.T_READ, "tensor.dim", "tensor.min", "tensor.max"})


def _pure_scalar(expr: Expr) -> bool:
    """Whether scalar *expr* can be computed whether or not its `if` arm is taken: it cannot fault (a
    division or remainder only by a non-zero literal) and calls nothing but casts, reads, dims, min, max."""
    for sub in walk_exprs(expr):
        if isinstance(sub, BinOp) and sub.op in ("//", "%", "/") and not (
                isinstance(sub.rhs, Const) and isinstance(sub.rhs.value, int) and sub.rhs.value != 0):
            return False
        if isinstance(sub, Call) and sub.op not in _PURE_SCALAR_CALLS:
            return False
    return True


def _is_vector(op: str) -> bool:
    family, _, short = op.partition(".")
    return family == "tile" and (short in _VECTOR_BINARY or short in _VECTOR_SCALAR or short in _VECTOR_UNARY
                                 or short in _VECTOR_REDUCE or short in _VECTOR_EXPAND
                                 or short in _VECTOR_BROADCAST)


_MASKS = {1: "P0101", 2: "P1010"}
"""The mask patterns of `tile.gather`'s mask form in the subset, by PyPTO's `MaskPattern` value."""


_UNEVALUATED = "dynamic"
"""`pl.dynamic("N")`: a size, or a module value the frontend could not evaluate (`sizes.dynamic_names`)."""


def _unevaluated(call: Call) -> str:
    """Why a `pl.dynamic("N")` left in a value has no PTO form: it names a module value the source computes when
    it is imported (pypto-verify never executes it), or a size no sample bound; no value is guessed."""
    name = call.args[0].value if call.args and isinstance(call.args[0], Const) else "?"
    return (f"`{name}` is a value the kernel's module computes when it is imported (or a size no sample binds): "
            "the file is never executed, so the simulation has no value for it")


def _innermost(call: Call) -> Call:
    """The deepest nested call of *call* (post-order first), *call* itself when it has none."""
    for arg in (*call.args, *(v for _, v in call.kwargs)):
        for inner in walk_exprs(arg):
            if isinstance(inner, Call) and inner.op != ops.T_READ:
                return _innermost(inner)
    return call


def _overlap(a: _Tile, b: _Tile) -> bool:
    """Whether two tiles of one space share a byte."""
    return a.space is b.space and a.addr < b.addr + b.rows * b.cols * b.dtype.bytes \
        and b.addr < a.addr + a.rows * a.cols * a.dtype.bytes


def _scalar_kind(t: ScalarType) -> str:
    """The subset's type of a scalar of type *t*: `i1` for BOOL, `f32` for a float, else `index`."""
    return "i1" if t.dtype is DType.BOOL else "f32" if t.dtype.is_float else "index"


def _pto_dtype(dtype: DType, span: Span) -> str:
    try:
        return _PTO_DTYPE[dtype]
    except KeyError:
        raise EmitError(f"dtype {dtype.value} has no PTO element type", span) from None


def _row_major(shape: tuple[int | None, ...]) -> tuple[int, ...] | None:
    """The element strides of a row-major tensor of *shape* (None: a run-time extent)."""
    if None in shape[1:]:
        return None
    strides = [1]
    for dim in reversed(shape[1:]):
        assert dim is not None
        strides.insert(0, strides[0] * dim)
    return tuple(strides)


def _squeeze_exprs(shape: tuple[Expr, ...]) -> tuple[Expr, ...]:
    dims = list(shape)
    while len(dims) > 2 and ops.const_int(dims[0]) == 1:
        dims.pop(0)
    return tuple(dims)


def _merge_rows(shape: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """A tile shape of rank > 2 as the 2-D tile PTO holds: its leading axes merged into rows, the last kept
    (PyPTO's FlattenTileNdTo2D: `[2, 3, 4]` is `[6, 4]`)."""
    if len(shape) <= 2:
        return shape
    rows = shape[0]
    for dim in shape[1:-1]:
        known = (ops.const_int(rows), ops.const_int(dim))
        rows = Const(known[0] * known[1]) if None not in known else BinOp("*", rows, dim)  # type: ignore[operator]
    return (rows, shape[-1])


def _tile_dims(shape: tuple[Expr, ...], name: str, span: Span) -> tuple[int, int]:
    static = ops.static_shape(_merge_rows(_squeeze_exprs(shape)))
    if static is None:
        raise EmitError(f"tile `{name}` has a symbolic shape", span)
    if len(static) == 1:
        return (1, static[0])
    return (static[0], static[1])


def _items(expr: Expr | None, span: Span, what: str) -> tuple[Expr, ...]:
    if isinstance(expr, (ListExpr, TupleExpr)):
        return expr.items
    raise EmitError(f"{what} is not a list", span)


def _is_atomic(expr: Expr | None) -> bool:
    return isinstance(expr, Sym) and expr.path.endswith("Add")


_PRELUDE = frozenset({ops.ALLOC, ops.T_CREATE, ops.T_READ, ops.T_RESHAPE, ops.T_SLICE, *_DIMS})
"""What may precede a launch's loop: allocations, GM scratch (a workspace argument), views of GM tensors
(`tensor.reshape`), scalars: nothing an instance's recomputing it changes."""


def _launch(fn: Function) -> For | None:
    """The `pl.spmd` loop that is all of *fn*'s work: besides it, the body holds only `tile.alloc`s, GM scratch
    tensors (`tensor.create`: workspace arguments), scalar assignments (recomputed by every instance) and the
    return."""
    loops = [s for s in fn.body if isinstance(s, For)]
    if len(loops) != 1 or loops[0].kind is not LoopKind.SPMD or loops[0].iter_args:
        return None
    for stmt in fn.body:
        if stmt is loops[0] or isinstance(stmt, Return):
            continue
        if not isinstance(stmt, Assign) or isinstance(stmt.type, TileType) \
                or any(isinstance(c, Call) and c.op not in _PRELUDE for c in walk_exprs(stmt.value)):
            return None
    return loops[0]


def _launch_size(fn: Function, loop: For) -> int | None:
    """The block count of the launch *loop*: `pl.spmd(n)`'s n, folded with the scalars assigned before it
    (`pl.tensor.dim` of a static shape included); None when the source does not fix it (a `pto.launch` step then
    takes it at run time)."""
    shapes = {p.name: ops.static_shape(p.type.shape) for p in fn.params if isinstance(p.type, TensorType)}
    env: dict[str, int | bool] = {}
    for stmt in fn.body:
        if stmt is loop:
            break
        if not isinstance(stmt, Assign):
            continue
        value: int | bool | float | None
        if isinstance(stmt.value, Call) and stmt.value.op in _DIMS and len(stmt.value.args) == 2:
            tensor, axis = var_like(stmt.value.args[0]), ops.const_int(stmt.value.args[1])
            shape = shapes.get(tensor.name) if tensor is not None else None
            value = shape[axis] if shape is not None and axis is not None and -len(shape) <= axis < len(shape) else None
        else:
            value = scalar.evaluate(stmt.value, env)
        if isinstance(value, (int, bool)):
            env[stmt.target.name] = value
    start, stop, step = (scalar.evaluate(e, env) for e in (loop.start, loop.stop, loop.step))
    if start != 0 or step != 1:
        raise EmitError("a `pl.spmd` launch that does not count its blocks from 0 by 1", loop.span)
    if not isinstance(stop, int) or isinstance(stop, bool):
        return None
    if stop < 1:
        raise EmitError(f"a `pl.spmd` launch of {stop} blocks", loop.span)
    return stop


_MAX_INLINE_DEPTH = 16
"""How deeply inline calls may nest in one emitted function."""


def _stmt_calls(stmt: Stmt) -> Iterable[Call]:
    for expr in stmt_exprs(stmt):
        for sub in walk_exprs(expr):
            if isinstance(sub, Call):
                yield sub


def _names_read(body: tuple[Stmt, ...]) -> set[str]:
    """The names the statements of *body* read, at any depth."""
    return {n for stmt in walk_stmts(body) for top in stmt_exprs(stmt) for n in scalar.names_in(top)}


# ---------------------------------------------------------------------------------------------- entry points


def emit_function(fn: Function, target: str | Target = "a2a3", *, callees: Mapping[str, Callee | str] | None = None,
                  blocks: int | None = None, scalars: Mapping[str, int] | None = None) -> EmittedFunction:
    """The `func.func` of lowered kernel *fn*; `EmitError` when the subset cannot express it. A call of a function
    in *callees* (by op: `call.f`, `extern.f`) has its lowered body spliced in; with *blocks*, *fn* (which reads a
    block index its launcher gives) is a launch of that many instances. *scalars*: the values the simulation gives
    *fn*'s scalar parameters, by name, for a GM scratch tensor whose shape names them (without them such a tensor
    is `NeedsScalars`)."""
    resolved = get_target(target) if isinstance(target, str) else target
    if not (fn.name.isascii() and fn.name.replace("_", "a").isalnum()):
        raise EmitError(f"the kernel name `{fn.name}` is not an ASCII identifier; a PTO symbol is", fn.span)
    return _FunctionEmitter(fn, resolved, callees=dict(callees or {}), blocks=blocks, scalars=scalars).run()


def emit_module(functions: Iterable[Function | EmittedFunction], target: str | Target = "a2a3") -> str:
    """One PTO module holding every function of *functions* (emitted in order)."""
    resolved = get_target(target) if isinstance(target, str) else target
    bodies = [f if isinstance(f, EmittedFunction) else emit_function(f, resolved) for f in functions]
    lines = [f'module attributes {{pto.target_arch = "{resolved.name}"}} {{']
    lines.extend(b.text for b in bodies)
    lines.append("}")
    return "\n".join(lines) + "\n"


def emit(fn: Function, target: str | Target = "a2a3") -> str:
    """The PTO module of the single lowered kernel *fn*."""
    return emit_module([fn], target)
