"""Small rewriting helpers shared by the tile-stage passes: fresh names, typing, substitution, cloning.

Owns nothing of the pipeline's meaning; every helper is a pure function over `pypto_verify.ir`.
Used by `simplify`, `convert_tensor_to_tile_ops`, `auto_tile_matmul_l0`, `infer_tile_memory_space`,
`lower_pipeline_loops` and `simplify_literal_conditions`.

SSA makes substitution global: a name is defined once per function (tensors excepted, and those are
never substituted), so one name -> expression map can be applied to any statement after the point
where the name stopped existing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TypeVar

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, BinOp, Call, Const, Eval, Expr, For, Function, If, Module, Return,
    Scope, Span, Stmt, TensorType, TileType, Type, Var, Yield, final_yield, map_expr, map_functions,
    map_stmt_exprs, map_stmts, map_type_exprs, type_env, var_like, walk_stmts, yield_values, replace,
)

# ---------------------------------------------------------------------------------------------- names


def defined_in(body: Iterable[Stmt]) -> list[str]:
    """Every name *body* defines, nested bodies included, in program order (repeats kept)."""
    names: list[str] = []
    for stmt in walk_stmts(tuple(body)):
        if isinstance(stmt, Assign):
            names.append(stmt.target.name)
        elif isinstance(stmt, For):
            names.extend((stmt.loop_var.name, *(a.name for a in stmt.iter_args),
                          *(v.name for v in stmt.return_vars)))
        elif isinstance(stmt, If):
            names.extend(v.name for v in stmt.return_vars)
    return names


class Namer:
    """Hands out names unused in one function: `base`, else `base_1`, `base_2`, ..."""

    def __init__(self, fn: Function) -> None:
        self.used: set[str] = {p.name for p in fn.params} | set(defined_in(fn.body)) | {"self"}
        self.probe: dict[str, int] = {}
        """base -> the first suffix not yet known to be taken (names are only ever added, so every suffix
        below it stays taken: the n-th copy of a name costs one probe, not n)."""

    def fresh(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        n = self.probe.get(base, 1)
        while f"{base}_{n}" in self.used:
            n += 1
        name = f"{base}_{n}"
        self.used.add(name)
        self.probe[base] = n + 1
        return name


# ---------------------------------------------------------------------------------------------- types


def infer_env(fn: Function) -> dict[str, Type]:
    """The passes' type environment: `ir.type_env` with op results and literals typed (`ops.value_type`); a
    fresh dict each call, the caller may change it."""
    last_fn, last_env = _LAST_ENV
    if last_fn is not fn:
        last_env = type_env(fn, ops.value_type)
        _LAST_ENV[:] = [fn, last_env]
    return dict(last_env)


_LAST_ENV: list = [None, {}]
"""The function `infer_env` typed last and its environment: a function is a frozen value, and the memory
passes ask for the same one's several times in a row (a whole walk of a long kernel each time)."""


def drop_unit_dims(shape: tuple[Expr, ...]) -> tuple[Expr, ...]:
    """A rank>2 shape without its leading unit dims (`[1, N, K]` -> `[N, K]`): the 2-D tile shape."""
    dims = tuple(shape)
    while len(dims) > 2 and ops.const_int(dims[0]) == 1:
        dims = dims[1:]
    return dims


def tile_of(t: Type | None) -> TileType | None:
    return t if isinstance(t, TileType) else None


def is_tensor(t: Type | None) -> bool:
    return isinstance(t, TensorType)


# ---------------------------------------------------------------------------------------------- bodies


