"""PV108 padding-read: a stored value whose valid region takes elements from an operand's unfilled padding.

Owns: finding, in a function as read (Form 1 / 2 source, Form 3 as given), the ops that mix the padding of a
padded operand into their result's valid region, and posing one `Obligation` each (`smt.prove_padding`
decides them). A value is padded where `frontend/shapes.py` knows its valid region is narrower than its
shape (a `valid_shape=` slice or load, carried through casts, unary ops and reshapes that add or drop unit
dimensions or are between vectors, as pypto's type deduction carries it); `fillpad` makes it whole. The
padding of a load holds whatever the buffer held before (stale on-chip data: PTO-ISA TLOAD moves only the
valid rows and columns), so an op reads it when:

- an element-wise op (`add`, `mul`, ..., a row / column broadcast) types its result with a valid region
  wider than an operand's along an axis both share (a tensor op whose first operand is whole is whole:
  pypto's DeduceTensorOpElementwiseBinaryType; a tile op takes its first operand's region);
- a `set_validshape` widens its operand's region;
- a matmul's operand is padded along K (the padded K columns / rows are multiplied into every result
  element);
- a row-wise gather (`gather(src, dim=-1, index=idx)`) types its result with more valid rows than `src` has
  (row r of the result is gathered from row r of `src`; its columns are the index's, not compared).

Only an op whose result reaches a store, an assemble or the function's return with its elements at the
positions they hold (`_positional`: casts, unary ops, reshapes, element-wise ops, assembles, loop carries
and if-phis) is posed: a padded value nothing writes out is harmless. The query is PV107's (`bounds.obligation`) on a
window `[0, R_d)` of a "shape" `V_d`: the violation is that on some axis `d` the region the result takes
(`R_d`) exceeds the operand's valid extent `V_d`, in the op's context (loops, guards, run-time scalars
nonnegative). Unsatisfiable: PROVED (the padding is never read). A model: REFUTED with the padded rows or
columns read — CONDITIONAL when it rests on a value known only at run time (a `valid_tok = min(T, len - p)`
read from a tensor), INCONCLUSIVE when it rests on an expression the encoder does not model.

A store or an assemble moves the valid region of its value (PTO-ISA TSTORE). Where `Shapes` does not track
that region (an element-wise op of operands valid over different regions, a reshape pypto maps by its flat
prefix) but the value is computed element for element from values whose regions it does track
(`_padded_sources`), the write is posed once per padded source with an approximation (it may move the whole
shape, padding included): PROVED when that source's padding is empty for every input; otherwise, at the loop
iterations of the model, `emptiable` asks whether some run-time values make it empty — CONDITIONAL on that
(`empty_condition` names it: `valid_tok` = 64), else INCONCLUSIVE (never REFUTED: whether the padding is
written is not known).

UNSOUND: the padding a write of a value whose valid region is not tracked and that is not computed element
for element from tracked ones (a matmul, a reduction, a loop carry) may write is not posed; a value is followed
to a store only through ops that keep its elements' positions, so padding that reaches GM through a slice, a
reduction, a matmul, or as a later operand of an op whose first operand is narrower (the region the result
is valid over may or may not take the padded band), or through a value valid over less than its shape (a
`set_validshape` that narrows it again before the store) is not posed.
"""
from __future__ import annotations

from dataclasses import dataclass

from pypto_verify import ops, rules
from pypto_verify.frontend.shapes import BINARY_SAME, EXPAND_FIRST, UNARY_SAME, Shape, Shapes, dims_text, \
    expr_text, same_dims
from pypto_verify.ir import (
    Assign, Call, Const, Expr, For, Function, If, Return, Scope, Span, Stmt, Var, Yield, display_name,
    final_yield, stmt_exprs, var_like, walk_exprs, walk_stmts, replace,
)
from pypto_verify.smt import bounds
from pypto_verify.smt import encode as E
from pypto_verify.smt.obligations import Obligation

_STORES = ("store", "assemble")
_AXES = {2: ("rows", "columns")}


@dataclass(frozen=True, slots=True)
class PaddingRead:
    """An op whose result's valid region takes the elements of *operand* past its valid region."""

    function: str
    op_text: str
    """The op as the user wrote it (`pl.add(mm_out, resid_chunk)`)."""
    operand: str
    axes: tuple[int, ...]
    """The axes along which the result's region may exceed the operand's."""
    taken: tuple[Expr, ...]
    """The result's extent on each axis (the whole operand extent along a matmul's K)."""
    valid: tuple[Expr, ...]
    """The operand's valid extent on each axis."""
    dims: tuple[Expr, ...]
    origin: Span | None
    """The load or slice that left the padding unfilled."""
    span: Span
    context: tuple[bounds.Loop | bounds.Guard, ...]
    along_k: bool = False
    approximations: tuple[str, ...] = ()
    """Why a model may not be a read of padding (the region a write moves is not tracked)."""
    """A matmul operand padded along K: every element of the product takes the padding."""


