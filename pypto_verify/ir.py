"""The IR: frozen dataclasses for programs, functions, statements, expressions and types.

Owns: the data model every stage reads and writes (KERNEL_LANGUAGE.md, all three forms). Imports
nothing of ours but `span` (`Span`, `NO_SPAN`, `display_name`, re-exported here). Nodes are frozen, slotted and tuple-valued, with no parent pointers; every node has a
`span` that equality ignores, so two programs that differ only in where they came from are equal.

Types live where a value is defined (an `Assign`'s annotation, a loop's or an if's return types, a
parameter); a use is a bare `Var`. `type_env(fn)` resolves every name's type, including iter_args
(the init value's type) and untyped return vars (the yielded value's type, then-arm first), exactly as
the printed Form 3 leaves them.

`var_like(expr)` is the only way passes read variables: it accepts a `Var` and an `IterArg` alike (an
iter_arg is a value like any other — L0C_RULES.md; the old compiler's Var-only test was a real defect).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union

from pypto_verify.span import NO_SPAN as NO_SPAN, Span as Span, display_name as display_name  # re-exported
from pypto_verify.span import generated_init, pickled_as_fields, slotted_init


# ---------------------------------------------------------------------------------------------- copies

_D = TypeVar("_D")


def replace(obj: _D, /, **changes: Any) -> _D:
    """`dataclasses.replace`, about twice as cheap on a frozen dataclass whose `__init__` is the generated one and
    has no `__post_init__` (every IR node, and most records of the passes): the copy gets its fields set as that
    `__init__` would (and as unpickling sets them, `span.pickled_as_fields`), without `dataclasses.fields()` made
    again and the keyword call. Any other dataclass, or a change naming no field, goes to `dataclasses.replace`
    (its errors included). The lowering and the sites make ~345 000 copies over 1 000 synthetic kernels."""
    cls = obj.__class__
    plan = _COPY_PLANS.get(cls)
    if plan is None:
        plan = _COPY_PLANS[cls] = _copy_plan(cls)
    if not plan or not plan[1].issuperset(changes):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    copy = _new_object(cls)
    for name, set_field in plan[0]:
        set_field(copy, changes[name] if name in changes else getattr(obj, name))
    return copy


_Setter = Callable[[Any, Any], None]


def _copy_plan(cls: type) -> tuple[tuple[tuple[str, _Setter], ...], frozenset[str]] | tuple[()]:
    """*cls*'s fields, each with what sets it on a new object (its slot's descriptor, else `object.__setattr__`
    by name), and their names as a set, when `replace` may copy it field by field; `()` when it may not."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not generated_init(cls):  # an `__init__` or `__post_init__` of its own
        return ()
    every = getattr(cls, "__dataclass_fields__", {})
    fields = dataclasses.fields(cls)
    if len(fields) != len(every) or not all(f.init for f in fields):  # an InitVar, a ClassVar, an init=False field
        return ()
    setters = []
    for f in fields:
        slot = getattr(cls, f.name, None)
        setters.append((f.name, slot.__set__ if isinstance(slot, _MemberDescriptor) else functools.partial(
            _set_named, f.name)))
    return tuple(setters), frozenset(f.name for f in fields)


def _set_named(name: str, obj: Any, value: Any) -> None:
    _set_field(obj, name, value)


_MemberDescriptor = types.MemberDescriptorType
_COPY_PLANS: dict[type, tuple[tuple[tuple[str, _Setter], ...], frozenset[str]] | tuple[()]] = {}
_new_object = object.__new__
_set_field = object.__setattr__


# ---------------------------------------------------------------------------------------------- spans


def _span() -> Span:
    return field(default=NO_SPAN, kw_only=True, compare=False, repr=False)


# ---------------------------------------------------------------------------------------------- enums


