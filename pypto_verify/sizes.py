"""Symbolic sizes bound to samples: a kernel with `pl.dynamic` dimensions, simulated at concrete values.

Owns: which `pl.dynamic("N")` sizes a kernel's tensor parameters have (`dynamic_names`), the sample
values the dynamic check binds them to (`sample_bindings`), the check of a user's `--sim-bind NAME=VALUE`
(`check_binding`), and the kernel with its sizes replaced by those values (`bind_sizes`). The static pass
proved the kernel for every value; the simulation is evidence at the samples, and the samples are reported
with its result.
Input: a source or lowered `Function`. Output: values, or the function with `Const`s for its sizes.
Layering: imports only `ir` (STYLE.md §1).

Conventions:
- The tiling unit of a size is the least common multiple of the constant divisors `C > 1` of the floor
  divisions and remainders of values computed from it (`t_dim // T_TILE`, `n % 64`, with `t_dim` from
  `pl.tensor.dim` of a dimension of that size) and of the constant extents of slices along a dimension of
  that size (`x[t0 : t0 + T_TILE, :]`): the size is sampled at a multiple of it, so every tile loop runs
  whole tiles. `pl.dynamic` declares no bounds; a size is at least 1.
- Samples, in order: two tiles of each size (`2 * unit`); and, when the kernel has a remainder path (a `%`,
  a `valid_shape` or a `min`), a tail case `2 * unit + unit // 2` (`+ 1` when the unit is 1). The dynamic
  check keeps a sample only when the reference runs with every window in range at it (the kernel's own
  validity), and names the ones it could not show valid.
- A user's value must be at least 1 and a multiple of the unit unless the kernel has a remainder path.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from dataclasses import replace

from pypto_verify.ir import (
    Assign, BinOp, Call, Const, Eval, Expr, For, Function, If, ListExpr, Param, TensorType, TileType, TupleExpr,
    TupleType, Type, Var,
    defined_names, map_expr, map_stmt_exprs, map_stmts, stmt_exprs, var_like, walk_exprs, walk_stmts,
)

DYNAMIC = "dynamic"
BIND_DYNAMIC = "method.bind_dynamic"
TENSOR_DIM = "tensor.dim"
TENSOR_SLICE = "tensor.slice"


def _size_name(expr: Expr) -> str | None:
    if isinstance(expr, Call) and expr.op == DYNAMIC and expr.args and isinstance(expr.args[0], Const) \
            and isinstance(expr.args[0].value, str):
        return expr.args[0].value
    return None


def _type_exprs(t: Type | None) -> list[Expr]:
    if isinstance(t, TensorType):
        return list(t.shape)
    if isinstance(t, TileType):
        return [*t.shape, *(t.valid_shape or ())]
    if isinstance(t, TupleType):
        return [e for item in t.items for e in _type_exprs(item)]
    return []


def _all_exprs(fn: Function) -> list[Expr]:
    out: list[Expr] = [e for p in fn.params for e in _type_exprs(p.type)]
    for stmt in walk_stmts(fn.body):
        out.extend(stmt_exprs(stmt))
        if isinstance(stmt, Assign):
            out.extend(_type_exprs(stmt.type))
    return out


def dynamic_names(fn: Function) -> list[str]:
    """The `pl.dynamic` sizes of *fn*'s tensor parameters, in order of first appearance. A symbolic value
    used elsewhere only (a module constant the frontend could not evaluate, a float threshold) is not a
    size: it is never bound, and the emitter then says why the kernel is not simulated."""
    names: list[str] = []
    for top in (d for p in fn.params if isinstance(p.type, TensorType) for d in p.type.shape):
        for expr in walk_exprs(top):
            name = _size_name(expr)
            if name is not None and name not in names:
                names.append(name)
    return names


def tiling_unit(fn: Function, name: str) -> int:
    """The least common multiple of the constant divisors of *fn*'s floor divisions and remainders of a
    value computed from the size *name*, and of the constant extents of its slices along a parameter
    dimension of that size."""
    axes = {p.name: [_size_name(d) == name for d in p.type.shape]
            for p in fn.params if isinstance(p.type, TensorType)}
    derived = _derived(fn, name, axes)
    unit = 1
    for top in _all_exprs(fn):
        for expr in walk_exprs(top):
            if isinstance(expr, BinOp) and expr.op in ("//", "%") and _uses(expr.lhs, name, axes, derived):
                unit = math.lcm(unit, _positive(expr.rhs))
            elif isinstance(expr, Call) and expr.op == TENSOR_SLICE and len(expr.args) > 1:
                tensor, extents = var_like(expr.args[0]), expr.args[1]
                sized = axes.get(tensor.name, []) if tensor is not None else []
                if isinstance(extents, (ListExpr, TupleExpr)) and len(extents.items) == len(sized):
                    for extent, is_size in zip(extents.items, sized):
                        unit = math.lcm(unit, _positive(extent) if is_size else 1)
    return unit


def _derived(fn: Function, name: str, axes: Mapping[str, list[bool]]) -> set[str]:
    """The variables of *fn* whose value is computed from the size *name* (in program order)."""
    derived: set[str] = set()
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and _uses(stmt.value, name, axes, derived):
            derived.add(stmt.target.name)
        elif isinstance(stmt, For) and any(_uses(e, name, axes, derived) for e in (stmt.start, stmt.stop, stmt.step)):
            derived.add(stmt.loop_var.name)
    return derived


def _uses(expr: Expr, name: str, axes: Mapping[str, list[bool]], derived: set[str]) -> bool:
    """Whether *expr* reads the size *name*: itself, a variable computed from it, or `pl.tensor.dim`
    of a parameter's dimension of that size."""
    for x in walk_exprs(expr):
        if _size_name(x) == name or (isinstance(x, Var) and x.name in derived):
            return True
        if isinstance(x, Call) and x.op == TENSOR_DIM and len(x.args) == 2:
            tensor, axis = var_like(x.args[0]), x.args[1]
            sized = axes.get(tensor.name, []) if tensor is not None else []
            if isinstance(axis, Const) and isinstance(axis.value, int) and -len(sized) <= axis.value < len(sized) \
                    and sized[axis.value]:
                return True
    return False


