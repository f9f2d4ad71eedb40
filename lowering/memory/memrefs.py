"""Where a function's values live: definition sites, MemRefs, `tile.alloc` roots, and the one rewrite
that puts new MemRefs on definition sites.

Owns the name-keyed view of buffers that the four memory passes share (init-memref,
materialize-semantic-aliases, memory-reuse, allocate-memory-addr): `collect_sites` (each value's
defining statement with its enclosing bodies, for the liveness scans), `memref_map` (each value's
MemRef as the IR states it), `with_memrefs` (the rewrite), `reads_of` / `writes_of` (what a
statement subtree reads and writes, the way PyPTO's MemoryReuse collectors see it) and the alloc
statements. Types live where a value is defined (docs/ir-conventions.md): an iter_arg has no type of
its own, so it always lives where its init lives.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeGuard

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Const, DictExpr, Eval, Expr, For, Function, If, MemRef, MemSpace, PtrType, Return, Scope, Stmt,
    Span, Sym, TensorType, TileType, Type, Var, Yield, map_stmts, var_names, walk_exprs, replace,
)
from pypto_verify.span import slotted_init
from pypto_verify.lowering._pass_util import yield_values, infer_env, stmt_span


ALIGNMENT = 32
"""Byte alignment of every on-chip buffer (PyPTO DefaultMemoryAllocatorPolicy)."""


class SiteKind(enum.Enum):
    """How a value is defined."""

    PARAM = "param"
    ASSIGN = "assign"
    IF_RETURN = "if_return"
    FOR_RETURN = "for_return"
    ITER_ARG = "iter_arg"


@slotted_init
@dataclass(frozen=True, slots=True)
class Frame:
    """One enclosing body on the path to a definition: `body[pos]` is the statement on the path."""

    owner: Stmt | None
    """The `For` / `If` / `Scope` whose body this is; None for the function body."""
    body: tuple[Stmt, ...]
    pos: int
    arm: str
    """`body` (function, loop or scope body), `then` or `else`."""


@slotted_init
@dataclass(frozen=True, slots=True)
class Site:
    """Where the value `name` is defined: the defining statement, its index and its enclosing bodies."""

    name: str
    kind: SiteKind
    stmt: Stmt | None
    """The `Assign`, or the `If` / `For` that defines a return var or an iter_arg."""
    index: int
    """Which return var / iter_arg of `stmt` (0 for an Assign)."""
    outer: tuple[Frame, ...]
    """The frames of the bodies enclosing the one `stmt` sits in, outermost first (shared by every site of
    that body)."""
    at: tuple[Stmt | None, tuple[Stmt, ...], int, str] | None
    """`stmt`'s own frame as `(owner, body, pos, arm)`; None for a parameter. Made a `Frame` only when
    `frames` is asked for: collecting the sites of a long body makes one site per statement, and few of
    them are ever walked out of."""

    @property
    def frames(self) -> tuple[Frame, ...]:
        """Outermost first; `frames[-1].body[frames[-1].pos] is stmt`."""
        return self.outer if self.at is None else (*self.outer, Frame(*self.at))

    @property
    def assign(self) -> Assign | None:
        """The defining `Assign` of an ASSIGN site, else None."""
        return self.stmt if isinstance(self.stmt, Assign) else None

    @property
    def span(self) -> Span | None:
        """Where the defining statement is written (None for a parameter)."""
        return stmt_span(self.stmt) if self.stmt is not None else None

    def inside(self, stmt: Stmt) -> bool:
        """True when the definition lies lexically inside *stmt* (an arm or body of it)."""
        return any(f.owner is stmt for f in self.frames)

    def arm_of(self, stmt: Stmt) -> str | None:
        """The arm of *stmt* (`then` / `else` / `body`) the definition lies in, if any."""
        for f in self.frames:
            if f.owner is stmt:
                return f.arm
        return None


def collect_sites(fn: Function) -> dict[str, Site]:
    """Every name's definition site (the first one for a rebound tensor)."""
    sites: dict[str, Site] = {}
    for p in fn.params:
        sites[p.name] = Site(p.name, SiteKind.PARAM, None, 0, (), None)
    _collect(fn.body, None, "body", (), sites)
    return sites


def _collect(body: tuple[Stmt, ...], owner: Stmt | None, arm: str, outer: tuple[Frame, ...],
             sites: dict[str, Site]) -> None:
    for pos, stmt in enumerate(body):
        if isinstance(stmt, Assign):
            name = stmt.target.name
            if name not in sites:
                sites[name] = Site(name, SiteKind.ASSIGN, stmt, 0, outer, (owner, body, pos, arm))
            continue
        if not isinstance(stmt, (For, If, Scope)):
            continue
        at = (owner, body, pos, arm)
        frames = (*outer, Frame(*at))
        if isinstance(stmt, For):
            for i, arg in enumerate(stmt.iter_args):
                _add(sites, Site(arg.name, SiteKind.ITER_ARG, stmt, i, outer, at))
            _collect(stmt.body, stmt, "body", frames, sites)
            for i, rv in enumerate(stmt.return_vars):
                _add(sites, Site(rv.name, SiteKind.FOR_RETURN, stmt, i, outer, at))
        elif isinstance(stmt, If):
            _collect(stmt.then_body, stmt, "then", frames, sites)
            _collect(stmt.else_body, stmt, "else", frames, sites)
            for i, rv in enumerate(stmt.return_vars):
                _add(sites, Site(rv.name, SiteKind.IF_RETURN, stmt, i, outer, at))
        else:
            _collect(stmt.body, stmt, "body", frames, sites)