class DType(enum.Enum):
    """Element types of the kernel language (`pl.FP32`, ...); the value is the spelling after `pl.`."""

    FP32 = "FP32"
    FP16 = "FP16"
    BF16 = "BF16"
    INT8 = "INT8"
    INT32 = "INT32"
    INT64 = "INT64"
    BOOL = "BOOL"
    INDEX = "INDEX"
    INT16 = "INT16"
    UINT8 = "UINT8"
    UINT16 = "UINT16"
    UINT32 = "UINT32"
    UINT64 = "UINT64"
    FP8E4M3FN = "FP8E4M3FN"
    FP8E5M2 = "FP8E5M2"
    FP8E8M0 = "FP8E8M0"
    HF8 = "HF8"
    TASK_ID = "TASK_ID"
    """A runtime task handle (`pl.system.task_dummy`, `pl.spmd_submit`'s second result): a 64-bit identifier."""

    @property
    def bytes(self) -> int:
        """Bytes per element (BOOL and INDEX as the target stores them)."""
        return _DTYPE_BYTES[self]

    @property
    def is_float(self) -> bool:
        return self in _FLOAT_DTYPES


_FLOAT_DTYPES = (DType.FP32, DType.FP16, DType.BF16, DType.FP8E4M3FN, DType.FP8E5M2, DType.FP8E8M0, DType.HF8)
"""The float dtypes, made once (a tuple of members built at each `is_float` cost seven look-ups on the enum class:
~3 µs, and the dynamic check asks ~100 000 times on the corpus)."""


_DTYPE_BYTES = {
    DType.FP32: 4, DType.FP16: 2, DType.BF16: 2, DType.INT8: 1, DType.INT32: 4,
    DType.INT64: 8, DType.BOOL: 1, DType.INDEX: 8,
    # PyPTO include/pypto/core/dtype.h, DataType::GetBit; the sub-byte types (INT4, UINT4, FP4, HF4) pack two
    # elements a byte and are not members: an annotation naming one is left open
    DType.INT16: 2, DType.UINT8: 1, DType.UINT16: 2, DType.UINT32: 4, DType.UINT64: 8,
    DType.FP8E4M3FN: 1, DType.FP8E5M2: 1, DType.FP8E8M0: 1, DType.HF8: 1, DType.TASK_ID: 8,
}


class MemSpace(enum.Enum):
    """Memory spaces by their language names (`pl.Mem.X`); L0C/L1 appear only in capacity text."""

    DDR = "DDR"
    Mat = "Mat"
    Left = "Left"
    Right = "Right"
    Acc = "Acc"
    Bias = "Bias"
    Vec = "Vec"


class FunctionKind(enum.Enum):
    """`pl.FunctionType.X`; a free `@pl.jit` function is OPAQUE (host code holding InCore scopes)."""

    INCORE = "InCore"
    ORCHESTRATION = "Orchestration"
    OPAQUE = "Opaque"
    AIC = "AIC"
    AIV = "AIV"


class LoopKind(enum.Enum):
    """How a `for` iterates: the `pl.X(...)` it was written with."""

    RANGE = "range"
    PIPELINE = "pipeline"
    UNROLL = "unroll"
    PARALLEL = "parallel"
    SPMD = "spmd"


class Direction(enum.Enum):
    """A parameter's direction: `pl.Out[...]` is OUT, `pl.InOut[...]` INOUT, anything else IN."""

    IN = "In"
    OUT = "Out"
    INOUT = "InOut"


# ---------------------------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Expr:
    """Base of all expressions."""


@dataclass(frozen=True, slots=True)
class Var(Expr):
    """A use (or the defined name) of an SSA value."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class IterArg(Var):
    """A loop-carried value, named inside the loop body; its init is the loop's `inits[i]`."""


