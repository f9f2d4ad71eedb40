"""PV107 in-bounds: every window a kernel reads or writes lies inside its tensor on every iteration.

Owns: finding the window accesses of a function (any form, as read: Form 1 / 2 source, Form 3 as given)
and posing one `Obligation` each (`smt.prove_bounds` decides them). An access is a slice (`x[a:b, c:d]`,
`pl.slice`, `tile.slice`), a load (`pl.load` / `tile.load`), an `extract` of an on-chip tile, an element
read or write (`pl.read(t, [i, j])`, `pl.write`: extent 1 at one index per axis; one of fewer indices than
the value's rank is not posed), a store
(`pl.store` / `tile.store`: the stored tile's extents) or an assemble (`pl.assemble(y, v, offs)`,
`y[a:b, ...] = v`: `v`'s extents), of a value whose shape is exact (`frontend/shapes.py`: a declared
parameter, an annotation, a created buffer, a slice's own shape). A slice or load with `valid_shape=`
moves only its valid region, and so does a store or assemble of a value that carries one (PTO-ISA TSTORE
moves the tile's valid rows and columns; pypto's `tensor.assemble` transfers the source's valid region):
those extents are the ones checked, the region carried through ops as `frontend/shapes.py` reads pypto's
type deduction. Where it cannot be settled the whole shape is checked, an approximation. A `[1, M, N]` value (a unit-batch matmul) written into a 2-D tensor drops its unit
dimension.

The query (L0C_RULES.md, "Z3 obligations"; STYLE.md §10): in the context of the access — each enclosing
loop variable `v` of `range(start, stop, step)` in its domain (`start <= v < stop` and `(v - start) mod
step == 0` for a literal positive step, the mirror image for a negative one, `v = start + i * step`
with `0 <= i < trips` for a symbolic one), the block index `get_block_idx()` in `[0, n)` inside a
`pl.spmd(n)` loop, the conditions of the enclosing `if` arms, every runtime scalar nonnegative (NOTE:
the precondition every obligation of `smt/` takes) — the violation is that some dimension `d` has
`offset_d < 0` or `offset_d + extent_d > shape_d` (an index in `[0, A * d)` divided by the factor `d` also
gets the facts its quotient and remainder satisfy, `_grid_lemmas`: implied, so no verdict changes, only the
solver's work). Unsatisfiable: PROVED. A model: REFUTED, with the loop
variables and the window it reaches — unless the query mentions a value known only at run time (a
scalar parameter, a value read from a tensor such as `pl.read(seq_lens, [b])`, a dynamic dimension
`pl.dynamic("N")`, a block index outside `pl.spmd`) or an expression the encoder does not model (an
opaque call, a loop carry that is not affine and not updated from run-time reads — one that is, a
running sum or max of counts read from a tensor, is a run-time value too): those are *approximations*, and a model that may rest on
them is INCONCLUSIVE with the reason (PV100), never a refutation. A value of lower rank
than its target covers the target's trailing dimensions and one index of each leading one (pypto: the
InCore `tile.store`'s partition shape is `[1, ..., 1, *tile shape]` (FlattenTileNdTo2D), so the value's
whole shape is checked; the host codegen of `tensor.assemble` also writes `[o, o + 1)` on the leading
dimensions). Not posed, and INCONCLUSIVE with the reason: a
write whose value's extents are a guess, a write of a value of higher rank than its target, an access
of a parameter whose type is not read — except a run-time shaped one (`Param.runtime_shaped`: a bare
`pl.Tensor` of a `pl.jit` entry, which pypto specialises on the tensor each call passes), posed over one
symbol per extent of the tensor passed, taken to have the rank of its windows (all of one rank, else not
posed): conditions, so such an access is at best conditional.

UNSOUND: a slice or load of a value computed by an op whose result shape is a guess (not a window of a
tensor the kernel declares or creates) is not an access here and is not checked.

Indices are encoded by `encode.ExprEncoder` (one scope per access, the loop variables bound to constants
of their own), with `tensor.dim(t, i)` read as `t`'s declared extent, scalar `min` / `max` ops as
`min` / `max`, a scalar cast to an integer type as its operand, and `pl.dynamic("N")` as the symbol `N`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from pypto_verify import ops, rules
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, Expr, For, Function, If, ListExpr, LoopKind, Module, Param, Scope, Span,
    Stmt,
    Sym, TensorType, TileType, TupleExpr, UnaryOp, Var, display_name, stmt_exprs, var_like, walk_exprs, replace,
)
from pypto_verify.frontend.shapes import Shapes, dims_text, expr_text, window_text

from pypto_verify.smt import encode as E
from pypto_verify.smt.obligations import Obligation
from pypto_verify.smt.sites import Carry, Scalars, carries_and_phis, var_label

# ---------------------------------------------------------------------------------------------- accesses


@dataclass(frozen=True, slots=True)
class Loop:
    """An enclosing loop of an access: its variable ranges over `range(start, stop, step)`."""

    var: str
    start: Expr
    stop: Expr
    step: Expr
    kind: LoopKind = LoopKind.RANGE


@dataclass(frozen=True, slots=True)
class Guard:
    """An enclosing `if` arm: `cond` holds (`holds`) or fails on the path to the access."""

    cond: Expr
    holds: bool


@dataclass(frozen=True, slots=True)
class Access:
    """One window read or written: `extents` elements from `offsets` of `tensor` (shape `shape`)."""

    function: str
    verb: str
    """`reads` or `writes`."""
    tensor: str
    """The accessed value as the user named it."""
    shape: tuple[Expr, ...]
    offsets: tuple[Expr, ...]
    extents: tuple[Expr, ...]
    span: Span
    context: tuple[Loop | Guard, ...]
    text: str
    """The access as the user wrote it (`x[:, k0 + 64 : k0 + 128]`)."""
    approximations: tuple[str, ...] = ()
    """What the extents over-approximate (a valid region that is not tracked)."""
    unposed: str = ""
    """Why the access cannot be posed (its extents are not known exactly)."""
    runtime_extents: tuple[Expr, ...] = ()
    """The window's extents where the accessed tensor's shape is unknown (a run-time shaped parameter)."""
    element: bool = False
    """One element (`pl.read` / `pl.write` at one index per axis): the message names its index."""
    start_only: bool = False
    """Check only that the window starts inside the tensor (`offset >= 0`): the part of an access of a
    run-time shaped parameter that its unknown extents do not decide."""


def accesses(fn: Function, shapes: Shapes | None = None) -> list[Access]:
    """Every window *fn* reads or writes, in program order (module docstring)."""
    shapes = shapes or Shapes(fn)
    out: list[Access] = []
    _collect(fn, fn.body, (), shapes, out)
    return [_runtime_shaped(access, out, shapes) for access in out]


def _runtime_shaped(access: Access, every: list[Access], shapes: Shapes) -> Access:
    """An access of a run-time shaped parameter (`Param.runtime_shaped`: pypto specialises a `pl.jit` entry on
    the tensors each call passes) posed over the extents of the tensor passed, one symbol each, the rank
    taken from the windows: a subscript or slice of as many dimensions as the tensor has is a rectangle of
    it (a lower-rank one is a reinterpreting view, pypto's DeduceTensorSliceType), so the rank is part of
    the condition. Left unposed when the function's windows of it disagree on the rank."""
    param = next((p for p in shapes.params.values() if display_name(p.name) == access.tensor), None)
    if not access.unposed or access.shape or not access.runtime_extents or param is None or not param.runtime_shaped:
        return access
    ranks = {len(a.offsets) for a in every if a.tensor == access.tensor and a.unposed and not a.shape}
    if len(ranks) != 1:
        shown = ", ".join(str(r) for r in sorted(ranks))
        return replace(access, unposed=f"{access.unposed}, and its windows disagree on its rank ({shown})")
    rank = ranks.pop()
    dims = tuple(Call(ops.RUNTIME_DIM, (Const(access.tensor), Const(d), Const(rank))) for d in range(rank))
    return replace(access, shape=dims, extents=access.runtime_extents, unposed="")


def _collect(fn: Function, body: tuple[Stmt, ...], context: tuple[Loop | Guard, ...], shapes: Shapes,
             out: list[Access]) -> None:
    for stmt in body:
        if isinstance(stmt, For):
            for expr in (stmt.start, stmt.stop, stmt.step, *stmt.inits):
                _calls_in(fn, stmt, expr, context, shapes, out)
            loop = Loop(stmt.loop_var.name, stmt.start, stmt.stop, stmt.step, stmt.kind)
            _collect(fn, stmt.body, (*context, loop), shapes, out)
        elif isinstance(stmt, If):
            _calls_in(fn, stmt, stmt.cond, context, shapes, out)
            _collect(fn, stmt.then_body, (*context, Guard(stmt.cond, True)), shapes, out)
            _collect(fn, stmt.else_body, (*context, Guard(stmt.cond, False)), shapes, out)
        elif isinstance(stmt, Scope):
            _collect(fn, stmt.body, context, shapes, out)
        else:
            for expr in stmt_exprs(stmt):
                _calls_in(fn, stmt, expr, context, shapes, out)


def _calls_in(fn: Function, stmt: Stmt, expr: Expr, context: tuple[Loop | Guard, ...], shapes: Shapes,
              out: list[Access]) -> None:
    for sub in walk_exprs(expr):
        if isinstance(sub, Call):
            access = _access(fn, stmt, sub, context, shapes)
            if access is not None:
                out.append(access)


def _items(expr: Expr | None) -> tuple[Expr, ...] | None:
    return tuple(expr.items) if isinstance(expr, (ListExpr, TupleExpr)) else None


def _access(fn: Function, stmt: Stmt, call: Call, context: tuple[Loop | Guard, ...],
            shapes: Shapes) -> Access | None:
    """The window *call* reads or writes, if it is an access (module docstring)."""
    level, _, name = call.op.partition(".")
    if level not in ("tensor", "tile"):
        return None
    args = call.args
    span = call.span if call.span.line else getattr(stmt, "span", call.span)
    if name == "slice" and len(args) >= 3:
        base, extents, offsets = args[0], _items(args[1]), _items(args[2])
        valid = _items(args[3] if len(args) > 3 else call.kwarg("valid_shape"))
        verb = "reads"
    elif name == "load" and len(args) >= 3:
        base, offsets, extents = args[0], _items(args[1]), _items(args[2])
        valid = _items(args[3] if len(args) > 3 else call.kwarg("valid_shape"))
        verb = "reads"
    elif name == "extract" and len(args) >= 4:
        base, offsets, extents = args[0], (args[1], args[2]), _items(args[3])
        valid = None
        verb = "reads"
    elif name in ("read", "write") and len(args) >= 2:
        # an element: a window of extent 1 at one index per axis (`pl.read(seq_lens, [b])`)
        base, valid = args[0], None
        offsets = _items(args[1]) if isinstance(args[1], (ListExpr, TupleExpr)) else (args[1],)  # a bare index
        extents = None if offsets is None else tuple(Const(1) for _ in offsets)
        verb = f"{name}s"
    elif name == "store" and len(args) >= 3:
        return _write(fn, call, args[2], args[0], _items(args[1]), span, context, shapes)
    elif name == "assemble" and len(args) >= 3:
        return _write(fn, call, args[0], args[1], _items(args[2]), span, context, shapes)
    else:
        return None
    source = shapes.of(base)
    v = var_like(base)
    if v is not None and source is None and v.name in shapes.params and offsets is not None:
        moved = valid if valid is not None and extents is not None and len(valid) == len(extents) else extents
        text = (window_text(display_name(v.name), offsets, extents) if extents is not None
                and len(extents) == len(offsets) else f"pl.{name}({display_name(v.name)}, ...)")
        return Access(fn.name, verb, display_name(v.name), (), offsets, (), span, context, text,
                      unposed=_undeclared(shapes.params[v.name]), element=name in ("read", "write"),
                      runtime_extents=moved if moved is not None and len(moved) == len(offsets) else ())
    if v is None or source is None or not source.exact or offsets is None or extents is None:
        return None  # not a window of a value whose extents the kernel states
    if len(offsets) != len(source.dims) or len(extents) != len(source.dims):
        return None
    if valid is not None and len(valid) == len(extents):
        extents = valid
    tensor = display_name(v.name)
    text = window_text(tensor, offsets, extents if valid is None else _items(args[1] if name == "slice" else args[2])
                       or extents, source.dims)
    return Access(fn.name, verb, tensor, source.dims, offsets, extents, span, context, text,
                  element=name in ("read", "write"))


def _write(fn: Function, call: Call, dst: Expr, value: Expr, offsets: tuple[Expr, ...] | None, span: Span,
           context: tuple[Loop | Guard, ...], shapes: Shapes) -> Access | None:
    """A store or assemble of *value* into *dst* at *offsets*."""
    target = shapes.of(dst)
    v = var_like(dst)
    if v is not None and target is None and v.name in shapes.params and offsets is not None:
        moved = shapes.of(value)
        exact = moved is not None and moved.exact and moved.valid_known and len(moved.extents) == len(offsets)
        return Access(fn.name, "writes", display_name(v.name), (), offsets, (), span, context,
                      f"pl.{call.op.split('.')[-1]}(..., {display_name(v.name)})", unposed=_undeclared(shapes.params[v.name]),
                      runtime_extents=moved.extents if moved is not None and exact else ())
    if v is None or target is None or not target.exact or offsets is None or len(offsets) != len(target.dims):
        return None
    tensor = display_name(v.name)
    source = shapes.of(value)
    shown = var_like(value)
    value_text = display_name(shown.name) if shown is not None else f"pl.{value.op}(...)" if isinstance(value, Call) else "?"
    if source is None or not source.exact:
        why = (f"the extents of `{value_text}` are not known exactly (its shape is inferred from an op whose "
               "result shape pypto-verify does not model)")
        text = _call_text(call, tensor, value_text, offsets)
        return Access(fn.name, "writes", tensor, target.dims, offsets, (), span, context, text, unposed=why)
    extents = source.extents
    approximations: tuple[str, ...] = ()
    if not source.valid_known:
        approximations = (f"the valid region of `{value_text}` is not tracked (its whole shape is checked)",)
    extra = len(extents) - len(offsets)
    if extra > 0 and all(ops.const_int(e) == 1 for e in extents[:extra]):
        extents = extents[extra:]  # a unit batch dimension (`[1, M, N]` matmul result) written as 2-D
    if len(extents) < len(offsets):
        # a lower-rank value fills the target's trailing dimensions and one index of each leading one: pypto's
        # FlattenTileNdTo2D gives the InCore tile.store the partition shape [1, ..., 1, *tile shape] (the whole
        # tile, so its shape, not its valid region, is checked); the host codegen of tensor.assemble writes
        # `[o, o + 1)` on the leading dimensions too
        extents = (*(Const(1) for _ in range(len(offsets) - len(source.dims))), *source.dims)
    if len(extents) != len(offsets):
        why = (f"a {len(extents)}-D value written into the {len(offsets)}-D `{tensor}`: a value of higher rank "
               "than its target is not a window of it")
        text = _call_text(call, tensor, value_text, offsets)
        return Access(fn.name, "writes", tensor, target.dims, offsets, (), span, context, text, unposed=why)
    text = f"{window_text(tensor, offsets, extents, target.dims)} = {value_text}"
    return Access(fn.name, "writes", tensor, target.dims, offsets, extents, span, context, text, approximations)


def runtime_rank(access: Access) -> int | None:
    """The rank a run-time shaped parameter is taken to have by *access* (`_runtime_shaped`); None for any
    other access."""
    if any(isinstance(d, Call) and d.op == ops.RUNTIME_DIM for d in access.shape):
        return len(access.shape)
    return None


def _undeclared(param: Param) -> str:
    why = param.untyped or "has no type pypto-verify reads"
    return f"its shape is unknown: the parameter `{display_name(param.name)}` {why}"


def _call_text(call: Call, tensor: str, value: str, offsets: tuple[Expr, ...]) -> str:
    """A store or assemble as written: `pl.assemble(y, v, [0, c])`, `pl.store(v, [0, c], y)`."""
    where = "[" + ", ".join(expr_text(o) for o in offsets) + "]"
    if call.op.endswith("store"):
        return f"pl.store({value}, {where}, {tensor})"
    return f"pl.assemble({tensor}, {value}, {where})"


# ---------------------------------------------------------------------------------------------- scalars


def function_scalars(fn: Function, shapes: Shapes) -> Scalars:
    """How *fn*'s scalar names are valued (`sites.Scalars`): inline definitions, scalar parameters, loop
    carries and if-phis. The same reading as `sites._scalars`, over `Shapes`' type environment."""
    types = shapes.env
    defs: dict[str, Expr] = {}

    def tensorish(name: str) -> bool:
        """*name* is a tile or a tensor (not a scalar the encoder values)."""
        return isinstance(types.get(name), (TileType, TensorType)) or shapes.of(Var(name)) is not None

    for stmt in _walk(fn.body):
        if isinstance(stmt, Assign):
            value = stmt.value
            if isinstance(value, (BinOp, UnaryOp, Compare, BoolOp)):
                defs[stmt.target.name] = value
            elif isinstance(value, Const) and not isinstance(value.value, str):
                defs[stmt.target.name] = value
            elif (source := var_like(value)) is not None and not tensorish(source.name):
                defs[stmt.target.name] = value
            elif isinstance(value, Call) and not tensorish(stmt.target.name):
                defs[stmt.target.name] = value

    def scalar(name: str, value: Expr | None) -> bool:
        v = var_like(value)
        return not tensorish(name) and (v is None or not tensorish(v.name))

    carries, phis = carries_and_phis(fn, scalar)
    params = frozenset(p.name for p in fn.params if not tensorish(p.name))
    return Scalars(defs, params, carries, phis)


def _walk(body: tuple[Stmt, ...]) -> list[Stmt]:
    """Every statement of *body* and inside it, pre-order (a list: no generator per nesting level)."""
    out: list[Stmt] = []
    _walk_into(body, out)
    return out


def _walk_into(body: tuple[Stmt, ...], out: list[Stmt]) -> None:
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, For):
            _walk_into(stmt.body, out)
        elif isinstance(stmt, If):
            _walk_into(stmt.then_body, out)
            _walk_into(stmt.else_body, out)
        elif isinstance(stmt, Scope):
            _walk_into(stmt.body, out)