def _add(sites: dict[str, Site], site: Site) -> None:
    """*site* unless its name has one already (a tensor rebound keeps its first definition)."""
    sites.setdefault(site.name, site)


# ---------------------------------------------------------------------------------------------- types and memrefs


def memref_of_type(t: Type | None) -> MemRef | None:
    """The MemRef a tile or tensor type carries."""
    return t.memref if isinstance(t, (TileType, TensorType)) else None


def space_of_type(t: Type | None) -> MemSpace | None:
    """A tile's memory space; DDR for a tensor."""
    if isinstance(t, TileType):
        return t.space
    if isinstance(t, TensorType):
        return MemSpace.DDR
    return None


def with_memref(t: Type, memref: MemRef | None) -> Type:
    """*t* with its MemRef replaced (tile and tensor types only)."""
    if isinstance(t, (TileType, TensorType)):
        return replace(t, memref=memref)
    return t


def memref_map(fn: Function, env: dict[str, Type] | None = None) -> dict[str, MemRef]:
    """Each tile or tensor value's MemRef as the IR states it (iter_args: their init's)."""
    env = infer_env(fn) if env is None else env
    return {name: m for name, t in env.items() if (m := memref_of_type(t)) is not None}


def with_memrefs(fn: Function, changes: dict[str, MemRef], env: dict[str, Type] | None = None) -> Function:
    """*fn* with the values named in *changes* moved to their new MemRef, at their definition sites.

    An iter_arg has no definition site of its own: it follows its init. A return var whose type was
    implicit gets an explicit one only when its MemRef is changed.
    """
    if not changes:
        return fn
    retyping = _Retyping(infer_env(fn) if env is None else env, changes)
    params = tuple(replace(p, type=retyping.typed(p.name, p.type)) if p.name in changes else p for p in fn.params)
    return replace(fn, params=params, body=_retype_body(fn.body, retyping))


@dataclass(frozen=True, slots=True)
class _Retyping:
    """The values named in `changes` moved to their new MemRef; `env` types the rest."""

    env: dict[str, Type]
    changes: dict[str, MemRef]

    def typed(self, name: str, declared: Type | None) -> Type | None:
        """The type *name* is declared with after the move (*declared* when it does not move)."""
        base = declared if declared is not None else self.env.get(name)
        if name not in self.changes or base is None:
            return declared
        return with_memref(base, self.changes[name])

    def current(self, name: str) -> MemRef | None:
        """*name*'s MemRef after the move."""
        return self.changes.get(name, memref_of_type(self.env.get(name)))


def _retype_body(body: tuple[Stmt, ...], retyping: _Retyping) -> tuple[Stmt, ...]:
    # retyping leaves every Yield as it is, so the rebuilt bodies' yields are the original ones
    def retype(stmt: Stmt) -> tuple[Stmt, ...] | None:
        if isinstance(stmt, Assign) and stmt.target.name in retyping.changes:
            return (replace(stmt, type=retyping.typed(stmt.target.name, stmt.type)),)
        if isinstance(stmt, For):
            arms: tuple[tuple[Expr, ...], ...] = (yield_values(stmt.body),)
        elif isinstance(stmt, If):
            arms = (yield_values(stmt.then_body), yield_values(stmt.else_body))
        else:
            return None
        types = _retyped_returns(stmt.return_vars, stmt.return_types, retyping, arms)
        if len(types) == len(stmt.return_types) and all(a is b for a, b in zip(types, stmt.return_types)):
            return None  # no return var of it moved
        return (replace(stmt, return_types=types),)
    return map_stmts(body, retype)


def _retyped_returns(return_vars: tuple[Var, ...], return_types: tuple[Type | None, ...], retyping: _Retyping,
                     arms: tuple[tuple[Expr, ...], ...]) -> tuple[Type | None, ...]:
    changes = retyping.changes
    types = list(return_types) + [None] * (len(return_vars) - len(return_types))
    out: list[Type | None] = []
    for i, rv in enumerate(return_vars):
        if rv.name not in changes:
            out.append(types[i])
        elif types[i] is None and _implicit_memref(arms, i, retyping) == changes[rv.name]:
            out.append(None)  # the yielded value's type already says it: keep the printed form implicit
        else:
            out.append(retyping.typed(rv.name, types[i]))
    return tuple(out)


def _implicit_memref(arms: tuple[tuple[Expr, ...], ...], i: int, retyping: _Retyping) -> MemRef | None:
    """The MemRef an implicit return type takes: the first arm's yielded variable's (new) one."""
    for values in arms:
        if i < len(values) and isinstance(value := values[i], Var):
            return retyping.current(value.name)
    return None