@dataclass(frozen=True, slots=True)
class Const(Expr):
    """A literal int / float / bool / str (None: a static `None`, a helper's bare `return`); `dtype` is set when
    written `pl.const(v, pl.DT)`."""

    value: int | float | bool | str | None
    dtype: DType | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Sym(Expr):
    """An enumerator of the language, by its path after `pl.`: `Mem.Acc`, `FP32`, `AtomicType.Add`."""

    path: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """Scalar arithmetic: `op` is one of `+ - * // % / **`, or `min` / `max`."""

    op: str
    lhs: Expr
    rhs: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class UnaryOp(Expr):
    """`-x` (`op == "-"`) or `not x` (`op == "not"`)."""

    op: str
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """A single comparison `lhs op rhs`, `op` in `== != < <= > >=`."""

    op: str
    lhs: Expr
    rhs: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    """`a and b and ...` / `a or b or ...`."""

    op: str
    operands: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ListExpr(Expr):
    """A bracketed list operand (offsets, shapes): `[0, k0]`."""

    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TupleExpr(Expr):
    """A parenthesised tuple operand: `(c_init,)`."""

    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DictExpr(Expr):
    """A dict operand (`attrs={"pipeline_membership": "0:1"}`), keys as strings."""

    items: tuple[tuple[str, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """An op application: `op` is the dotted name after `pl.` (`tile.matmul_acc`, `tensor.slice`)."""

    op: str
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, Expr], ...] = ()
    span: Span = _span()

    def kwarg(self, name: str) -> Expr | None:
        """The keyword argument *name*, or None."""
        for key, value in self.kwargs:
            if key == name:
                return value
        return None

    def with_kwarg(self, name: str, value: Expr | None) -> Call:
        """This call with keyword *name* set to *value* (removed when None), keeping kwarg order."""
        kept = tuple((k, v) for k, v in self.kwargs if k != name)
        if value is None:
            return replace(self, kwargs=kept)
        if any(k == name for k, _ in self.kwargs):
            return replace(self, kwargs=tuple((k, value if k == name else v) for k, v in self.kwargs))
        return replace(self, kwargs=(*kept, (name, value)))


def var_like(expr: Expr | None) -> Var | None:
    """The variable *expr* names — a `Var` or an `IterArg` alike — or None for any other expression."""
    return expr if isinstance(expr, Var) else None


# ---------------------------------------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class Window:
    """A buffer window: `size` bytes at byte `offset` of the allocation `base`."""

    base: str
    offset: int
    size: int

    def __str__(self) -> str:
        return f"{self.base}[{self.offset}:{self.offset + self.size}]"

    def overlaps(self, other: Window) -> bool:
        """Same allocation and intersecting byte ranges."""
        return (self.base == other.base and self.offset < other.offset + other.size
                and other.offset < self.offset + self.size)


@dataclass(frozen=True, slots=True)
class MemRef:
    """Where a tile lives: `pl.MemRef(base, offset, size[, slots=N])[slot]`.

    `base` is an alloc name (`mem_acc_4`) or, for tensors, a quoted name (`quoted=True`).
    """

    base: str
    offset: int
    size: int
    slots: int | None = None
    slot: int | None = None
    quoted: bool = False

    @property
    def window(self) -> Window:
        """The window this MemRef denotes; a slot selects `size` bytes at `offset + slot * size`."""
        offset = self.offset + (self.slot or 0) * self.size
        return Window(self.base, offset, self.size)


@dataclass(frozen=True, slots=True)
class Type:
    """Base of value types."""


@dataclass(frozen=True, slots=True)
class ScalarType(Type):
    """`pl.Scalar[pl.DT]`: a runtime or compile-time scalar."""

    dtype: DType


@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """`pl.Tensor[[dims], dtype(, MemRef)]`: a tensor in global memory."""

    shape: tuple[Expr, ...]
    dtype: DType
    memref: MemRef | None = None


@dataclass(frozen=True, slots=True)
class TileType(Type):
    """`pl.Tile[[dims], dtype, (MemRef,) space(, TileView)]`; `valid_shape` when narrower than `shape`."""

    shape: tuple[Expr, ...]
    dtype: DType
    space: MemSpace | None = None
    memref: MemRef | None = None
    valid_shape: tuple[Expr, ...] | None = None
    view: Expr | None = None
    """The printed `pl.TileView(...)` layout annotation, kept as written so it round-trips."""


