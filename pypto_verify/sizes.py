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
- A kernel launched with a block index its launcher gives (`callees.block_launched`) also binds `BLOCKS`:
  when its blocks split a size (windows of one height `E` along it, offset by the block index:
  `block_extent`), `E` joins the size's unit and the launch has `ceil(value / E)` blocks (`launch_blocks`),
  the grid its launcher would give; else `BLOCK_SAMPLE` blocks.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace

from pypto_verify.ir import (
    Assign, BinOp, Call, Const, Eval, Expr, For, Function, If, ListExpr, Param, Stmt, TensorType, TileType,
    TupleExpr, TupleType, Type, Var,
    defined_names, map_expr, map_stmt_exprs, map_stmts, stmt_exprs, type_env, var_like, walk_exprs, walk_stmts,
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


size_name = _size_name
"""The name of the `pl.dynamic("N")` size *expr* is (`N`), or None when it is not one."""


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
    size: it is not bound here (`module_values` samples one used only as an op's scalar operand)."""
    names: list[str] = []
    for top in (d for p in fn.params if isinstance(p.type, TensorType) for d in p.type.shape):
        for expr in walk_exprs(top):
            name = _size_name(expr)
            if name is not None and name not in names:
                names.append(name)
    return names


def module_values(fn: Function) -> list[str]:
    """The symbolic values of *fn* that are no size: module values the frontend could not evaluate (computed
    when the module is imported, e.g. with torch) used only as the scalar operand of a tile or tensor op
    (`pl.cmp(x, _b0, ...)`), in order of first appearance. A value that also shapes something (a type, a loop
    bound, an offset or extent) is not one: a size no sample binds."""
    sizes = set(dynamic_names(fn))
    operand: list[str] = []
    elsewhere: set[str] = set()
    for top in _all_exprs(fn):
        for expr in walk_exprs(top):
            if isinstance(expr, Call) and expr.op.partition(".")[0] in ("tile", "tensor"):
                operand.extend(n for arg in expr.args[1:] if (n := _size_name(arg)) is not None and n not in operand)
                continue
            subs = (getattr(expr, "lhs", None), getattr(expr, "rhs", None), *getattr(expr, "items", ()))
            elsewhere.update(n for sub in subs if sub is not None and (n := _size_name(sub)) is not None)
    for p in fn.params:
        for top in _type_exprs(p.type):
            elsewhere.update(n for e in walk_exprs(top) if (n := _size_name(e)) is not None)
    return [n for n in dict.fromkeys(operand) if n not in sizes and n not in elsewhere]


def module_value_samples(names: list[str]) -> dict[str, float]:
    """Sample values of *names* (`module_values`), ascending in their order: multiples of 1/16 around 0, exact
    in bf16, f16 and f32 and never equal to an input element (the odd multiples of 2^-8, `dynamic`)."""
    middle = len(names) // 2
    return {name: (i - middle) / 16 for i, name in enumerate(names)}


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


BLOCK_INDEX = frozenset({"tile.get_block_idx", "tensor.get_block_idx"})
"""`pl.tile.get_block_idx()` / `pl.get_block_idx()` (`ops.BLOCK_IDX`; this module imports only `ir`)."""
BLOCKS = "blocks"
"""The block count of a kernel whose launcher gives its block index (`callees.block_launched`), bound like a size:
`BLOCK_SAMPLE` by default, or `--sim-bind blocks=N`."""
BLOCK_SAMPLE = 2
"""The block count a block-launched kernel is simulated at: two instances, so a block index other than 0 runs."""


def sample_bindings(fn: Function, launched: bool = False) -> list[dict[str, int]]:
    """The sample bindings of *fn*'s sizes, in order (module docstring); `[{}]` when it has none. A kernel
    *launched* with a block index its launcher gives has `BLOCKS` in each (`launch_blocks`), and a size its
    blocks split keeps two of their windows in its unit (`block_extent`), as a slice's extent does."""
    units = {name: tiling_unit(fn, name) for name in dynamic_names(fn)}
    if launched:
        units = {name: math.lcm(unit, block_extent(fn, name) or 1) for name, unit in units.items()}
    samples = [{name: 2 * unit for name, unit in units.items()}]
    if units and has_remainder_path(fn):
        samples.append({name: 2 * unit + (unit // 2 if unit > 1 else 1) for name, unit in units.items()})
    if launched and BLOCKS not in units:
        samples = [{**sample, BLOCKS: launch_blocks(fn, sample)} for sample in samples]
    return samples


def launch_blocks(fn: Function, sizes: Mapping[str, int]) -> int:
    """The block count a launched *fn* runs at with *sizes* bound: enough blocks of `block_extent` rows to
    cover each size its blocks split (the last one partial, as a launcher's `ceil(T / T_TILE)` grid), and no
    more, so every block's windows start inside the tensor; `BLOCK_SAMPLE` when the blocks split no size."""
    counts = [-(-value // extent) for name, value in sizes.items()
              if name != BLOCKS and (extent := block_extent(fn, name))]
    return max(counts) if counts else BLOCK_SAMPLE


def block_extent(fn: Function, name: str) -> int | None:
    """The rows each launched block of *fn* takes along the size *name*: the constant extent, along a
    dimension of that size, of the windows of its tensor parameters whose offset there is computed from the
    block index (`pl.load(x, [pl.tile.get_block_idx() * 8, 0], [8, 128])`); None when it has none, or they
    disagree."""
    axes = {p.name: [_size_name(d) == name for d in p.type.shape]
            for p in fn.params if isinstance(p.type, TensorType)}
    from_block: set[str] = set()
    """The variables computed from the block index (in program order)."""
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and _reads_block(stmt.value, from_block):
            from_block.add(stmt.target.name)
    extents: set[int | None] = set()
    for top in _all_exprs(fn):
        for expr in walk_exprs(top):
            if not (isinstance(expr, Call) and expr.op in ("tile.load", TENSOR_SLICE) and len(expr.args) >= 3):
                continue
            tensor = var_like(expr.args[0])
            sized = axes.get(tensor.name, []) if tensor is not None else []
            offsets, shape = (expr.args[1], expr.args[2]) if expr.op == "tile.load" else (expr.args[2], expr.args[1])
            if not (isinstance(offsets, (ListExpr, TupleExpr)) and isinstance(shape, (ListExpr, TupleExpr))
                    and len(offsets.items) == len(shape.items) == len(sized)):
                continue
            extents.update(_natural(extent) for offset, extent, is_size in zip(offsets.items, shape.items, sized)
                           if is_size and _reads_block(offset, from_block))
    return extents.pop() if len(extents) == 1 else None


def _reads_block(expr: Expr, from_block: set[str]) -> bool:
    """Whether *expr* reads the block index: itself, or a variable computed from it."""
    return any(isinstance(x, Call) and x.op in BLOCK_INDEX or isinstance(x, Var) and x.name in from_block
               for x in walk_exprs(expr))


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


def assigned_once(fn: Function) -> set[str]:
    """The names *fn* assigns exactly once (and never as a loop variable or a carried value)."""
    counts: dict[str, int] = {}
    for stmt in walk_stmts(fn.body):
        for name in defined_names(stmt):
            counts[name] = counts.get(name, 0) + (1 if isinstance(stmt, Assign) else 2)
    return {name for name, count in counts.items() if count == 1}


def bind_sizes(fn: Function, values: Mapping[str, int] | Mapping[str, float]) -> Function:
    """*fn* with every `pl.dynamic` size named in *values* replaced by its value, a variable assigned
    once to a value that became a constant replaced by it, integer arithmetic of constants folded (so a
    shape written `[t_dim, D]` is static), and its `bind_dynamic` statements, which only name the sizes,
    dropped."""
    if not values:
        return fn

    shapes: dict[str, tuple[Expr, ...]] = {}
    once = assigned_once(fn)
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


# ---------------------------------------------------------------------------------------------- shrunk constants
#
# Issue 14 item 4: a kernel over a model's whole weights (an lm_head over a vocabulary of 152064 rows) is
# simulated with a module size constant made smaller, only when the lowering at the smaller value is the
# one the static pass verified at the real value but for loop trip counts and GM tensor extents
# (`plan_difference`): the same tiles, memory spaces, offsets, aliasing and per-iteration bodies.

SIM_BUDGET_ELEMENTS = 1 << 24
"""Input elements above which a kernel is simulated with its size constants shrunk, when the lowering allows
it (`plan_difference`); a kernel it cannot shrink runs at the real sizes when they are within the limit."""


def input_elements(fn: Function) -> int:
    """Elements of *fn*'s tensor parameters, a symbolic dimension counting 1."""
    total = 0
    for param in fn.params:
        if isinstance(param.type, TensorType):
            total += math.prod(value if (value := _natural(d)) else 1 for d in param.type.shape)
    return total


@dataclass(frozen=True, slots=True)
class SizeConstant:
    """A module-level name that gives a dimension of a kernel's tensor parameter (`VOCAB` in
    `lm_head_weight: pl.Tensor[[VOCAB, HIDDEN], pl.BF16]`), assigned once, at *line*."""

    name: str
    param: str
    axis: int
    line: int
    blocked: str = ""
    """Why the constant cannot be rewritten (empty: it can): `imported`, `bound more than once`."""


IMPORTED = "imported from another module"
"""`SizeConstant.blocked` of a name the file imports (`run/shrink.py` follows it to the module assigning it)."""


def size_constants(text: str, fn: Function) -> list[SizeConstant]:
    """The module-level names of the file *text* written as a dimension of *fn*'s tensor parameters, in
    parameter order: one it can rewrite is a name the module assigns exactly once (a plain `NAME = value`);
    the others say why not (`blocked`)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    assigned: dict[str, list[ast.Assign]] = {}
    bound: dict[str, int] = {}
    imported: set[str] = set()
    for stmt in tree.body:
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound[node.id] = bound.get(node.id, 0) + 1
            elif isinstance(node, ast.alias):
                alias = node.asname or node.name.split(".")[0]
                bound[alias] = bound.get(alias, 0) + 1
                imported.add(alias)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            assigned.setdefault(stmt.targets[0].id, []).append(stmt)
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn.name]
    if len(defs) > 1:
        defs = [d for d in defs if fn.span.line in (d.lineno, *(x.lineno for x in d.decorator_list))]
    if len(defs) != 1:
        return []
    tensors = {p.name for p in fn.params if isinstance(p.type, TensorType)}
    found: list[SizeConstant] = []
    for arg in (*defs[0].args.posonlyargs, *defs[0].args.args, *defs[0].args.kwonlyargs):
        if arg.arg not in tensors or not isinstance(arg.annotation, ast.Subscript):
            continue
        spec = arg.annotation.slice
        while isinstance(spec, ast.Subscript):  # `pl.Out[pl.Tensor[[...], ...]]`
            spec = spec.slice
        dims = spec.elts[0] if isinstance(spec, ast.Tuple) and spec.elts else None
        if not isinstance(dims, (ast.List, ast.Tuple)):
            continue
        for axis, dim in enumerate(dims.elts):
            if not isinstance(dim, ast.Name):
                continue
            if len(assigned.get(dim.id, ())) == 1 and bound.get(dim.id) == 1:
                found.append(SizeConstant(dim.id, arg.arg, axis, assigned[dim.id][0].lineno))
            elif dim.id in bound:
                why = IMPORTED if dim.id in imported else "bound more than once"
                found.append(SizeConstant(dim.id, arg.arg, axis, 0, why))
    return found


def with_constant(text: str, name: str, value: int) -> str:
    """*text* with the module-level `name = ...` assigning *value* instead; every other line keeps its
    number (a value written over several lines leaves blank lines), so spans still point at the source."""
    tree = ast.parse(text)
    (stmt,) = [s for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
               and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name]
    node = stmt.value
    assert node.end_lineno is not None and node.end_col_offset is not None
    lines = text.splitlines(keepends=True)
    # ast offsets count UTF-8 bytes
    head = lines[node.lineno - 1].encode()[:node.col_offset].decode()
    tail = lines[node.end_lineno - 1].encode()[node.end_col_offset:].decode()
    written = head + str(value) + "\n" * (node.end_lineno - node.lineno) + tail
    return "".join(lines[:node.lineno - 1]) + written + "".join(lines[node.end_lineno:])


def divisor_unit(text: str, name: str) -> int:
    """The least common multiple of the integer divisors the file *text* divides or takes a remainder of a
    value computed from *name* by (`VOCAB // CHUNK`, `assert VOCAB % 64 == 0`, in a kernel or at module
    level), and of the steps of the loops to it (`pl.pipeline(0, VOCAB, CHUNK)`): each an integer literal, a
    module name assigned one, or arithmetic of them (`VOCAB // (INNER * TILE)`)."""
    tree = ast.parse(text)
    literals = {s.targets[0].id: s.value.value for s in tree.body
                if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and isinstance(s.value, ast.Constant) and type(s.value.value) is int}
    unit = 1
    for node in ast.walk(tree):
        divisor: ast.expr | None = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)) and any(
                isinstance(x, ast.Name) and x.id == name for x in ast.walk(node.left)):
            divisor = node.right
        elif isinstance(node, ast.Call) and len(node.args) == 3 and isinstance(node.args[1], ast.Name) \
                and node.args[1].id == name:
            divisor = node.args[2]  # `pl.pipeline(0, D, K_TILE)`: a loop over it by whole steps
        value = _literal_int(divisor, literals) if divisor is not None else None
        if value is not None and value > 1:
            unit = math.lcm(unit, value)
    return unit


def _literal_int(node: ast.expr, literals: Mapping[str, int]) -> int | None:
    """*node*'s value when it is integer literals and module names assigned one, with `+ - * //` (`W_INNER *
    D_TILE`); else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return literals.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        lhs, rhs = _literal_int(node.left, literals), _literal_int(node.right, literals)
        if lhs is None or rhs is None or (isinstance(node.op, ast.FloorDiv) and rhs == 0):
            return None
        return {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.FloorDiv: operator.floordiv}[type(node.op)](lhs, rhs)
    return None


def window_unit(fn: Function, param: str, axis: int) -> int:
    """The least common multiple of the constant extents of *fn*'s windows of tensor *param* along *axis*
    (loads, stores and slices): a value of that dimension keeps its remainder class modulo this unit."""
    tiles: dict[str, tuple[Expr, ...]] = {}
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and isinstance(stmt.type, TileType):
            tiles[stmt.target.name] = stmt.type.shape
    unit = 1
    for stmt in walk_stmts(fn.body):
        for top in stmt_exprs(stmt):
            for expr in walk_exprs(top):
                if not isinstance(expr, Call) or len(expr.args) < 3:
                    continue
                extents: tuple[Expr, ...] | None = None
                if expr.op in ("tile.load", TENSOR_SLICE) and _names(expr.args[0], param):
                    shape = expr.args[2] if expr.op == "tile.load" else expr.args[1]
                    extents = shape.items if isinstance(shape, (ListExpr, TupleExpr)) else None
                elif expr.op == "tile.store" and _names(expr.args[2], param):
                    tile = var_like(expr.args[0])
                    extents = tiles.get(tile.name) if tile is not None else None
                if extents is not None and len(extents) == _rank(fn, param):
                    unit = math.lcm(unit, _positive(extents[axis]))
    return unit


def _names(expr: Expr, param: str) -> bool:
    var = var_like(expr)
    return var is not None and var.name == param


def _rank(fn: Function, param: str) -> int:
    return next((len(p.type.shape) for p in fn.params if p.name == param and isinstance(p.type, TensorType)), 0)


@dataclass(frozen=True, slots=True)
class TripCount:
    """A loop whose stop differs between the real lowering and the shrunk one: `stop` at the real value,
    `shrunk` at the smaller one, and the least stop the shrunk loop needs (`needed`)."""

    line: int
    stop: int
    shrunk: int
    needed: int
    step: int


_BUFFER = re.compile(r"(mem_[a-z0-9]+_)\d+")
"""A buffer name the lowering makes (`mem_vec_19`): its memory space, then its number."""


@dataclass
class _Seen:
    """What a comparison of two lowerings has met so far: the loops whose stops differ, and the renaming of buffer
    names it took (one to one, within a memory space)."""

    real: dict[str, Type] = field(default_factory=dict)
    small: dict[str, Type] = field(default_factory=dict)
    """The two lowerings' types by name (`type_env`)."""
    loops: list[TripCount] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    """Buffer name in the real lowering -> its name in the other."""
    taken: dict[str, str] = field(default_factory=dict)
    """The inverse of `names`."""

    @staticmethod
    def whole_view(reshape: Call, env: Mapping[str, Type]) -> bool:
        """Whether `tensor.reshape(t, shape)` views all of *t*, no more and no less: the same static element
        count (a shape that moved with a constant while *t* did not is another view, not a smaller one)."""
        source = var_like(reshape.args[0])
        t = env.get(source.name) if source is not None else None
        items = reshape.args[1].items if isinstance(reshape.args[1], (ListExpr, TupleExpr)) else ()
        sizes = [_natural(e) for e in items]
        extents = [_natural(e) for e in t.shape] if isinstance(t, TensorType) else [None]
        return None not in sizes and None not in extents and math.prod(sizes) == math.prod(extents)  # type: ignore

    def renamed(self, a: str, b: str) -> bool:
        """Whether buffer *a* of the real lowering may be *b* of the other: both buffer names of one memory space,
        and neither already mapped elsewhere (then the map takes them)."""
        ma, mb = _BUFFER.fullmatch(a), _BUFFER.fullmatch(b)
        if ma is None or mb is None or ma.group(1) != mb.group(1):
            return False
        if self.names.get(a, b) != b or self.taken.get(b, a) != a:
            return False
        self.names[a], self.taken[b] = b, a
        return True


def plan_difference(real: Function, small: Function) -> tuple[str | None, tuple[TripCount, ...]]:
    """Why the lowering *small* is not *real* but for loop trip counts and GM tensor extents (None: it is
    not), and the loops whose stops differ. Everything else — each tile's shape, valid shape, memory
    space, buffer and offset, each statement, each window's offsets, each condition — must be equal. Buffers
    are compared up to a renaming: the lowering numbers them as it makes them, so one that makes a value more
    or fewer numbers the next buffers differently; a one-to-one map of the names of one memory space onto the
    other's (`mem_vec_19` ↔ `mem_vec_17`, used for it everywhere) is the same allocation."""
    buffers = _buffers_differ(real, small)
    if buffers is not None:
        return buffers, ()
    seen = _Seen(type_env(real), type_env(small))
    allocs_a, allocs_b = _allocs(real), _allocs(small)
    # the allocations are compared through the renaming the rest of the function takes (the lowering may make
    # them in another order)
    why = _fields(real, small, seen, skip=("body",)) or _differ(_without_allocs(real), _without_allocs(small), seen)
    if why is None:
        moved = [a for a, b in seen.names.items() if a in allocs_a and allocs_a[a] != allocs_b.get(b)]
        if moved:
            why = f"buffer `{moved[0]}` became `{seen.names[moved[0]]}`, allocated otherwise"
    return why, tuple(seen.loops)


def _allocs(fn: Function) -> dict[str, Call]:
    """The `tile.alloc` of each buffer *fn* allocates at its top, by name."""
    return {s.target.name: s.value for s in fn.body
            if isinstance(s, Assign) and isinstance(s.value, Call) and s.value.op == "tile.alloc"}


def _without_allocs(fn: Function) -> tuple[Stmt, ...]:
    return tuple(s for s in fn.body if not (isinstance(s, Assign) and isinstance(s.value, Call)
                                           and s.value.op == "tile.alloc"))


def _buffers(fn: Function) -> list[tuple[str, int]]:
    """The on-chip buffers *fn* allocates (`tile.alloc`): (memory space, bytes) of each, sorted."""
    found: list[tuple[str, int]] = []
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.alloc" \
                and len(stmt.value.args) > 1:
            space, size = stmt.value.args[0], _natural(stmt.value.args[1])
            found.append((getattr(space, "path", str(space)).rpartition(".")[2], -1 if size is None else size))
    return sorted(found)


def _buffers_differ(real: Function, small: Function) -> str | None:
    """Why *small* allocates other buffers than *real* (None: the same spaces and sizes): one line naming the
    first buffer that is gone or new."""
    have, other = _buffers(real), _buffers(small)
    if have == other:
        return None
    gone = [b for b in have if b not in other or have.count(b) > other.count(b)]
    new = [b for b in other if b not in have or other.count(b) > have.count(b)]
    first = f"a {gone[0][0]} buffer of {gone[0][1]} bytes is gone" if gone else \
        f"a {new[0][0]} buffer of {new[0][1]} bytes is new"
    return f"its allocation is not the verified one ({len(have)} buffers became {len(other)}: {first})"


def _differ(a: object, b: object, seen: _Seen) -> str | None:
    if type(a) is not type(b):
        return f"`{_show(a)}` became `{_show(b)}`"
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list))
        if len(a) != len(b):
            return f"{len(a)} items became {len(b)}"
        return next((why for why in (_differ(x, y, seen) for x, y in zip(a, b)) if why), None)
    if isinstance(a, For):
        assert isinstance(b, For)
        if a.stop != b.stop:
            trip = _trip_count(a, b)
            if isinstance(trip, str):
                return trip
            seen.loops.append(trip)
        return _fields(a, b, seen, skip=("stop",))
    if isinstance(a, TensorType):
        assert isinstance(b, TensorType)
        if a.dtype != b.dtype or not _extents_only(a.shape, b.shape):
            return f"a tensor of shape [{', '.join(map(_show, a.shape))}] changed other than in its extents"
        if (a.memref is None) != (b.memref is None) or (a.memref is not None and b.memref is not None and
                                                         replace(a.memref, size=0) != replace(b.memref, size=0)):
            return "a tensor moved to another GM buffer"
        return None
    if isinstance(a, Call) and a.op == "tensor.create" and isinstance(b, Call) and b.op == a.op:
        # a GM scratch tensor: its shape is a GM extent
        shape_a, shape_b = (c.args[0] if c.args else None for c in (a, b))
        if not isinstance(shape_a, (ListExpr, TupleExpr)) or not isinstance(shape_b, (ListExpr, TupleExpr)) \
                or not _extents_only(shape_a.items, shape_b.items):
            return "a GM scratch tensor's shape changed other than in its extents"
        return _differ(a.args[1:], b.args[1:], seen) or _differ(a.kwargs, b.kwargs, seen)
    if isinstance(a, Call) and a.op == "tensor.reshape" and isinstance(b, Call) and b.op == a.op \
            and len(a.args) == len(b.args) == 2 and not a.kwargs and not b.kwargs:
        # a view of a GM tensor with another shape: its shape is GM extents (its type is compared as a tensor's)
        shape_a, shape_b = a.args[1], b.args[1]
        if not isinstance(shape_a, (ListExpr, TupleExpr)) or not isinstance(shape_b, (ListExpr, TupleExpr)) \
                or not _extents_only(shape_a.items, shape_b.items):
            return "a GM tensor's reshape changed other than in its extents"
        if shape_a != shape_b and not (seen.whole_view(a, seen.real) and seen.whole_view(b, seen.small)):
            return "a GM tensor's reshape changed its extents other than with the tensor's own"
        return _differ(a.args[0], b.args[0], seen)
    if is_dataclass(a):
        return _fields(a, b, seen)
    if isinstance(a, str) and isinstance(b, str) and a != b and seen.renamed(a, b):
        return None
    return None if a == b else f"`{_show(a)}` became `{_show(b)}`"


def _extents_only(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    """Whether shapes *a* and *b* have one rank and differ only in integer extents."""
    return len(a) == len(b) and all(x == y or (_natural(x) is not None and _natural(y) is not None)
                                    for x, y in zip(a, b))


def _fields(a: object, b: object, seen: _Seen, skip: tuple[str, ...] = ()) -> str | None:
    for f in fields(a):  # type: ignore[arg-type]
        if f.compare and f.name not in skip:
            why = _differ(getattr(a, f.name), getattr(b, f.name), seen)
            if why:
                line = getattr(a, "span", None)
                at = f" (line {line.line})" if isinstance(a, Stmt) and line is not None and line.line else ""
                return why if why.endswith(")") else why + at
    return None


def _trip_count(real: For, small: For) -> TripCount | str:
    """The loop pair's trip counts, or why they are not a trip count change: the stops must be integers, the
    step a positive one and the start the same. The shrunk loop needs the real one's residue modulo the step
    (the same last iteration) and at least two iterations where the real one has two (one where it has one):
    from a run-time start (a task id, an outer loop's variable), two whole steps."""
    line = real.span.line
    stop, shrunk, step = _natural(real.stop), _natural(small.stop), _natural(real.step)
    if stop is None or shrunk is None or step is None or step == 0 or real.start != small.start:
        return f"the loop at line {line} changed other than in its trip count"
    start = _natural(real.start)
    if start is None:
        least = min(stop, 2 * step)
    else:
        trips = max(0, -(-(stop - start) // step))
        least = start + (min(trips, 2) - 1) * step + 1 if trips else 0
    needed = least + (stop - least) % step
    return TripCount(line, stop, shrunk, needed, step)


def trips_kept(loops: tuple[TripCount, ...]) -> str | None:
    """Why a shrunk loop does not run the real one's kinds of iteration (None: each does, `_trip_count`)."""
    for loop in loops:
        if loop.shrunk < loop.needed or (loop.shrunk - loop.stop) % loop.step:
            return (f"the loop at line {loop.line} would run to {loop.shrunk} (real {loop.stop}); it needs "
                    f"{loop.needed} or more, with the real stop's remainder modulo {loop.step}")
    return None


def fitted_value(real: int, probe: int, loops: tuple[TripCount, ...], unit: int) -> int | None:
    """The least value of the constant (real value *real*) at which, its loops' stops moving linearly between
    the probe and the real value, each loop reaches what it needs, in the real value's class modulo *unit*;
    None when a loop's stop does not grow with the constant."""
    value = probe
    for loop in loops:
        if loop.stop <= loop.shrunk:
            return None
        slope = (loop.stop - loop.shrunk) / (real - probe)
        value = max(value, probe + math.ceil((loop.needed - loop.shrunk) / slope - 1e-9))
    return value + (real - value) % unit


def first_value(real: int, unit: int) -> int:
    """The least value at least two of *unit* that keeps *real*'s remainder modulo *unit* (two whole tiles,
    and the real value's partial one)."""
    rest = real % unit
    return 2 * unit + rest if unit > 1 else 2


def _show(value: object) -> str:
    if isinstance(value, Const):
        return repr(value.value)
    if isinstance(value, Var):
        return value.name
    return type(value).__name__ if is_dataclass(value) else str(value)