def _axis_name(rank: int, axis: int) -> str:
    names = _AXES.get(rank)
    return names[axis] if names else f"dimension {axis}"


def _text(call: Call, shapes: Shapes) -> str:
    shown = []
    for a in call.args:
        v = var_like(a)
        shown.append(display_name(v.name) if v is not None else "..." if isinstance(a, Call) else expr_text(a))
    return f"pl.{call.op.split('.')[-1]}({', '.join(shown)})"


def _positional(expr: Expr, shapes: Shapes) -> tuple[set[str], list[Call]]:
    """The names and the calls whose elements *expr*'s value holds at the same positions, each wholly valid
    (what a store of it writes is all of it): through a cast, a
    unary op, a reshape, a fillpad or a set_validshape of its operand, an element-wise op of its first operand
    or of any operand when its result is wholly valid (an operand's elements then all lie in the result's
    region), an assemble of its destination and its value. A slice, a reduction, a matmul, an operand that is
    not first under a narrower first operand: not followed (`UNSOUND:` in the module docstring)."""
    v = var_like(expr)
    here = shapes.of(expr)
    if here is None or not here.valid_known or (here.valid is not None and not same_dims(here.valid, here.dims)):
        return set(), []  # a value valid over less than its shape: whether it keeps the band is not followed
    if v is not None:
        return {v.name}, []
    if not isinstance(expr, Call) or not expr.args:
        return set(), []
    level, _, name = expr.op.partition(".")
    if level not in ("tensor", "tile"):
        return set(), []
    followed: list[Expr] = []
    if name in UNARY_SAME or name in ("reshape", "fillpad", "set_validshape"):
        followed = [expr.args[0]]
    elif name in BINARY_SAME or name in EXPAND_FIRST:
        # this value is wholly valid (above): every operand's elements lie in its region, band for band
        followed = [a for a in expr.args if not shapes.is_scalar(a)]
    elif name == "assemble" and len(expr.args) >= 2:
        followed = [expr.args[0], expr.args[1]]
    names: set[str] = set()
    calls: list[Call] = [expr]
    for a in followed:
        more_names, more_calls = _positional(a, shapes)
        names |= more_names
        calls += more_calls
    return names, calls


def _reaching(fn: Function, shapes: Shapes) -> tuple[set[str], set[int]]:
    """The names whose elements a store, an assemble or a return writes out at the positions they hold
    (`_positional`), and the ids of the calls (inline ones included) whose results are written out so."""
    feeds: dict[str, set[str]] = {}
    """name -> the names whose elements it holds."""
    calls_of: dict[str, list[Call]] = {}
    sinks: set[str] = set()
    reaching_calls: list[Call] = []

    def stored(expr: Expr) -> None:
        for sub in walk_exprs(expr):
            if isinstance(sub, Call) and sub.op.split(".")[-1] in _STORES and len(sub.args) >= 2:
                names, calls = _positional(sub.args[0] if sub.op.endswith("store") else sub.args[1], shapes)
                sinks.update(names)
                reaching_calls.extend(calls)

    def link(target: str, value: Expr) -> None:
        names, calls = _positional(value, shapes)
        feeds.setdefault(target, set()).update(names)
        calls_of.setdefault(target, []).extend(calls)

    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign):
            link(stmt.target.name, stmt.value)
        elif isinstance(stmt, Return):
            for value in stmt.values:
                names, calls = _positional(value, shapes)
                sinks.update(names)
                reaching_calls.extend(calls)
        elif isinstance(stmt, For):
            last = final_yield(stmt.body)
            for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                link(arg.name, init)
                if last is not None and i < len(last.values):
                    link(arg.name, last.values[i])
                    if i < len(stmt.return_vars):
                        link(stmt.return_vars[i].name, last.values[i])
                if i < len(stmt.return_vars):
                    link(stmt.return_vars[i].name, arg)
        elif isinstance(stmt, If):
            for body in (stmt.then_body, stmt.else_body):
                last = final_yield(body)
                if last is not None:
                    for rv, value in zip(stmt.return_vars, last.values):
                        link(rv.name, value)
        if not isinstance(stmt, (For, If, Scope, Yield)):
            for expr in stmt_exprs(stmt):
                stored(expr)
    reach = set(sinks)
    stack = list(sinks)
    while stack:
        name = stack.pop()
        reaching_calls.extend(calls_of.get(name, ()))
        for source in feeds.get(name, ()):
            if source not in reach:
                reach.add(source)
                stack.append(source)
    return reach, {id(c) for c in reaching_calls}