@dataclass(frozen=True, slots=True)
class PtrType(Type):
    """`pl.Ptr`: a buffer root made by `tile.alloc`."""


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """A tuple of values (multi-result op, rare)."""

    items: tuple[Type, ...]


# ---------------------------------------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Stmt:
    """Base of statements."""


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """`target: type = value`; `type` is the annotation (None when not written)."""

    target: Var
    value: Expr
    type: Type | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Eval(Stmt):
    """A call evaluated for its effect: `pl.tile.store(...)` with no target."""

    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Yield(Stmt):
    """The values a loop body or an if arm hands to its return vars (`pl.yield_(...)`)."""

    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """`return v, ...`."""

    values: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    """`for loop_var, (iter_args) in pl.KIND(start, stop, step, init_values=inits[, stage=F])`.

    The body ends with a `Yield` of one value per iter_arg when there are iter_args; `return_vars[i]`
    is the value of iter_arg i after the last iteration (`inits[i]` when the loop runs zero times).
    `return_types[i]` is None when the printed form leaves it implicit (the yielded value's type).
    """

    loop_var: Var
    start: Expr
    stop: Expr
    step: Expr
    iter_args: tuple[IterArg, ...]
    inits: tuple[Expr, ...]
    body: tuple[Stmt, ...]
    return_vars: tuple[Var, ...]
    return_types: tuple[Type | None, ...]
    kind: LoopKind = LoopKind.RANGE
    stage: int | None = None
    kwargs: tuple[tuple[str, Expr], ...] = ()
    """Other keyword arguments of the loop call (`name_hint=`, `attrs=`), kept for round trip."""
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class If(Stmt):
    """`if cond: then_body else: else_body`; each arm ends with a `Yield` when there are return vars.

    `return_vars` are the phis: `return_vars[i]` is arm's yield value i on the arm taken.
    """

    cond: Expr
    then_body: tuple[Stmt, ...]
    else_body: tuple[Stmt, ...]
    return_vars: tuple[Var, ...] = ()
    return_types: tuple[Type | None, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Scope(Stmt):
    """`with pl.at(...):`-like block: `call` is the context expression; transparent for data flow."""

    call: Call
    body: tuple[Stmt, ...]
    span: Span = _span()


# ---------------------------------------------------------------------------------------------- functions


@dataclass(frozen=True, slots=True)
class Param:
    """A function parameter with its type and direction."""

    name: str
    type: Type | None
    direction: Direction = Direction.IN
    span: Span = _span()
    untyped: str = field(default="", kw_only=True, compare=False, repr=False)
    """Why `type` is None, as a clause after the parameter's name (`is a bare `pl.Tensor` ...`); empty when
    typed. Not printed: the annotation as written says it again."""
    runtime_shaped: bool = field(default=False, kw_only=True, compare=False, repr=False)
    """An untyped tensor whose extents are those of the tensor passed at run time: a bare `pl.Tensor` of a
    `pl.jit` entry (pypto specialises the entry on each call's tensors), or of a `pl.jit.inline` every call
    of which passes one. Its dtype and rank are not stated either."""


@dataclass(frozen=True, slots=True)
class Function:
    """A kernel or glue function.

    `decorator` is how it was declared (`function`, `jit`, `jit.incore`, ...); `attrs` are the other
    keyword arguments of the decorator (`level=`, `role=`), kept so the printed form round-trips.
    `has_self` records whether the parameter list started with `self`.
    """

    name: str
    kind: FunctionKind
    params: tuple[Param, ...]
    return_types: tuple[Type, ...]
    body: tuple[Stmt, ...]
    decorator: str = "function"
    attrs: tuple[tuple[str, Expr], ...] = ()
    has_self: bool = True
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Program:
    """A `@pl.program` class (`name`), or the free functions of a file (`name is None`)."""

    name: str | None
    functions: tuple[Function, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Module:
    """Everything one file holds: its programs in source order."""

    path: str
    programs: tuple[Program, ...]

    def functions(self) -> Iterator[tuple[Program, Function]]:
        for program in self.programs:
            for fn in program.functions:
                yield program, fn


# ---------------------------------------------------------------------------------------------- traversal


def walk_stmts(body: tuple[Stmt, ...]) -> Iterator[Stmt]:
    """Every statement of *body*, pre-order, descending into loops, ifs and scopes (one generator and a
    stack of positions, so a statement costs the same at any depth)."""
    stack: list[Iterator[Stmt]] = [iter(body)]
    while stack:
        for stmt in stack[-1]:
            yield stmt
            if isinstance(stmt, For) or isinstance(stmt, Scope):
                if stmt.body:
                    stack.append(iter(stmt.body))
                    break
            elif isinstance(stmt, If):
                if stmt.then_body or stmt.else_body:
                    stack.append(iter((*stmt.then_body, *stmt.else_body)))
                    break
        else:
            stack.pop()


def child_bodies(stmt: Stmt) -> tuple[tuple[Stmt, ...], ...]:
    """The nested statement lists of *stmt* (loop body; then, else; scope body)."""
    if isinstance(stmt, For):
        return (stmt.body,)
    if isinstance(stmt, If):
        return (stmt.then_body, stmt.else_body)
    if isinstance(stmt, Scope):
        return (stmt.body,)
    return ()


def child_bodies_flat(stmt: Stmt) -> tuple[Stmt, ...]:
    return tuple(s for body in child_bodies(stmt) for s in body)


def walk_exprs(expr: Expr) -> Iterator[Expr]:
    """*expr* and every sub-expression, pre-order (iterative: no generator per level; a node's children are
    found by its exact class, `_CHILDREN`, and a leaf costs no call)."""
    stack = [expr]
    pop, extend, children_of = stack.pop, stack.extend, _CHILDREN.get
    while stack:
        node = pop()
        yield node
        children = children_of(type(node))
        if children is not None:
            found = children(node)
            if found:
                extend(reversed(found))


def var_names(expr: Expr) -> list[str]:
    """The name of every variable in *expr* (a `Var` and an `IterArg` alike), in `walk_exprs`' order, repeats
    kept: that walk without a generator, and without a yield for every node that is not a variable."""
    names: list[str] = []
    stack = [expr]
    pop, extend, children_of = stack.pop, stack.extend, _CHILDREN.get
    while stack:
        node = pop()
        cls = node.__class__
        if cls is Var or cls is IterArg:
            names.append(node.name)  # type: ignore[attr-defined]
            continue
        children = children_of(cls)
        if children is not None:
            found = children(node)
            if found:
                extend(reversed(found))
    return names


_LEAVES: frozenset[type] = frozenset({Var, IterArg, Const, Sym})
"""The expression classes without children: most nodes a map visits (a type look-up is cheaper than the chain
of isinstance tests of `_map_children`)."""


def _call_children(expr: Call) -> tuple[Expr, ...]:
    return (*expr.args, *(v for _, v in expr.kwargs)) if expr.kwargs else expr.args


_CHILDREN: dict[type, Callable[[Any], tuple[Expr, ...]]] = {
    BinOp: lambda e: (e.lhs, e.rhs),
    Compare: lambda e: (e.lhs, e.rhs),
    UnaryOp: lambda e: (e.operand,),
    BoolOp: lambda e: e.operands,
    ListExpr: lambda e: e.items,
    TupleExpr: lambda e: e.items,
    DictExpr: lambda e: tuple(v for _, v in e.items),
    Call: _call_children,
}
"""The children of each expression class that has any, by exact class (no expression class but IterArg, a
leaf, has a subclass: `_map_children`)."""


def expr_children(expr: Expr) -> tuple[Expr, ...]:
    children = _CHILDREN.get(type(expr))
    return () if children is None else children(expr)


def map_expr(expr: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Rebuild *expr* bottom-up; *fn* returns a replacement for a node, or None to keep it."""
    rebuilt = expr if type(expr) in _LEAVES else _map_children(expr, fn)
    replaced = fn(rebuilt)
    return rebuilt if replaced is None else replaced


def _map_children(expr: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """*expr* with its children mapped; *expr* itself when no child changed (expressions are values, so
    sharing an unchanged subtree is safe, and most maps change a few leaves of large trees). The classes
    are tested exactly (no expression class but IterArg, a leaf, has a subclass) and rebuilt by their
    constructors: this is the innermost loop of every pass."""
    cls = type(expr)
    if cls is Call:
        assert isinstance(expr, Call)
        args = _mapped(expr.args, fn)
        kwargs = _mapped(tuple(v for _, v in expr.kwargs), fn) if expr.kwargs else None
        if args is None and kwargs is None:
            return expr
        return Call(expr.op, expr.args if args is None else args, expr.kwargs if kwargs is None else tuple(
            (k, v) for (k, _), v in zip(expr.kwargs, kwargs)), span=expr.span)
    if cls is BinOp or cls is Compare:
        assert isinstance(expr, (BinOp, Compare))
        lhs, rhs = map_expr(expr.lhs, fn), map_expr(expr.rhs, fn)
        return expr if lhs is expr.lhs and rhs is expr.rhs else cls(expr.op, lhs, rhs, span=expr.span)
    if cls is UnaryOp:
        assert isinstance(expr, UnaryOp)
        operand = map_expr(expr.operand, fn)
        return expr if operand is expr.operand else UnaryOp(expr.op, operand, span=expr.span)
    if cls is BoolOp:
        assert isinstance(expr, BoolOp)
        operands = _mapped(expr.operands, fn)
        return expr if operands is None else BoolOp(expr.op, operands, span=expr.span)
    if cls is ListExpr or cls is TupleExpr:
        assert isinstance(expr, (ListExpr, TupleExpr))
        items = _mapped(expr.items, fn)
        return expr if items is None else cls(items, span=expr.span)
    if cls is DictExpr:
        assert isinstance(expr, DictExpr)
        values = _mapped(tuple(v for _, v in expr.items), fn)
        return expr if values is None else DictExpr(tuple(
            (k, v) for (k, _), v in zip(expr.items, values)), span=expr.span)
    return expr


def _mapped(exprs: tuple[Expr, ...], fn: Callable[[Expr], Expr | None]) -> tuple[Expr, ...] | None:
    """*exprs* each mapped (in order), or None when none changed; no list is made until one does."""
    for i, e in enumerate(exprs):
        mapped = map_expr(e, fn)
        if mapped is not e:
            return (*exprs[:i], mapped, *(map_expr(rest, fn) for rest in exprs[i + 1:]))
    return None


def stmt_exprs(stmt: Stmt) -> tuple[Expr, ...]:
    """The expressions *stmt* itself reads (not those of nested bodies)."""
    if isinstance(stmt, Assign):
        return (stmt.value,)
    if isinstance(stmt, (Eval,)):
        return (stmt.value,)
    if isinstance(stmt, (Yield, Return)):
        return stmt.values
    if isinstance(stmt, For):
        return (stmt.start, stmt.stop, stmt.step, *stmt.inits)
    if isinstance(stmt, If):
        return (stmt.cond,)
    if isinstance(stmt, Scope):
        return (stmt.call,)
    return ()


def defined_names(stmt: Stmt) -> tuple[str, ...]:
    """The names *stmt* itself defines (not those defined inside nested bodies)."""
    if isinstance(stmt, Assign):
        return (stmt.target.name,)
    if isinstance(stmt, For):
        return (stmt.loop_var.name, *(a.name for a in stmt.iter_args), *(v.name for v in stmt.return_vars))
    if isinstance(stmt, If):
        return tuple(v.name for v in stmt.return_vars)
    return ()


def map_stmts(body: tuple[Stmt, ...], fn: Callable[[Stmt], tuple[Stmt, ...] | None]) -> tuple[Stmt, ...]:
    """Rebuild *body* bottom-up: nested bodies first, then *fn* may replace each statement by several
    (return None to keep it)."""
    out: list[Stmt] = []
    changed = False
    for stmt in body:
        rebuilt = _map_child_bodies(stmt, fn)
        replaced = fn(rebuilt)
        if replaced is None:
            out.append(rebuilt)
            changed = changed or rebuilt is not stmt
        else:
            out.extend(replaced)
            changed = changed or len(replaced) != 1 or replaced[0] is not stmt
    # statements are values: an unchanged body is shared, as `map_expr` shares an unchanged subtree
    return body if not changed and type(body) is tuple else tuple(out)


def _map_child_bodies(stmt: Stmt, fn: Callable[[Stmt], tuple[Stmt, ...] | None]) -> Stmt:
    """*stmt* with its nested bodies mapped; *stmt* itself when none of them changed."""
    if isinstance(stmt, For) or isinstance(stmt, Scope):
        body = map_stmts(stmt.body, fn)
        return stmt if body is stmt.body else replace(stmt, body=body)
    if isinstance(stmt, If):
        then_body, else_body = map_stmts(stmt.then_body, fn), map_stmts(stmt.else_body, fn)
        if then_body is stmt.then_body and else_body is stmt.else_body:
            return stmt
        return replace(stmt, then_body=then_body, else_body=else_body)
    return stmt


def map_stmt_exprs(stmt: Stmt, fn: Callable[[Expr], Expr | None]) -> Stmt:
    """*stmt* with *fn* applied (via `map_expr`) to the expressions it reads itself; *stmt* itself when
    none of them changed."""
    m = lambda e: map_expr(e, fn)  # noqa: E731
    if isinstance(stmt, (Assign, Eval)):
        value = m(stmt.value)
        return stmt if value is stmt.value else replace(stmt, value=value)
    if isinstance(stmt, (Yield, Return)):
        values = _mapped(stmt.values, fn)
        return stmt if values is None else replace(stmt, values=values)
    if isinstance(stmt, For):
        start, stop, step = m(stmt.start), m(stmt.stop), m(stmt.step)
        inits = _mapped(stmt.inits, fn)
        if start is stmt.start and stop is stmt.stop and step is stmt.step and inits is None:
            return stmt
        return replace(stmt, start=start, stop=stop, step=step, inits=stmt.inits if inits is None else inits)
    if isinstance(stmt, If):
        cond = m(stmt.cond)
        return stmt if cond is stmt.cond else replace(stmt, cond=cond)
    if isinstance(stmt, Scope):
        call = m(stmt.call)
        assert isinstance(call, Call)
        return stmt if call is stmt.call else replace(stmt, call=call)
    return stmt


def map_type_exprs(t: Type | None, fn: Callable[[Expr], Expr | None]) -> Type | None:
    """*t* with *fn* applied (via `map_expr`) to the expressions of its shape, valid shape and view (a tuple
    type's items alike); *t* itself when none of them changed."""
    if isinstance(t, TileType):
        shape = _mapped(t.shape, fn)
        valid = None if t.valid_shape is None else _mapped(t.valid_shape, fn)
        view = None if t.view is None else map_expr(t.view, fn)
        if shape is None and valid is None and view is t.view:
            return t
        return replace(t, shape=t.shape if shape is None else shape,
                       valid_shape=t.valid_shape if valid is None else valid, view=view)
    if isinstance(t, TensorType):
        shape = _mapped(t.shape, fn)
        return t if shape is None else replace(t, shape=shape)
    if isinstance(t, TupleType):
        items = tuple(map_type_exprs(item, fn) or item for item in t.items)
        return t if all(a is b for a, b in zip(items, t.items)) else replace(t, items=items)
    return t


def map_functions(module_or_program: Module | Program, fn: Callable[[Function], Function]):
    """Apply *fn* to every function of a Module or Program."""
    if isinstance(module_or_program, Module):
        return replace(module_or_program, programs=tuple(map_functions(p, fn) for p in module_or_program.programs))
    return replace(module_or_program, functions=tuple(fn(f) for f in module_or_program.functions))


# ---------------------------------------------------------------------------------------------- types of names


ValueTyping = Callable[[Expr, "dict[str, Type]"], "Type | None"]
"""Types an unannotated value the IR alone cannot (an op result, a literal): `ops.value_type`."""


def type_env(fn: Function, value_type: ValueTyping | None = None) -> dict[str, Type]:
    """Every name's type in *fn*: parameters, annotated definitions, identity copies, loop variables
    (INDEX), iter_args (their init's type), untyped return vars (the yielded value's type; then-arm
    first). With *value_type* (the lowering passes give `ops.value_type`: `ir` imports nothing of ours),
    an unannotated op result or literal is typed by it too, and an untyped loop return var that the yield
    does not type takes its init's type; without it those are left out."""
    env: dict[str, Type] = {}
    for p in fn.params:
        if p.type is not None:
            env[p.name] = p.type
    _collect_types(fn.body, env, value_type)
    return env


def _collect_types(body: tuple[Stmt, ...], env: dict[str, Type], value_type: ValueTyping | None) -> None:
    for stmt in body:
        if isinstance(stmt, Assign):
            t = stmt.type if stmt.type is not None else expr_type(stmt.value, env)
            if t is None and value_type is not None:
                t = value_type(stmt.value, env)
            if t is not None:
                env[stmt.target.name] = t
        elif isinstance(stmt, For):
            env[stmt.loop_var.name] = ScalarType(DType.INDEX)
            for arg, init in zip(stmt.iter_args, stmt.inits):
                t = expr_type(init, env)
                if t is not None:
                    env[arg.name] = t
            _collect_types(stmt.body, env, value_type)
            yielded = yield_values(stmt.body)
            for i, (rv, rt) in enumerate(zip(stmt.return_vars, stmt.return_types)):
                t = rt if rt is not None else (expr_type(yielded[i], env) if i < len(yielded) else None)
                if t is None and value_type is not None and i < len(stmt.inits):
                    t = expr_type(stmt.inits[i], env)
                if t is not None:
                    env[rv.name] = t
        elif isinstance(stmt, If):
            _collect_types(stmt.then_body, env, value_type)
            _collect_types(stmt.else_body, env, value_type)
            then_y, else_y = yield_values(stmt.then_body), yield_values(stmt.else_body)
            for i, (rv, rt) in enumerate(zip(stmt.return_vars, stmt.return_types)):
                t = rt
                for arm in (then_y, else_y):
                    if t is None and i < len(arm):
                        t = expr_type(arm[i], env)
                if t is not None:
                    env[rv.name] = t
        elif isinstance(stmt, Scope):
            _collect_types(stmt.body, env, value_type)


def expr_type(expr: Expr, env: dict[str, Type]) -> Type | None:
    """The type of a name in *env* (None for anything else: `type_env` types only names)."""
    v = var_like(expr)
    if v is not None:
        return env.get(v.name)
    return None


def final_yield(body: tuple[Stmt, ...]) -> Yield | None:
    """The `Yield` that ends *body*, if any."""
    return body[-1] if body and isinstance(body[-1], Yield) else None


def yield_values(body: tuple[Stmt, ...]) -> tuple[Expr, ...]:
    """The values of the `Yield` that ends *body*; empty when *body* does not end in one."""
    yielded = final_yield(body)
    return yielded.values if yielded is not None else ()


Node = Union[Expr, Stmt, Type, Function, Program]


# every node class pickles as the tuple of its fields (the worker pool sends a file's IR between processes), and
# is made by an `__init__` that sets its slots directly (`span.slotted_init`)
for _node_class in [c for c in list(globals().values()) if isinstance(c, type) and c.__module__ == __name__
                    and "__dataclass_params__" in c.__dict__ and "__slots__" in c.__dict__
                    and getattr(c, "__dataclass_params__").frozen]:
    pickled_as_fields(_node_class)
    slotted_init(_node_class)
del _node_class