def strip_yield(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """*body* without its trailing `Yield`."""
    return body[:-1] if body and isinstance(body[-1], Yield) else body


def map_kernel_functions(module: Module, fn: Callable[[Function], Function]) -> Module:
    """Apply *fn* to every kernel of *module* that is not lowered yet; other functions are kept (the
    pipeline hands a pass one kernel at a time, but a pass run on a whole module behaves the same)."""
    return map_functions(module, lambda f: fn(f) if is_kernel(f) and not is_lowered(f) else f)


is_kernel = ops.is_kernel
is_lowered = ops.is_lowered


# ---------------------------------------------------------------------------------------------- substitution


def subst_expr(expr: Expr, mapping: dict[str, Expr]) -> Expr:
    """*expr* with every variable named in *mapping* replaced (a `Var` and an `IterArg` alike)."""
    if not mapping:
        return expr

    def swap(e: Expr) -> Expr | None:
        v = var_like(e)
        return mapping.get(v.name) if v is not None else None

    return map_expr(expr, swap)


def subst_stmt_own(stmt: Stmt, mapping: dict[str, Expr]) -> Stmt:
    """*stmt* with its own expressions (not nested bodies) substituted."""
    if not mapping:
        return stmt
    get = mapping.get
    # `_swap` inlined: this runs on every node of every statement an unrolled copy or a clone makes
    swap = lambda e: get(e.name) if isinstance(e, Var) else None  # noqa: E731
    stmt = map_stmt_exprs(stmt, swap)
    # a type names scalars too (a valid shape `[rows, 64]`): a clone's tile is typed by the clone's own rows
    if isinstance(stmt, Assign) and stmt.type is not None:
        typed = map_type_exprs(stmt.type, swap)
        return stmt if typed is stmt.type else replace(stmt, type=typed)
    if isinstance(stmt, (For, If)) and any(t is not None for t in stmt.return_types):
        types = tuple(map_type_exprs(t, swap) for t in stmt.return_types)
        return stmt if all(a is b for a, b in zip(types, stmt.return_types)) else replace(stmt, return_types=types)
    return stmt


def _swap(e: Expr, mapping: dict[str, Expr]) -> Expr | None:
    v = var_like(e)
    return mapping.get(v.name) if v is not None else None


def subst_body(body: tuple[Stmt, ...], mapping: dict[str, Expr]) -> tuple[Stmt, ...]:
    """*body* with every use substituted, nested bodies included (definitions are not renamed)."""
    if not mapping:
        return body
    return map_stmts(body, lambda s: (subst_stmt_own(s, mapping),))


# ---------------------------------------------------------------------------------------------- cloning


def clone_fresh(body: tuple[Stmt, ...], mapping: dict[str, Expr], new_name: Callable[[str], str],
                keep: frozenset[str] = frozenset()) -> tuple[tuple[Stmt, ...], dict[str, Expr]]:
    """A copy of *body* in which every definition gets `new_name(old)` and every use is substituted
    through *mapping* plus the renames; returns the copy and the final mapping (to read the copy's
    yielded values through).

    Names in *keep* are not renamed: tensors defined outside the body that the body rebinds
    (`y = tile.store(acc, [0, 0], y)`), which keep their name by the IR conventions. A name defined
    twice inside the body (a tensor created and rebound there) keeps its first new name.
    """
    cloner = _Cloner(dict(mapping), new_name, keep)
    return cloner.body(body), cloner.mapping


_V = TypeVar("_V", bound=Var)  # a definition keeps its node class: a Var stays a Var, an IterArg an IterArg


class _Cloner:
    def __init__(self, mapping: dict[str, Expr], new_name: Callable[[str], str], keep: frozenset[str]) -> None:
        self.mapping = mapping
        self.new_name = new_name
        self.keep = keep
        self.renamed: dict[str, str] = {}

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return tuple(self.stmt(s) for s in body)

    def define(self, var: _V) -> _V:
        if var.name in self.keep:
            return var
        new = self.renamed.get(var.name)
        if new is None:
            new = self.new_name(var.name)
            self.renamed[var.name] = new
        renamed = replace(var, name=new)
        # a use keeps its own node class (Var or IterArg): map to the same class as the definition
        self.mapping[var.name] = renamed
        return renamed

    def stmt(self, stmt: Stmt) -> Stmt:
        stmt = subst_stmt_own(stmt, self.mapping)
        if isinstance(stmt, Assign):
            return replace(stmt, target=self.define(stmt.target))
        if isinstance(stmt, For):
            loop_var = self.define(stmt.loop_var)
            iter_args = tuple(self.define(a) for a in stmt.iter_args)
            body = self.body(stmt.body)
            return_vars = tuple(self.define(v) for v in stmt.return_vars)
            return replace(stmt, loop_var=loop_var, iter_args=iter_args, body=body, return_vars=return_vars)
        if isinstance(stmt, If):
            then_body = self.body(stmt.then_body)
            else_body = self.body(stmt.else_body)
            return_vars = tuple(self.define(v) for v in stmt.return_vars)
            return replace(stmt, then_body=then_body, else_body=else_body, return_vars=return_vars)
        if isinstance(stmt, Scope):
            return replace(stmt, body=self.body(stmt.body))
        return stmt


def definitions(fn: Function) -> Counter[str]:
    """How many times each name is defined in *fn* (a parameter counts once), for `rebound_outside`."""
    everywhere = Counter(defined_in(fn.body))
    everywhere.update(p.name for p in fn.params)
    return everywhere


def rebound_outside(everywhere: Counter[str], body: tuple[Stmt, ...]) -> frozenset[str]:
    """Names *body* defines that are also defined outside it (*everywhere*: `definitions` of the function
    holding it): tensors it rebinds (kept on cloning)."""
    inside = Counter(defined_in(body))
    return frozenset(n for n, c in inside.items() if everywhere[n] > c)


def offset_index(base: Expr, offset: int) -> Expr:
    """`base + offset`, folded when *base* is a literal, and *base* itself for offset 0."""
    if offset == 0:
        return base
    value = ops.const_int(base)
    if value is not None:
        return Const(value + offset)
    if offset < 0:
        return BinOp("-", base, Const(-offset))
    return BinOp("+", base, Const(offset))


def stmt_span(stmt: Stmt) -> Span:
    """Where *stmt* is written: every statement class has a span, but the `Stmt` base declares none."""
    assert isinstance(stmt, (Assign, Eval, Yield, Return, For, If, Scope)), f"unknown statement {stmt!r}"
    return stmt.span


def call_of(stmt: Stmt) -> Call | None:
    """The call an `Assign` or `Eval` evaluates, if any."""
    if isinstance(stmt, (Assign, Eval)) and isinstance(stmt.value, Call):
        return stmt.value
    return None




def fold_condition(expr: Expr) -> Expr:
    """*expr* with its literal parts folded: literal-only sub-expressions become their value, and a
    boolean `and` / `or` drops its neutral literal operands (`P and 0 == 0` -> `P`) or becomes the
    absorbing literal (`P and 256 == 0` -> `False`)."""
    from pypto_verify.ir import BoolOp, Compare, UnaryOp
    from pypto_verify.scalar import evaluate

    def step(e: Expr) -> Expr | None:
        if isinstance(e, (BinOp, Compare, UnaryOp, BoolOp)):
            value = evaluate(e)
            if value is not None and not isinstance(value, float):
                return Const(value, span=getattr(e, "span"))
        if isinstance(e, BoolOp):
            neutral = e.op == "and"
            kept = tuple(o for o in e.operands
                         if not (isinstance(o, Const) and isinstance(o.value, bool) and o.value is neutral))
            if len(kept) == 1:
                return kept[0]
            if not kept:
                return Const(neutral, span=e.span)
            if len(kept) != len(e.operands):
                return replace(e, operands=kept)
        return None

    return map_expr(expr, step)


# ---------------------------------------------------------------------------------------------- literals


def propagate_literals(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """*body* in the frontend's canonical form for literal scalars: literal-only arithmetic folded
    (`7 * 256` -> `1792`, comparisons and boolean operators kept), and every scalar `Assign` whose value
    is then an int literal substituted into all later uses, nested bodies included.

    The frontend reads `k0 = 7 * 256` exactly so (a static local), which makes a pass's output that has
    been through this print and parse back to itself; SSA makes the forward substitution sound.
    """
    from pypto_verify.ir import UnaryOp
    from pypto_verify.scalar import evaluate

    literals: dict[str, Expr] = {}

    def fold(e: Expr) -> Expr | None:
        if isinstance(e, (BinOp, UnaryOp)):
            value = evaluate(e)
            if isinstance(value, int) and not isinstance(value, bool):
                return Const(value, span=e.span)
        return None

    def stmt(s: Stmt) -> Stmt:
        s = map_stmt_exprs(subst_stmt_own(s, literals), fold)
        if isinstance(s, Assign):
            if isinstance(s.value, Const) and type(s.value.value) is int and s.value.dtype is None:
                literals[s.target.name] = Const(s.value.value, span=s.value.span)
            return s
        if isinstance(s, For):
            return replace(s, body=tuple(stmt(x) for x in s.body))
        if isinstance(s, If):
            return replace(s, then_body=tuple(stmt(x) for x in s.then_body),
                           else_body=tuple(stmt(x) for x in s.else_body))
        if isinstance(s, Scope):
            return replace(s, body=tuple(stmt(x) for x in s.body))
        return s

    return tuple(stmt(s) for s in body)