def _origin(expr: Expr, shapes: Shapes, depth: int = 0) -> Span | None:
    """The `valid_shape=` slice or load a padded value comes from (through casts, unary ops, reshapes)."""
    if depth > 32:
        return None
    if isinstance(expr, Call):
        call = expr
    else:
        v = var_like(expr)
        stmt = shapes.defs.get(v.name) if v is not None else None
        if stmt is None:
            return None
        if not isinstance(stmt.value, Call):
            return _origin(stmt.value, shapes, depth + 1)
        call = stmt.value
    name = call.op.split(".")[-1]
    if name in ("slice", "load") and (len(call.args) > 3 or call.kwarg("valid_shape") is not None):
        if call.span.line:
            return call.span
        named = var_like(expr)
        stmt = shapes.defs.get(named.name) if named is not None else None
        return stmt.span if stmt is not None else None
    if call.args and not shapes.is_scalar(call.args[0]):
        return _origin(call.args[0], shapes, depth + 1)  # the first operand carries the region (PyPTO's deduction)
    return None


def _padded(shape: Shape | None) -> bool:
    return shape is not None and shape.exact and shape.valid is not None and shape.valid_known \
        and len(shape.valid) == len(shape.dims)


def _tracked(expr: Expr, shapes: Shapes) -> Shape | None:
    """*expr*'s shape when its valid region is tracked (`Shapes`: PyPTO's type deduction)."""
    s = shapes.of(expr)
    return s if s is not None and s.valid_known else None


def _padded_sources(expr: Expr, shapes: Shapes, depth: int = 0) -> list[tuple[Expr, Shape]] | None:
    """The padded values (valid region tracked and narrower than the shape) whose elements *expr*'s value is
    computed from element for element: through a cast or unary op, a reshape, an element-wise op or a row /
    column broadcast (each tensor / tile operand), down to values whose region `Shapes` tracks. None when the
    value comes from anything else (a matmul, a reduction, a loop carry, ...): what it holds is not followed.
    When every one of them is whole (its padded region empty), so is *expr*'s value: it holds no padding."""
    s = shapes.of(expr)
    if s is None or not s.exact or depth > 32:
        return None
    if s.valid_known:
        return [(expr, s)] if _padded(s) else []
    v = var_like(expr)
    stmt = shapes.defs.get(v.name) if v is not None else None
    call = expr if isinstance(expr, Call) else stmt.value if stmt is not None else None
    if isinstance(call, Var):
        return _padded_sources(call, shapes, depth + 1)
    if not isinstance(call, Call) or not call.args or call.op.partition(".")[0] not in ("tensor", "tile"):
        return None
    name = call.op.partition(".")[2]
    if name in UNARY_SAME or name == "reshape":
        operands = [call.args[0]]
    elif name in BINARY_SAME or name in EXPAND_FIRST:
        operands = [a for a in call.args if not shapes.is_scalar(a)]
    else:
        return None
    out: list[tuple[Expr, Shape]] = []
    for a in operands:
        more = _padded_sources(a, shapes, depth + 1)
        if more is None:
            return None
        out += [m for m in more if not any(m[0] is o for o, _ in out)]
    return out


