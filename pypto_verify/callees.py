"""The functions a kernel calls, as the dynamic check splices them in (issue 14; the siminline brief, item 1).

Owns: `Callee` (a called function's source and lowered forms, and what its own calls name in its module),
`call_arguments` (a call's arguments bound to the callee's parameters, positional then by keyword),
`bound_callee` (a callee with its `pl.dynamic` sizes bound to the extents of the tensors a call passes),
`split_return` (a callee's body and what it returns) and
`block_launched` (whether a kernel reads a block index its launcher gives: `get_block_idx()` outside every
`pl.spmd` loop, its own or a callee's).
A call of another function (`call.f` for one of the kernel's file, `extern.f` for an imported one) is opaque to
the static stages: the lowering keeps its arguments and results in GM and checks the callee as a kernel of its
own. The simulation runs the callee's lowered body in the call's place (`emit/pto.py`), the reference its source
(`reference.py`); each callee keeps the buffers its own lowering gave it, so no tile of the caller crosses a call.
Layering: imports only `ir` and `sizes` (STYLE.md §1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pypto_verify.ir import (
    Call, Expr, For, Function, LoopKind, Return, Stmt, TensorType, stmt_exprs, walk_exprs, walk_stmts,
)
from pypto_verify.sizes import bind_sizes, size_name

BLOCK_IDX_OPS = frozenset({"tile.get_block_idx", "tensor.get_block_idx"})
"""`pl.tile.get_block_idx()` / `pl.get_block_idx()` (`ops.BLOCK_IDX`)."""


@dataclass(frozen=True, slots=True, eq=False)
class Callee:
    """A function some kernel calls: as read (the reference runs it) and lowered (the emitter splices it)."""

    source: Function
    lowered: Function
    callees: Mapping[str, Callee | str] = field(default_factory=dict)
    """What the callee's own calls name (`call.g`, `extern.g`), resolved in the callee's module (or why one is not
    spliced)."""


class CallError(ValueError):
    """A call that cannot be spliced: its arguments do not fit the callee's parameters."""


def call_arguments(fn: Function, call: Call) -> dict[str, Expr]:
    """*call*'s arguments by the parameter of *fn* each binds (positional first, then keywords)."""
    params = [p.name for p in fn.params]
    if len(call.args) > len(params):
        raise CallError(f"`{fn.name}` takes {len(params)} arguments; the call passes {len(call.args)}")
    given = dict(zip(params, call.args))
    for key, value in call.kwargs:
        if key not in params:
            raise CallError(f"`{fn.name}` has no parameter `{key}`")
        if key in given:
            raise CallError(f"the call of `{fn.name}` passes `{key}` twice")
        given[key] = value
    missing = [p for p in params if p not in given]
    if missing:
        raise CallError(f"the call of `{fn.name}` passes no `{missing[0]}`")
    return given


def bound_callee(fn: Function, shapes: Mapping[str, tuple[int, ...]]) -> Function:
    """*fn* with each `pl.dynamic` size of its tensor parameters bound to the extent of the tensor passed for it
    (*shapes*, by parameter); `CallError` when an argument's shape does not fit its parameter's."""
    values: dict[str, int] = {}
    for param in fn.params:
        shape = shapes.get(param.name)
        if shape is None or not isinstance(param.type, TensorType):
            continue
        if len(param.type.shape) != len(shape):
            raise CallError(f"parameter `{param.name}` of `{fn.name}` has rank {len(param.type.shape)}; the call "
                            f"passes a tensor of shape {list(shape)}")
        for dim, extent in zip(param.type.shape, shape):
            name = size_name(dim)
            if name is not None and values.setdefault(name, extent) != extent:
                raise CallError(f"the call of `{fn.name}` passes {values[name]} and {extent} for its size `{name}`")
    bound = bind_sizes(fn, values)
    for param in bound.params:
        shape = shapes.get(param.name)
        if shape is not None and isinstance(param.type, TensorType):
            declared = [getattr(d, "value", None) for d in param.type.shape]
            if declared != list(shape):
                raise CallError(f"parameter `{param.name}` of `{fn.name}` is a tensor of shape {declared}; the call "
                                f"passes one of shape {list(shape)}")
    return bound


def split_return(fn: Function) -> tuple[tuple[Stmt, ...], tuple[Expr, ...]]:
    """*fn*'s body without its final `return`, and the values it returns; `CallError` for a `return` anywhere else
    (a spliced body runs to its end)."""
    body: tuple[Stmt, ...] = fn.body
    returned: tuple[Expr, ...] = ()
    last = body[-1] if body else None
    if isinstance(last, Return):
        body, returned = body[:-1], last.values
    if any(isinstance(s, Return) for s in walk_stmts(body)):
        raise CallError(f"`{fn.name}` returns from inside a loop or an `if`: its body is not spliced")
    return body, returned


def block_launched(fn: Function, callees: Mapping[str, Callee | str] | None = None, depth: int = 0) -> bool:
    """Whether *fn* reads a block index outside every `pl.spmd` loop, directly or in a function it calls
    (*callees*, by op), and has no `pl.spmd` loop of its own: the launcher gives it, at run time."""
    callees = callees or {}
    if any(isinstance(stmt, For) and stmt.kind is LoopKind.SPMD for stmt in walk_stmts(fn.body)):
        return False  # launches of its own too: which launch a block index outside them reads is not said
    return any(_reads_outer_block(stmt, callees, depth) for stmt in fn.body)


def _reads_outer_block(stmt: Stmt, callees: Mapping[str, Callee | str], depth: int) -> bool:
    if isinstance(stmt, For) and stmt.kind is LoopKind.SPMD:
        return False  # its block index is its own loop's
    for top in stmt_exprs(stmt):
        for expr in walk_exprs(top):
            if isinstance(expr, Call) and expr.op in BLOCK_IDX_OPS:
                return True
            callee = callees.get(expr.op) if isinstance(expr, Call) else None
            if isinstance(callee, Callee) and depth < _MAX_DEPTH and block_launched(callee.source, callee.callees, depth + 1):
                return True
    return any(_reads_outer_block(inner, callees, depth) for inner in _bodies(stmt))


_MAX_DEPTH = 16
"""How deep calls are followed (a call chain deeper than this is not spliced either: `emit`, `reference`)."""


def _bodies(stmt: Stmt) -> tuple[Stmt, ...]:
    inner: list[Stmt] = []
    for name in ("body", "then_body", "else_body"):
        inner.extend(getattr(stmt, name, ()) or ())
    return tuple(inner)