def _positive(expr: Expr) -> int:
    """*expr*'s value when it is an integer constant above 1, else 1."""
    if isinstance(expr, Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool) and expr.value > 1:
        return expr.value
    return 1


def has_remainder_path(fn: Function) -> bool:
    """Whether *fn* handles a partial tile: a `%`, a `valid_shape` or a `min`."""
    for top in _all_exprs(fn):
        for expr in walk_exprs(top):
            if isinstance(expr, BinOp) and expr.op in ("%", "min"):
                return True
            if isinstance(expr, Call) and (expr.op == "min" or expr.kwarg("valid_shape") is not None):
                return True
    return False


def sample_bindings(fn: Function) -> list[dict[str, int]]:
    """The sample bindings of *fn*'s sizes, in order (module docstring); `[{}]` when it has none."""
    units = {name: tiling_unit(fn, name) for name in dynamic_names(fn)}
    samples = [{name: 2 * unit for name, unit in units.items()}]
    if units and has_remainder_path(fn):
        samples.append({name: 2 * unit + (unit // 2 if unit > 1 else 1) for name, unit in units.items()})
    return samples


def check_binding(fn: Function, name: str, value: int) -> str | None:
    """Why `name=value` cannot bind a size of *fn* (None: it can)."""
    names = dynamic_names(fn)
    if name not in names:
        known = ", ".join(names) if names else "none"
        return f"`{name}` is not a `pl.dynamic` size of the kernel (its sizes: {known})"
    if value < 1:
        return f"`{name}={value}` is outside its bounds: a size is at least 1"
    unit = tiling_unit(fn, name)
    if value % unit and not has_remainder_path(fn):
        return (f"`{name}={value}` is not a multiple of {unit}, the tiling the kernel divides its sizes by, "
                f"and the kernel has no remainder path")
    return None


_FOLD = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod}
"""The integer arithmetic `bind_sizes` folds (of non-negative constants; `//` and `%` by a positive one)."""


def _natural(expr: Expr) -> int | None:
    """*expr*'s value when it is a non-negative integer constant, else None."""
    if isinstance(expr, Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool) and expr.value >= 0:
        return expr.value
    return None


def _assigned_once(fn: Function) -> set[str]:
    """The names *fn* assigns exactly once (and never as a loop variable or a carried value)."""
    counts: dict[str, int] = {}
    for stmt in walk_stmts(fn.body):
        for name in defined_names(stmt):
            counts[name] = counts.get(name, 0) + (1 if isinstance(stmt, Assign) else 2)
    return {name for name, count in counts.items() if count == 1}


def bind_sizes(fn: Function, values: Mapping[str, int]) -> Function:
    """*fn* with every `pl.dynamic` size named in *values* replaced by its value, a variable assigned
    once to a value that became a constant replaced by it, integer arithmetic of constants folded (so a
    shape written `[t_dim, D]` is static), and its `bind_dynamic` statements, which only name the sizes,
    dropped."""
    if not values:
        return fn

    shapes: dict[str, tuple[Expr, ...]] = {}
    once = _assigned_once(fn)
    known: dict[str, int] = {}
    """Variables assigned once, to a value the binding made a constant (`t_dim = pl.tensor.dim(x, 0)`)."""

    def expr_fn(expr: Expr) -> Expr | None:
        name = _size_name(expr)
        if name is not None and name in values and isinstance(expr, Call):
            return Const(values[name], span=expr.span)
        if isinstance(expr, Var) and type(expr) is Var and expr.name in known:
            return Const(known[expr.name], span=expr.span)
        if isinstance(expr, BinOp):
            lhs, rhs = _natural(expr.lhs), _natural(expr.rhs)
            if lhs is not None and rhs is not None and expr.op in _FOLD and (rhs > 0 or expr.op in "+-*"):
                return Const(_FOLD[expr.op](lhs, rhs), span=expr.span)
        if isinstance(expr, Call) and expr.op == TENSOR_DIM and len(expr.args) == 2:
            # `pl.tensor.dim(x, k)` of a parameter whose dimension is now a value: that value
            tensor, axis = var_like(expr.args[0]), expr.args[1]
            shape = shapes.get(tensor.name) if tensor is not None else None
            if shape is not None and isinstance(axis, Const) and isinstance(axis.value, int) \
                    and -len(shape) <= axis.value < len(shape):
                dim = shape[axis.value]
                if isinstance(dim, Const):
                    return Const(dim.value, span=expr.span)
        return None

    def bind_type(t: Type) -> Type:
        if isinstance(t, TensorType):
            return replace(t, shape=tuple(map_expr(e, expr_fn) for e in t.shape))
        if isinstance(t, TileType):
            valid = None if t.valid_shape is None else tuple(map_expr(e, expr_fn) for e in t.valid_shape)
            return replace(t, shape=tuple(map_expr(e, expr_fn) for e in t.shape), valid_shape=valid)
        if isinstance(t, TupleType):
            return replace(t, items=tuple(bind_type(i) for i in t.items))
        return t

    def stmt_fn(stmt):
        if isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == BIND_DYNAMIC:
            return ()  # `x.bind_dynamic(0, N)` names a size the types now hold as a value
        before = stmt
        stmt = map_stmt_exprs(stmt, expr_fn)
        if isinstance(stmt, Assign) and isinstance(before, Assign) and stmt.target.name in once:
            value = _natural(stmt.value)
            if value is not None and _natural(before.value) is None:
                known[stmt.target.name] = value
        if isinstance(stmt, Assign) and stmt.type is not None:
            stmt = replace(stmt, type=bind_type(stmt.type))
        elif isinstance(stmt, (For, If)):
            stmt = replace(stmt, return_types=tuple(None if t is None else bind_type(t) for t in stmt.return_types))
        return (stmt,)

    params = tuple(replace(p, type=bind_type(p.type)) if isinstance(p, Param) and p.type is not None else p
                   for p in fn.params)
    shapes.update((p.name, p.type.shape) for p in params if isinstance(p.type, TensorType))
    return replace(fn, params=params, body=map_stmts(fn.body, stmt_fn),
                   return_types=tuple(bind_type(t) for t in fn.return_types))