def _reads(fn: Function, call: Call, shapes: Shapes, context: tuple[bounds.Loop | bounds.Guard, ...],
           span: Span) -> list[PaddingRead]:
    """The padding reads of *call* (module docstring)."""
    level, _, name = call.op.partition(".")
    if level not in ("tensor", "tile"):
        return []
    out: list[PaddingRead] = []
    if call.op in ops.ALL_MADS:
        parts = ops.matmul_parts(call)
        for operand, trans, k_axis in ((parts.lhs, parts.a_trans, -1), (parts.rhs, parts.b_trans, -2)):
            s = _tracked(operand, shapes)
            if s is None or not _padded(s) or len(s.dims) < 2:
                continue
            assert s.valid is not None
            axis = len(s.dims) + (k_axis if not trans else -3 - k_axis)
            if same_dims((s.valid[axis],), (s.dims[axis],)):
                continue
            out.append(replace(_read(fn, call, operand, shapes, (axis,), s.dims, s.valid, s.dims, context, span),
                               along_k=True))
        return out
    if name in _STORES and len(call.args) >= 3:
        value = call.args[0] if name == "store" else call.args[1]
        moved = shapes.of(value)
        sources = _padded_sources(value, shapes) if moved is not None and moved.exact and not moved.valid_known \
            else None
        v = var_like(value)
        shown = display_name(v.name) if v is not None else _text(value, shapes) if isinstance(value, Call) else "?"
        for source, held in sources or ():
            assert held.valid is not None
            axes = tuple(d for d in range(len(held.dims)) if not same_dims((held.valid[d],), (held.dims[d],)))
            why = (f"not modelled: the valid region pypto gives `{shown}` (a value computed from a padded one), so "
                   f"the {name} is taken to move its whole shape, padding included")
            out.append(replace(_read(fn, call, source, shapes, axes, held.dims, held.valid, held.dims, context,
                                     span), approximations=(why,)))
        return out
    result = shapes.of(call)
    if result is None or not result.valid_known or not result.exact:
        return out
    taken = result.extents
    if name == "set_validshape" and call.args:
        operands: list[Expr] = [call.args[0]]
    elif name in BINARY_SAME or name in EXPAND_FIRST:
        operands = [a for a in call.args if not shapes.is_scalar(a)]
    elif _row_gather(call):
        operands = [call.args[0]]
    else:
        return out
    last = len(result.dims) - 1 if _row_gather(call) else len(result.dims)
    for operand in operands:
        s = _tracked(operand, shapes)
        if not _padded(s):
            continue
        assert s is not None and s.valid is not None
        if len(s.dims) != len(result.dims):
            continue
        axes = tuple(d for d in range(min(len(s.dims), last))
                     if same_dims((s.dims[d],), (result.dims[d],)) and not same_dims((s.valid[d],), (taken[d],)))
        if axes:
            out.append(_read(fn, call, operand, shapes, axes, taken, s.valid, s.dims, context, span))
    return out


def _row_gather(call: Call) -> bool:
    """`gather(src, dim=-1, index=idx)`: row r of the result gathers from row r of *src* (its columns by the
    index), so the result's valid rows take *src*'s rows at the same positions, padding rows included; the
    columns it takes are the index's values, not compared (PyPTO's row-wise TGATHER)."""
    dim = call.kwarg("dim")
    return call.op.endswith(".gather") and bool(call.args) and call.kwarg("index") is not None \
        and isinstance(dim, Const) and dim.value == -1


def _read(fn: Function, call: Call, operand: Expr, shapes: Shapes, axes: tuple[int, ...], taken: tuple[Expr, ...],
          valid: tuple[Expr, ...], dims: tuple[Expr, ...], context: tuple[bounds.Loop | bounds.Guard, ...],
          span: Span) -> PaddingRead:
    v = var_like(operand)
    shown = display_name(v.name) if v is not None else _text(operand, shapes) if isinstance(operand, Call) else "?"
    return PaddingRead(fn.name, _text(call, shapes), shown, axes, taken, valid, dims, _origin(operand, shapes),
                       span, context)