# ---------------------------------------------------------------------------------------------- reads and writes


def _expr_names(expr: Expr) -> Iterator[str]:
    yield from var_names(expr)  # a Var and an IterArg alike


def reads_of(stmt: Stmt) -> Iterator[str]:
    """The names a statement subtree reads, as PyPTO's read collector counts them: every variable in
    an expression (an iter_arg use reads the iter_arg's buffer, which is its init's), and the return
    vars of a nested `If` / `For` (the collector visits them like uses). Assign targets are not reads."""
    if isinstance(stmt, (Assign, Eval)):
        yield from _expr_names(stmt.value)
    elif isinstance(stmt, (Yield, Return)):
        for v in stmt.values:
            yield from _expr_names(v)
    elif isinstance(stmt, For):
        for e in (stmt.start, stmt.stop, stmt.step, *stmt.inits):
            yield from _expr_names(e)
        for s in stmt.body:
            yield from reads_of(s)
        yield from (rv.name for rv in stmt.return_vars)
    elif isinstance(stmt, If):
        yield from _expr_names(stmt.cond)
        for s in (*stmt.then_body, *stmt.else_body):
            yield from reads_of(s)
        yield from (rv.name for rv in stmt.return_vars)
    elif isinstance(stmt, Scope):
        yield from _expr_names(stmt.call)
        for s in stmt.body:
            yield from reads_of(s)


def writes_of(stmt: Stmt) -> Iterator[str]:
    """The Assign targets of a statement subtree (PyPTO's write collector: LHS definitions only)."""
    if isinstance(stmt, Assign):
        yield stmt.target.name
    elif isinstance(stmt, For):
        for s in stmt.body:
            yield from writes_of(s)
    elif isinstance(stmt, If):
        for s in (*stmt.then_body, *stmt.else_body):
            yield from writes_of(s)
    elif isinstance(stmt, Scope):
        for s in stmt.body:
            yield from writes_of(s)


# ---------------------------------------------------------------------------------------------- allocs


def base_name(space: MemSpace, ident: int) -> str:
    """`mem_<space>_<N>`, the spelling PyPTO gives a buffer root."""
    return f"mem_{space.value.lower()}_{ident}"


def alloc_stmt(base: str, space: MemSpace, size: int) -> Assign:
    """`base: pl.Ptr = pl.tile.alloc(pl.Mem.<space>, size)`."""
    return Assign(Var(base), Call(ops.ALLOC, (Sym(f"Mem.{space.value}"), Const(size))), PtrType())


def is_alloc(stmt: Stmt) -> TypeGuard[Assign]:
    return isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == ops.ALLOC


def alloc_base(stmt: Stmt) -> str | None:
    return stmt.target.name if is_alloc(stmt) else None


# ---------------------------------------------------------------------------------------------- attrs

PIPELINE_MEMBERSHIP = "pipeline_membership"
"""The `attrs=` key LowerPipelineLoops stamps on each clone's producers: `"group:stage;..."`."""


def strip_pipeline_membership(fn: Function) -> Function:
    """*fn* without `pipeline_membership` in any call's `attrs=` (MemoryReuse consumes it)."""
    from pypto_verify.ir import map_stmt_exprs, stmt_exprs, walk_stmts

    def strip(e: Expr) -> Expr | None:
        if not _stamped(e):
            return None
        assert isinstance(e, Call)
        attrs = e.kwarg("attrs")
        assert isinstance(attrs, DictExpr)
        kept = tuple((k, v) for k, v in attrs.items if k != PIPELINE_MEMBERSHIP)
        return e.with_kwarg("attrs", replace(attrs, items=kept) if kept else None)

    if not any(_stamped(e) for stmt in walk_stmts(fn.body) for root in stmt_exprs(stmt) for e in walk_exprs(root)):
        return fn  # nothing to strip (no pipelined loop): a walk, without a map's call per node
    body = map_stmts(fn.body, lambda s: (map_stmt_exprs(s, strip),))
    return replace(fn, body=body)


def _stamped(e: Expr) -> bool:
    """Whether *e* is a call whose `attrs=` holds `pipeline_membership`."""
    if type(e) is not Call or not e.kwargs:
        return False
    attrs = e.kwarg("attrs")
    return isinstance(attrs, DictExpr) and any(k == PIPELINE_MEMBERSHIP for k, _ in attrs.items)


def membership_of(call: Call) -> tuple[tuple[int, int], ...]:
    """The `(group, stage)` pairs of a call's `pipeline_membership` attr (empty when absent)."""
    attrs = call.kwarg("attrs")
    if not isinstance(attrs, DictExpr):
        return ()
    for key, value in attrs.items:
        if key == PIPELINE_MEMBERSHIP and isinstance(value, Const) and isinstance(value.value, str):
            pairs = []
            for part in value.value.split(";"):
                if ":" in part:
                    g, s = part.split(":", 1)
                    pairs.append((int(g), int(s)))
            return tuple(pairs)
    return ()