# ---------------------------------------------------------------------------------------------- encoding

_MINMAX = {"min": E.minimum, "max": E.maximum}
_INT_DTYPES = frozenset({"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "INDEX"})


def _iterates(term: E.Term) -> bool:
    """*term* depends on a loop variable of the access (the constants named with `encode.MARK`)."""
    return any(name.startswith(E.MARK) for name in E.consts_in(term))


class _Symbols(E.Symbols):
    """`encode.Symbols` whose user names never merge two SSA values: a second value with the same
    display name (`rows`, `rows__ssa_v1`) keeps its SSA name."""

    def symbol(self, ssa: str) -> E.Term:
        if ssa not in self.names and ssa not in self.values:
            name = display_name(ssa) or ssa
            self.names[ssa] = name if name not in self.names.values() else ssa
        return super().symbol(ssa)


class _Encoder(E.ExprEncoder):
    """`ExprEncoder` for index bounds (module docstring): `tensor.dim` is the declared extent, scalar
    `min` / `max` ops are exact, a scalar cast to an integer type is its operand, `pl.dynamic("N")` is the
    symbol `N`, `get_block_idx()` is the block index of the innermost `pl.spmd` loop; every runtime read
    and every other call is an approximation. Uninterpreted functions are named with their arity and,
    where their arguments depend on the scope, with the query's tag, so the queries of one function can
    be decided together (`solver.discharge_all`)."""

    def __init__(self, symbols: E.Symbols, shapes: Shapes, loop_vars: dict[str, E.Term],
                 iterations: dict[str, E.Term], block: E.Term | None) -> None:
        super().__init__(symbols, loop_vars, iterations)
        self.shapes = shapes
        self.block = block

    def bind(self, name: str, value: E.Term, iteration: E.Term | None = None) -> _Encoder:
        """This scope with one more loop variable (`ExprEncoder.bind`, keeping this encoder's kind)."""
        inner = _Encoder(self.symbols, self.shapes, dict(self.loop_vars), dict(self.iterations), self.block)
        inner.loop_vars[name] = value
        if iteration is not None:
            inner.iterations[name] = iteration
        else:
            inner.iterations.pop(name, None)
        return inner

    def _call(self, call: Call, ssa: str | None) -> E.Term:
        level, _, name = call.op.partition(".")
        args = [a for a in call.args if not isinstance(a, (ListExpr, TupleExpr, Sym))]
        if call.op == "dynamic" and call.args and isinstance(call.args[0], Const):
            label = str(call.args[0].value)
            self.symbols.note(f"`{label}` is a dynamic dimension")
            return self.symbols.symbol(label)
        if call.op == ops.RUNTIME_DIM and len(call.args) == 3:
            tensor, axis, rank = (a.value if isinstance(a, Const) else None for a in call.args)
            self.symbols.note(f"`{tensor}.shape[{axis}]` is an extent of the tensor passed for the bare `pl.Tensor` "
                              f"`{tensor}` (taken as {rank}-D), known only at run time")
            return self.symbols.symbol(f"{tensor}.shape[{axis}]")
        if call.op == "distributed.world_size" and not args:
            # the number of ranks of the communication group: a value of the launch, like a dynamic dimension
            self.symbols.note("the world size `pld.world_size()` is known only at run time")
            return self.symbols.symbol(ssa or "world_size")
        if level not in ("tensor", "tile", "call"):
            return self._unmodelled(call, ssa)
        if name == "dim" and len(call.args) >= 2:
            shape = self.shapes.of(call.args[0])
            axis = ops.const_int(call.args[1])
            if shape is not None and shape.exact and axis is not None and -len(shape.dims) <= axis < len(shape.dims):
                return self.int_(shape.dims[axis])
            param = var_like(call.args[0]) if shape is None else None
            if param is not None and param.name in self.shapes.params and axis is not None and axis >= 0 \
                    and self.shapes.params[param.name].runtime_shaped:
                # the extent of the tensor passed: the symbol its windows' bounds use (`_runtime_shaped`)
                tensor = display_name(param.name)
                self.symbols.note(f"`{tensor}.shape[{axis}]` is an extent of the tensor passed for the bare "
                                  f"`pl.Tensor` `{tensor}`, known only at run time")
                return self.symbols.symbol(f"{tensor}.shape[{axis}]")
        if name in _MINMAX and len(args) == 2 and not call.kwargs and not any(self._tensor(a) for a in args):
            return _MINMAX[name](self.int_(args[0]), self.int_(args[1]))
        if name == "cast" and args and not self._tensor(args[0]) and self._cast_dtype(call) in _INT_DTYPES:
            return self.int_(args[0])
        if name == "get_block_idx" and not args:
            if self.block is not None:
                return self.block
            self.symbols.note("the block index `get_block_idx()` outside a `pl.spmd` loop is known only at run time")
            return self.symbols.symbol(ssa or "block_idx")
        if call.op in ops.SCALAR_READS and call.args:
            return self._read(call, ssa)
        return self._unmodelled(call, ssa)

    def _tensor(self, expr: Expr) -> bool:
        return self.shapes.of(expr) is not None

    @staticmethod
    def _cast_dtype(call: Call) -> str | None:
        for expr in (call.kwarg("target_type"), call.kwarg("dtype"), call.args[1] if len(call.args) > 1 else None):
            if isinstance(expr, Sym):
                return expr.path
        return None

    def _read(self, call: Call, ssa: str | None) -> E.Term:
        """A runtime read: the symbol the user named where its indices do not depend on the loop
        variables, else a function of its indices (one per tensor and arity)."""
        tensor = var_like(call.args[0])
        base = display_name(tensor.name) if tensor is not None else "tensor"
        self.symbols.note(f"`{display_name(ssa)}` is read from `{base}` at run time" if ssa is not None
                          else f"a value is read from `{base}` at run time")
        index_exprs = call.args[1].items if len(call.args) > 1 and isinstance(call.args[1], ListExpr) else call.args[1:]
        indices = [self.int_(e) for e in index_exprs]
        if ssa is not None and not any(_iterates(i) for i in indices):
            return self.symbols.symbol(ssa)
        if not indices:
            return self.symbols.symbol(ssa or base)
        return E.app(f"read.{base}/{len(indices)}", indices, E.INT)

    def _unmodelled(self, call: Call, ssa: str | None) -> E.Term:
        """A call the encoder does not model: a free symbol (its name) where its scalar operands do not
        depend on the loop variables, else an uninterpreted function of them; an approximation."""
        self.symbols.note(f"`{display_name(ssa)}` = `pl.{call.op}(...)` is not modelled" if ssa is not None
                          else f"`pl.{call.op}(...)` is not modelled")
        args = [a for a in call.args if not isinstance(a, Sym)]
        if args and all(self._scalar_operand(a) for a in args):
            terms = [self.int_(a) for a in args]
            if ssa is not None and not any(_iterates(t) for t in terms):
                return self.symbols.symbol(ssa)
            return E.app(f"fn.{call.op}/{len(terms)}", terms, E.INT)
        if ssa is not None and not any(_iterates(t) for t in self.loop_vars.values()):
            return self.symbols.symbol(ssa)
        return self._opaque(call, f"`pl.{call.op}(...)`")

    def _carry(self, ssa: str, carry: Carry) -> E.Term:
        """`ExprEncoder._carry`, its uninterpreted function (a carry that is not affine) named with its
        arity: the scopes one query values a carry in may hold different loop variables. A carry that each
        iteration updates from values read at run time (`b = b + n`, `m = max(m, n)`, a counter advanced
        under a condition on `n`; `n = pl.read(counts, [i])`) is itself such a value: a condition on the
        run-time inputs, not a gap of the encoding."""
        before = list(self.symbols.approximations)
        term = _with_arity(super()._carry(ssa, carry))
        affine = f"the loop-carried scalar `{display_name(ssa)}` (line {carry.span.line}) is not affine in the iteration"
        if affine not in before and affine in self.symbols.approximations and self._updated_from_reads(carry):
            self.symbols.approximations.remove(affine)
            self.symbols.note(f"`{display_name(ssa)}` (line {carry.span.line}) is updated from values read at run time")
        return term

    def _updated_from_reads(self, carry: Carry) -> bool:
        """The value *carry*'s loop yields is valued by run-time reads, the iter_arg and the loop variables
        only (encoded on a scratch copy of the symbols, so nothing is noted here)."""
        if carry.yielded is None:
            return False
        probe = _Encoder(replace(self.symbols, names=dict(self.symbols.names), approximations=[],
                                 free=dict(self.symbols.free)), self.shapes,
                         dict(self.loop_vars), dict(self.iterations), self.block)
        inner = probe.bind(carry.loop_var, E.const(f"{E.MARK}carry-var.{carry.loop_var}")) \
            .bind(carry.arg, E.const(f"{E.MARK}carry.{carry.arg}"))
        inner.int_(carry.yielded)
        notes = inner.symbols.approximations
        return all(_is_condition(n) for n in notes) and any(n.endswith("at run time") for n in notes)

    def _opaque(self, expr: Expr, what: str) -> E.Term:
        """`ExprEncoder._opaque`, named for this query (its arguments are the loop variables in scope)."""
        self.symbols.note(f"{what} is not modelled")
        key = f"opaque.{self.symbols.tag}.{hashlib.sha1(repr(expr).encode()).hexdigest()[:10]}"
        values = tuple(self.loop_vars[k] for k in sorted(self.loop_vars))
        return E.app(f"{key}/{len(values)}", values, E.INT) if values else E.const(E.MARK + key)


def _with_arity(term: E.Term) -> E.Term:
    """*term* with every uninterpreted function whose name has no arity yet named `<name>/<arity>`."""
    if not term.args:
        return term
    args = tuple(_with_arity(a) for a in term.args)
    if term.head == "app":
        name = term.value if "/" in term.value else f"{term.value}/{len(args)}"
        return E.app(name, args, term.sort)
    if all(x is y for x, y in zip(args, term.args)):
        return term
    return E.Term(term.head, args, term.value, term.sort)


@dataclass
class _Query:
    """One access encoded: its assumptions, violation, witnesses and the names to explain a model."""

    assumptions: list[E.Term] = field(default_factory=list)
    loops: list[tuple[str, E.Term]] = field(default_factory=list)
    """(the user's loop variable, its constant), outermost first."""


def obligation(access: Access, shapes: Shapes, scalars: Scalars, site: str) -> Obligation:
    """PV107 on one access (module docstring)."""
    symbols = _Symbols(scalars, site.split(":bounds:")[-1])
    loop_vars: dict[str, E.Term] = {}
    query = _Query()
    spmd: Loop | None = None
    for ctx in access.context:
        if isinstance(ctx, Loop):
            loop_vars[ctx.var] = E.const(f"{E.MARK}v.{ctx.var}")
            if ctx.kind is LoopKind.SPMD:
                spmd = ctx
    block = E.const(f"{E.MARK}block") if spmd is not None else None
    encoder = _Encoder(symbols, shapes, loop_vars, {}, block)
    ranges: list[tuple[E.Term, E.Term]] = []
    """(index, n) for each index the query takes in `[0, n)`: the block index, a loop `range(n)`."""
    if spmd is not None and block is not None:
        # the block index of a `pl.spmd(n)` region runs over its n blocks
        stop = encoder.int_(spmd.stop)
        trips = E.trip_count(encoder.int_(spmd.start), stop, encoder.int_(spmd.step))
        query.assumptions += [E.le(E.ZERO, block), E.lt(block, trips)]
        if ops.const_int(spmd.start) == 0 and ops.const_int(spmd.step) == 1:
            ranges.append((block, stop))  # trips is `stop` (when positive): the block is in [0, stop)
    seen: dict[str, int] = {}
    for ctx in access.context:
        if isinstance(ctx, Loop):
            v = loop_vars[ctx.var]
            start, stop, step = encoder.int_(ctx.start), encoder.int_(ctx.stop), encoder.int_(ctx.step)
            if step.head == "int" and step.value > 0:
                query.assumptions += [E.le(start, v), E.lt(v, stop), E.eq(E.floormod(E.sub(v, start), step), E.ZERO)]
                if start.head == "int" and start.value == 0 and step.value == 1:
                    ranges.append((v, stop))
            elif step.head == "int" and step.value < 0:
                query.assumptions += [E.le(v, start), E.lt(stop, v),
                                      E.eq(E.floormod(E.sub(start, v), E.neg(step)), E.ZERO)]
            elif step.head == "int":
                query.assumptions.append(E.FALSE)  # step 0: the frontend rejects it; the body never runs
            else:
                i = E.const(f"{E.MARK}i.{ctx.var}")
                query.assumptions += [E.le(E.ZERO, i), E.lt(i, E.trip_count(start, stop, step)),
                                      E.eq(v, E.add(start, E.mul(i, step)))]
            label = var_label(ctx.var)
            seen[label] = seen.get(label, 0) + 1
            query.loops.append((label if seen[label] == 1 else f"{label}#{seen[label]}", v))
        else:
            c = encoder.bool_(ctx.cond)
            query.assumptions.append(c if ctx.holds else E.not_(c))
    lows = [encoder.int_(o) for o in access.offsets]
    widths = [encoder.int_(e) for e in access.extents]
    highs = [E.add(lo, w) for lo, w in zip(lows, widths)]
    dims = highs if access.start_only else [encoder.int_(d) for d in access.shape]
    violation = E.or_(*(E.or_(E.lt(lo, E.ZERO), E.gt(hi, dim)) for lo, hi, dim in zip(lows, highs, dims)))
    free = dict(sorted(symbols.free.items()))
    assumptions = (*query.assumptions, *(E.le(E.ZERO, t) for t in free.values()),
                   *_grid_lemmas(ranges, (*query.assumptions, violation)))
    witnesses: list[tuple[str, E.Term]] = [(f"loop.{label}", v) for label, v in query.loops]
    witnesses += [(f"sym.{name}", t) for name, t in free.items()]
    for d, (lo, hi, dim) in enumerate(zip(lows, highs, dims)):
        witnesses += [(f"lo.{d}", lo), (f"hi.{d}", hi), (f"dim.{d}", dim)]
    approximations = list(access.approximations)
    conditions: list[str] = []
    for note in symbols.approximations:
        kept = conditions if _is_condition(note) else approximations
        if note not in kept:
            kept.append(note)
    for name in free:
        if not any(f"`{name}`" in a for a in (*approximations, *conditions)):
            conditions.append(f"`{name}` is a value known only at run time")

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        return _explain(access, values, [label for label, _ in query.loops], list(free))

    return Obligation(rules.IN_BOUNDS, site, "", tuple(assumptions), violation, tuple(witnesses),
                      tuple(approximations), access.span, explain,
                      f"`{access.text}` lies inside `{access.tensor}` (shape {dims_text(access.shape)})",
                      access.function, access.unposed, tuple(conditions))


def _grid_lemmas(ranges: list[tuple[E.Term, E.Term]], terms: tuple[E.Term, ...]) -> list[E.Term]:
    """Facts that make a grid launch's index arithmetic easy for the solver, each implied by the query.

    A kernel walks a grid of `A * d` blocks with one index (`pl.spmd(t_dim * works)`, then `t = idx // works`
    and `work = idx - t * works`); with `d` symbolic, `idx // d` and the products with `d` in the window's
    offset are non-linear, and z3 does not decide the query within its budget. For each index in `[0, n)`
    (*ranges*) whose quotient `index // d` the query takes (*terms*) by a factor `d` of `n = A * d`, fresh
    `q`, `r` with `A >= 0 and d >= 0 -> index = q * d + r, 0 <= q < A, 0 <= r < d` and
    `d > 0 -> index // d = q`. Sound and complete: for every value of the query's constants that satisfies
    it, `q = index // d` and `r = index % d` satisfy the facts (`0 <= index < A * d` with `A, d >= 0` makes
    `d > 0` and `q < A`), so the query is satisfiable exactly when it was; the solver then reads the row
    of block `q` and the lane `r` instead of dividing."""
    lemmas: list[E.Term] = []
    for index, n in ranges:
        factors = _factors(n)
        if len(factors) < 2:
            continue
        for divisor in _divisors_of(index, terms):
            rest = list(factors)
            for f in _factors(divisor):
                if f not in rest:
                    break
                rest.remove(f)
            else:
                if not rest:
                    continue
                other = rest[0]
                for f in rest[1:]:
                    other = E.mul(other, f)
                k = len(lemmas) // 2
                q, r = E.const(f"{E.MARK}grid.q.{k}"), E.const(f"{E.MARK}grid.r.{k}")
                lemmas += [
                    E.implies(E.and_(E.le(E.ZERO, other), E.le(E.ZERO, divisor)),
                              E.and_(E.eq(index, E.add(E.mul(q, divisor), r)), E.le(E.ZERO, q), E.lt(q, other),
                                     E.le(E.ZERO, r), E.lt(r, divisor))),
                    E.implies(E.gt(divisor, E.ZERO), E.eq(E.floordiv(index, divisor), q))]
    return lemmas


def _factors(term: E.Term) -> list[E.Term]:
    """The factors of a product term (`(* a (* b c))` -> a, b, c); a term that is no product is its own."""
    if term.head == "*":
        return [f for a in term.args for f in _factors(a)]
    return [term]


def _divisors_of(index: E.Term, terms: tuple[E.Term, ...]) -> list[E.Term]:
    """The divisors `d` of every `index div d` in *terms* (how `E.floordiv(index, d)` renders), in order of
    first appearance."""
    found: list[E.Term] = []
    stack, seen = list(reversed(terms)), set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.head == "div" and t.args[0] is index and t.args[1] not in found:
            found.append(t.args[1])
        stack.extend(reversed(t.args))
    return found


def _is_condition(note: str) -> bool:
    """*note* names a run-time input (a value read from a tensor, a dynamic dimension, a block index or a
    scalar known only at run time), not a gap of the encoding (an unmodelled op, a guessed shape)."""
    return note.endswith(("at run time", "is a dynamic dimension")) or "known only at run time" in note


_DIM_NAMES = {2: ("rows", "columns")}


def _explain(access: Access, values: dict[str, int | bool], loops: list[str],
             free: list[str]) -> tuple[str, dict[str, int | str], Span | None]:
    """The message and counterexample of a model: the first dimension the window leaves."""
    def value(key: str) -> int | None:
        v = values.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    where = [(name, value(f"loop.{name}")) for name in loops]
    where += [(name, value(f"sym.{name}")) for name in free]
    shown = [(n, v) for n, v in where if v is not None]
    counterexample: dict[str, int | str] = {n: v for n, v in shown if v is not None}
    rank = len(access.offsets)
    message = f"`{access.text}` {access.verb} outside `{access.tensor}` (shape {dims_text(access.shape)})"
    for d in range(rank):
        lo, hi, dim = value(f"lo.{d}"), value(f"hi.{d}"), value(f"dim.{d}")
        if lo is None or hi is None or dim is None or (lo >= 0 and hi <= dim):
            continue
        names = _DIM_NAMES.get(rank)
        what = names[d] if names else f"dimension {d}"
        shape = "[" + ", ".join(str(value(f"dim.{i}")) for i in range(rank)) + "]"
        if access.element:
            index = ", ".join(str(value(f"lo.{i}")) for i in range(rank))
            message = f"`{access.text}` {access.verb} element [{index}] of `{access.tensor}` (shape {shape})"
            counterexample["element"] = f"[{index}]"
            counterexample["shape"] = shape
            break
        if access.start_only:
            message = f"`{access.text}` {access.verb} {what} [{lo}, {hi}) of `{access.tensor}`, before its start"
            counterexample[what] = f"[{lo}, {hi})"
            break
        message = f"`{access.text}` {access.verb} {what} [{lo}, {hi}) of `{access.tensor}` (shape {shape})"
        counterexample[what] = f"[{lo}, {hi})"
        counterexample["shape"] = shape
        break
    if shown:
        message += " at " + ", ".join(f"{n} = {v}" for n, v in shown)
    return message, counterexample, access.span


# ---------------------------------------------------------------------------------------------- module


def module_obligations(module: Module) -> list[tuple[Access, Obligation]]:
    """PV107 on every access of every function of *module*, in program order."""
    out: list[tuple[Access, Obligation]] = []
    for _, fn in module.functions():
        out.extend(function_obligations(fn))
    return out


def function_obligations(fn: Function, shapes: Shapes | None = None) -> list[tuple[Access, Obligation]]:
    """PV107 on every access of *fn*, each with its obligation; site ids `<function>:bounds:<line>:<col>`
    (`.2`, ... for a second access at one place). An access of a run-time shaped parameter has two, its
    start (`Access.start_only`) first: `smt.prove_bounds` gives it one outcome, the worse. *shapes*: *fn*'s
    valid regions when already worked out."""
    shapes = shapes or Shapes(fn)
    found = accesses(fn, shapes)
    if not found:
        return []
    scalars = function_scalars(fn, shapes)
    out: list[tuple[Access, Obligation]] = []
    seen: dict[str, int] = {}
    for access in found:
        site = f"{fn.name}:bounds:{access.span.line}:{access.span.col}"
        seen[site] = seen.get(site, 0) + 1
        if seen[site] > 1:
            site = f"{site}.{seen[site]}"
        if any(isinstance(d, Call) and d.op == ops.RUNTIME_DIM for d in access.shape):
            # its start does not depend on the extents passed: a window before it is refuted, not conditional
            out.append((access, obligation(replace(access, start_only=True), shapes, scalars, site)))
        out.append((access, obligation(access, shapes, scalars, site)))
    return out


__all__ = ["Access", "Guard", "Loop", "accesses", "function_obligations", "module_obligations", "obligation",
           "runtime_rank"]