def padding_reads(fn: Function, shapes: Shapes | None = None) -> list[PaddingRead]:
    """Every op of *fn* that may take padding into a value it writes out, in program order."""
    shapes = shapes or Shapes(fn)
    _, reaching = _reaching(fn, shapes)
    out: list[PaddingRead] = []

    def visit(body: tuple[Stmt, ...], context: tuple[bounds.Loop | bounds.Guard, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, For):
                visit(stmt.body, (*context, bounds.Loop(stmt.loop_var.name, stmt.start, stmt.stop, stmt.step,
                                                        stmt.kind)))
            elif isinstance(stmt, If):
                visit(stmt.then_body, (*context, bounds.Guard(stmt.cond, True)))
                visit(stmt.else_body, (*context, bounds.Guard(stmt.cond, False)))
            elif isinstance(stmt, Scope):
                visit(stmt.body, context)
            else:
                for expr in stmt_exprs(stmt):
                    for sub in walk_exprs(expr):
                        if isinstance(sub, Call) and (id(sub) in reaching or sub.op.split(".")[-1] in _STORES):
                            span = sub.span if sub.span.line else getattr(stmt, "span", sub.span)
                            out.extend(_reads(fn, sub, shapes, context, span))

    visit(fn.body, ())
    return out


def obligation(read: PaddingRead, shapes: Shapes, scalars: bounds.Scalars, site: str) -> Obligation:
    """PV108 on one padding read: PV107's query on the window `[0, taken_d)` of the shape `valid_d`, over
    the read's axes (module docstring)."""
    zero: Expr = Const(0)
    access = bounds.Access(read.function, "reads", read.operand, tuple(read.valid[d] for d in read.axes),
                           tuple(zero for _ in read.axes), tuple(read.taken[d] for d in read.axes), read.span,
                           read.context, read.op_text, read.approximations)
    posed = bounds.obligation(access, shapes, scalars, site)
    rank = len(read.dims)
    where = f" (its `valid_shape` at line {read.origin.line})" if read.origin is not None and read.origin.line else ""

    def explain(values: dict[str, int | bool]) -> tuple[str, dict[str, int | str], Span | None]:
        def value(key: str) -> int | None:
            v = values.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) else None

        counterexample: dict[str, int | str] = {}
        parts = []
        for i, d in enumerate(read.axes):
            hi, lim = value(f"hi.{i}"), value(f"dim.{i}")
            if hi is None or lim is None or hi <= lim:
                continue
            what = _axis_name(rank, d)
            parts.append(f"{what} [{lim}, {hi})")
            counterexample[what] = f"[{lim}, {hi})"
        _, loops, _ = bounds._explain(access, values, [label for label, _ in _loops(posed)], _free(posed))
        at = {k: v for k, v in loops.items() if k not in ("rows", "columns", "shape") and not k.startswith("dim")}
        counterexample.update(at)
        read_what = " and ".join(parts) if parts else "elements"
        message = (f"`{read.op_text}` reads {read_what} of `{read.operand}` (shape {dims_text(read.dims)}, valid "
                   f"{dims_text(read.valid)}), padding its load left unfilled{where}: "
                   + (f"every element of the product sums stale on-chip data; fill it first "
                      f"(`pl.fillpad({read.operand}, pad_value=pl.PadValue.zero)`)" if read.along_k else
                      f"the stored {read_what.split(' [')[0]} there hold stale on-chip data; fill it first "
                      f"(`pl.fillpad({read.operand}, pad_value=...)`) or store only the valid region"))
        if at:
            message += " at " + ", ".join(f"{k} = {v}" for k, v in at.items())
        return message, counterexample, read.span

    proved = f"`{read.op_text}` reads no padding of `{read.operand}` (valid {dims_text(read.valid)})"
    return replace(posed, rule=rules.PADDING_READ, explain=explain, proved=proved)


def emptiable(read: PaddingRead, ob: Obligation, values: dict[str, int | bool]) -> Obligation:
    """The padded region of *read*'s operand empty (its valid extent the whole extent on every padded axis) at
    the loop iterations of *values* (a model of *ob*, the padding there not empty), for some values of the
    run-time inputs *ob* reads: posed for a write whose valid region is not tracked (`approximations`), whose
    padding is then written only where it is not empty. A model: the write holds no padding for some
    run-time values (CONDITIONAL, `empty_condition` names them); unsatisfiable: it does for all of them."""
    pins = tuple(E.eq(term, E.lit(value)) for key, term in ob.witnesses if key.startswith("loop.")
                 for value in (values.get(key),) if isinstance(value, int) and not isinstance(value, bool))
    return replace(ob, site=f"{ob.site}:empty", assumptions=(*ob.assumptions, *pins), violation=E.not_(ob.violation),
                   approximations=())


def empty_condition(read: PaddingRead) -> str:
    """The condition under which *read*'s operand has no padding, in the kernel's words (`valid_tok` = 64)."""
    rank = len(read.dims)
    return " and ".join(f"`{expr_text(read.valid[d])}` = {expr_text(read.dims[d])} (its {_axis_name(rank, d)})"
                        for d in read.axes)


def _loops(ob: Obligation) -> list[tuple[str, object]]:
    return [(key[len("loop."):], t) for key, t in ob.witnesses if key.startswith("loop.")]


def _free(ob: Obligation) -> list[str]:
    return [key[len("sym."):] for key, _ in ob.witnesses if key.startswith("sym.")]


def function_obligations(fn: Function, shapes: Shapes | None = None) -> list[tuple[PaddingRead, Obligation]]:
    """PV108 on every padding read of *fn*; site ids `<function>:padding:<line>:<col>`. *shapes*: *fn*'s valid
    regions when already worked out."""
    shapes = shapes or Shapes(fn)
    found = padding_reads(fn, shapes)
    if not found:
        return []
    scalars = bounds.function_scalars(fn, shapes)
    out: list[tuple[PaddingRead, Obligation]] = []
    seen: dict[str, int] = {}
    for read in found:
        site = f"{fn.name}:padding:{read.span.line}:{read.span.col}"
        seen[site] = seen.get(site, 0) + 1
        if seen[site] > 1:
            site = f"{site}.{seen[site]}"
        out.append((read, obligation(read, shapes, scalars, site)))
    return out


__all__ = ["PaddingRead", "emptiable", "empty_condition", "function_obligations", "obligation", "padding_reads"]
