"""Accumulator sites: every L0C reduction chain of a module, as a model of its iteration space.

Owns: finding the chains (L0C_RULES.md, "Z3 obligations": a chain runs from its initialising write
through its K iterations to its drain), projecting each function body onto one chain, and matching the
chains of a source module with those of its lowering. Input: an `ir.Module` in any form (Form 1 tensor
level, Form 2 tile level, or lowered / Form 3). Output: `AccSite` records; `encode.py` turns them into terms.

A chain is a class of values under the flows of the IR: `matmul_acc`'s acc operand and its result, a
loop's init / iter_arg / yield / return var, an if's arm yields and its phi, an identity copy `x = y`.
A class is a chain when a MAD (`matmul`, `matmul_bias`, `matmul_acc`, tile or tensor level) writes one of
its values. A MAD that is an operand of another expression (`y[:, :] = pl.matmul(a, b)` reads as
`pl.tensor.assemble(y, pl.tensor.matmul(a, b), ...)`) is first bound to a name of its own, with the
spans it had (`hoist_mads`): a one-step chain drained by its consumer, matched with the K loop the
lowering auto-tiles it into. Projecting the function body onto the chain keeps five kinds of item, in program order:

- `Mad`: one MAD on the chain (it resets when it is `matmul` / `matmul_bias`, or a `matmul_acc` whose
  `init_cond` holds; it accumulates otherwise), with where its operands lie in the GM tensors;
- `Loop`: a loop whose body holds items (its start / stop / step as written, possibly symbolic);
- `Branch`: an `if` whose arms hold items (an if-phi seed is a `Branch` of two `Mad`s);
- `Create`: a `tile.create` / `tensor.create` of the chain (the L0C contents become undefined);
- `Drain`: any read of the chain's current value other than a flow: a store, an assemble, a move, a
  return, a vector op or cast in Form 1 (FIXPIPE or the tensor-level equivalent).

The region of a site is the smallest part of the function that holds one chain instance: enclosing loops
that do not carry the chain (an `mb` loop over output tiles that creates a fresh accumulator each time,
`pl.spmd` blocks) become *context* loops whose variables are free symbols with their domain as an
assumption, so a source whose scope is outlined into a kernel still matches its lowering. A loop that
carries the chain (an `nb` loop that stores each output tile and restarts the same accumulator) stays in
the model: the reset after a drain starts a new output tile.

Chains the model cannot express exactly are *unsupported* (the site keeps its reason, and every obligation
on it is inconclusive): a read of a value after the chain moved on (PV004 reports those), a chain carried
by two iter_args of one loop, or a value of the chain defined by an op that is neither a MAD nor a create
in the middle of the chain.

`get_block_idx()` inside a `pl.spmd(n)` launch is the launch's loop variable (`bind_block_indices`), and a
`set_validshape` of an operand is the operand's block, narrowed in the dimensions whose valid extent is not the
block's own (`_Origins._valid_view`).

The scalars a site's expressions read are described by `Scalars`: inline definitions, parameters, the
scalars loops carry (`Carry`: an iter_arg and its return var, valued by `encode.py`) and the scalars ifs
yield (`ScalarPhi`).

Sites are matched source <-> lowered by the spans of their MADs: the passes keep the span of the source op
a lowered op came from (`dataclasses.replace`). Context loop variables are shared by name, except that the
lowered clone j of a replicated loop that does not carry the chain stands for the source's iteration
`i + j * step` (`AccSite.context_offsets`), and a copy made with the variable replaced by a literal (a
static tail clone, an unrolled copy) for that literal iteration (`AccSite.context_values`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Union

from pypto_verify import ops
from pypto_verify.ir import (
    NO_SPAN, Assign, BinOp, BoolOp, Call, Compare, Const, DType, Eval, Expr, For, Function, If, IterArg,
    ListExpr, LoopKind, MemSpace, Module, Param, Return, ScalarType, Scope, Span, Stmt, TensorType, TileType,
    TupleExpr, Type, UnaryOp, Var, Yield, display_name, final_yield, map_stmt_exprs, map_stmts, stmt_exprs, type_env,
    var_like, var_names, walk_exprs, yield_values, replace,
)
from pypto_verify.span import slotted_init


# ---------------------------------------------------------------------------------------------- model


@slotted_init
@dataclass(frozen=True, slots=True)
class Operand:
    """Where a MAD operand's block lies: in the GM tensor `root`, `extents` elements from `offsets`.

    `offsets` and `extents` are in the root's dimensions; `dims[d]` is the root dimension of the value's
    dimension d (a transpose view swaps them, a 3-D load of a unit batch dimension drops one). A root that
    is not a GM tensor (an opaque op, e.g. a cast of a slice, or a reshape that merges dimensions) is a
    term of its inputs: named by its source position, with `root_args` holding the offsets of that op's
    own operands, so each iteration's block stays apart; a tile or tensor a loop computes across its
    iterations is a term of the loop (`_Origins._loop_result`). An extent is None where the root's dimension is
    not a literal (a `pl.dynamic` dimension, a size computed at run time); a block whose own extents are
    not all known is not traced.
    """

    root: str
    offsets: tuple[Expr, ...]
    extents: tuple[int | None, ...]
    dims: tuple[int, ...]
    root_args: tuple[Expr, ...] = ()
    root_shape: tuple[int | None, ...] = ()
    """The root's own extents (a tensor parameter's shape, a created buffer's, an opaque op's result;
    None for a dimension that is not a literal)."""
    narrowed: tuple[int, ...] = ()
    """The root dimensions in which a `set_validshape` may have made the valid region smaller than the
    block (its valid extent there is not the block's own): the block's data and place are its operand's,
    but how much of it a MAD reads along such a dimension is not known."""
    elementwise_of: Operand | None = None
    """For the result of a cast of one block (`pl.cast(x[:, k0 : k0 + TK])`): that block, whose elements
    the result holds one for one (its K blocks are the block's; the root stays the cast's own)."""
    bound: tuple[str, ...] = ()
    """The loop variables (as the user named them) of the loops whose results the term names
    (`_Origins._loop_result`): its offsets and `root_args` range over them as free symbols, so a chain whose
    own loops use one of these names cannot compare the term (`encode.py` leaves it untraced)."""


@slotted_init
@dataclass(frozen=True, slots=True)
class Mad:
    """One MAD on the chain; `kind` is `fresh` (matmul), `bias` (matmul_bias) or `acc` (matmul_acc)."""

    op: str
    kind: str
    init_cond: Expr | None
    """True on the iterations where a `matmul_acc` initialises; None means it always accumulates."""
    lhs: Operand | None
    rhs: Operand | None
    bias: Operand | None
    a_trans: bool
    b_trans: bool
    target: str
    span: Span
    call_span: Span
    sub_blocks: int = 1
    """How many L0 blocks this (source) MAD stands for: the lowering splits its K block into that many,
    in K order; the first carries the reset, the others accumulate (set by `refine`)."""
    sub_width: int | None = None
    """The K width of each L0 block but the last (set by `refine`)."""
    type_k: int | None = None
    """The K width the left operand's static type gives (for operands the model cannot trace)."""
    blocks_unknown: bool = False
    """This (source) MAD's K width is not known while its lowering works in L0 blocks of a known width, so
    how many blocks it stands for is not known either (set by `refine`; the encoding treats the count as
    an approximation)."""
    why: tuple[tuple[str, str], ...] = ()
    """(operand, why) for each operand (`lhs`, `rhs`, `bias`) not traced to a root, in the source's words."""

    @property
    def k_extent(self) -> int | None:
        """The K width of this MAD's block, when known: from its left operand, else from its right one
        (an operand the model cannot trace to a GM tensor, e.g. a reshaped view, has no extents), else
        from the left operand's type."""
        dim = self.lhs_k_root
        if dim is not None and self.lhs is not None and self.lhs.extents[dim] is not None:
            return self.lhs.extents[dim]
        dim = self.rhs_k_root
        if dim is not None and self.rhs is not None and self.rhs.extents[dim] is not None:
            return self.rhs.extents[dim]
        return self.type_k

    @property
    def lhs_k_root(self) -> int | None:
        """The root dimension of the left operand's K dimension."""
        if self.lhs is None:
            return None
        dim = -2 if self.a_trans else -1
        return self.lhs.dims[dim] if len(self.lhs.dims) >= 2 else None

    @property
    def rhs_k_root(self) -> int | None:
        """The root dimension of the right operand's K dimension."""
        if self.rhs is None:
            return None
        dim = -1 if self.b_trans else -2
        return self.rhs.dims[dim] if len(self.rhs.dims) >= 2 else None


@slotted_init
@dataclass(frozen=True, slots=True)
class Loop:
    """A loop holding chain items; `var` is the loop variable's SSA name."""

    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: tuple[Item, ...]
    kind: LoopKind
    carried: bool
    """The loop carries the chain in an iter_arg."""
    span: Span


@slotted_init
@dataclass(frozen=True, slots=True)
class Branch:
    """An `if` whose arms hold chain items."""

    cond: Expr
    then: tuple[Item, ...]
    orelse: tuple[Item, ...]
    span: Span


@slotted_init
@dataclass(frozen=True, slots=True)
class Create:
    """The chain's accumulator is (re)created: its L0C contents are undefined from here."""

    target: str
    span: Span


@slotted_init
@dataclass(frozen=True, slots=True)
class Drain:
    """The chain's current value is read out (store, assemble, move, return, a Form 1 vector op)."""

    op: str
    span: Span


Item = Union[Mad, Loop, Branch, Create, Drain]


@slotted_init
@dataclass(frozen=True, slots=True)
class ContextLoop:
    """An enclosing loop that does not carry the chain: its variable is a free symbol in its domain."""

    var: str
    start: Expr
    stop: Expr
    step: Expr


@slotted_init
@dataclass(frozen=True, slots=True)
class ContextGuard:
    """An enclosing `if` condition that holds for the whole chain."""

    cond: Expr
    holds: bool


@slotted_init
@dataclass(frozen=True, slots=True)
class Carry:
    """A scalar a loop carries (`k0 = 0` before `for kb`, `k0 = k0 + K_TILE` in it): the iter_arg `arg`
    inside the loop, or the loop's return var (`after`). `encode.py` values it as `init + i * delta` when
    the yielded value is `arg + delta` with `delta` loop-invariant, and as an approximation otherwise."""

    arg: str
    loop_var: str
    start: Expr
    stop: Expr
    step: Expr
    init: Expr
    yielded: Expr | None
    after: bool
    span: Span


@slotted_init
@dataclass(frozen=True, slots=True)
class ScalarPhi:
    """A scalar an `if` yields: `then` when `cond` holds, else `orelse` (None when an arm yields nothing)."""

    cond: Expr
    then: Expr | None
    orelse: Expr | None


@slotted_init
@dataclass(frozen=True, slots=True)
class Scalars:
    """How the scalar names of one function are valued: inline definitions, runtime reads, params,
    loop carries and if-phis."""

    defs: dict[str, Expr] = field(default_factory=dict)
    """Scalar SSA names defined by index arithmetic, a copy, a literal, or a call (read / opaque)."""
    params: frozenset[str] = frozenset()
    """Scalar parameters (runtime values)."""
    carries: dict[str, Carry] = field(default_factory=dict)
    """Scalar iter_args and return vars of loops, by SSA name."""
    phis: dict[str, ScalarPhi] = field(default_factory=dict)
    """Scalar return vars of ifs, by SSA name."""
    tensors: frozenset[str] = frozenset()
    """Tensor parameters: their extents (`tensor.dim`) are one value for the whole run."""
    casts: dict[str, Call] = field(default_factory=dict)
    """Scalar SSA names defined by a cast of a scalar (`page = pl.cast(pl.read(table, [p]), pl.INDEX)`):
    free symbols, except where a read must be a function of its indices (`encode.ExprEncoder.functional`)."""


@slotted_init
@dataclass(frozen=True, slots=True)
class AccSite:
    """One accumulator chain of one function, with the model of its iteration space."""

    id: str
    """Stable id: `<function>:<line of the chain's first MAD>`."""
    function: str
    name: str
    """The accumulator as the user named it (`acc`)."""
    span: Span
    """The chain's first MAD."""
    path: str
    body: tuple[Item, ...]
    context: tuple[ContextLoop | ContextGuard, ...]
    scalars: Scalars
    initial: str
    """`undefined` (the chain starts from a create or from nothing) or `external` (a parameter)."""
    unsupported: str = ""
    """Why the model cannot express this chain exactly ("" when it can)."""
    mad_spans: frozenset[Span] = frozenset()
    context_offsets: tuple[tuple[str, int], ...] = ()
    """(context loop variable, offset) of a source site matched with one clone of a replicated loop:
    the lowered clone j of `for i in pl.pipeline(s, e, step, stage=F)` runs in the main loop of step
    `F * step` at `i + j * step`, so the source's `i` is the lowered `i` plus `j * step` (`match_sites`)."""
    context_values: tuple[tuple[str, int], ...] = ()
    """(context loop variable, value) of a source site matched with a copy the lowering made with the
    loop variable replaced by a literal: a pipeline's static tail clone, an unrolled copy."""
    context_exprs: tuple[tuple[str, Expr], ...] = ()
    """(context loop variable, expression in the source's scalars) of a source site matched with a copy in
    the run-time remainder of a pipeline whose bounds are not literals (LowerPipelineLoops' cascade
    `if unroll_rem == k:` of k copies): copy j stands for `start + (trip // F) * F * step + j * step`."""
    copy: bool = False
    """The lowered site of a copy of a loop's body at a shifted, literal or computed iteration (a clone of a
    replicated loop, a tail or remainder copy), or the source site matched with one: a table read the copy
    re-does under a name of its own (`page_1 = pl.read(table, [p + 1])`) is encoded on both sides as a function
    of its indices (`encode.ExprEncoder.functional`), so the copy's read is the source's at that iteration."""
    context_names: tuple[tuple[str, str], ...] = ()
    """(context loop variable, source name) of a lowered site in a clone whose loops the lowering renamed
    (`d0` → `d0_1` in clone 1 of a replicated outer loop): the clone's loop is the source's, one symbol."""

    @property
    def mads(self) -> tuple[Mad, ...]:
        """Every MAD of the chain, in program order."""
        return tuple(item for item in walk_items(self.body) if isinstance(item, Mad))

    @property
    def biased(self) -> bool:
        """The chain adds a bias row (it has a `matmul_bias`)."""
        return any(m.kind == "bias" for m in self.mads)


def walk_items(body: tuple[Item, ...]) -> Iterator[Item]:
    """Every item of *body*, pre-order, descending into loops and branches."""
    for item in body:
        yield item
        if isinstance(item, Loop):
            yield from walk_items(item.body)
        elif isinstance(item, Branch):
            yield from walk_items(item.then)
            yield from walk_items(item.orelse)


def _depends(scalars: Scalars, exprs: tuple[Expr | None, ...], leaf: Callable[[str], bool]) -> Iterator[Expr | str]:
    """Every expression *exprs* depend on through inline definitions, loop carries and if-phis, and (as a
    `str`) each variable name that is a *leaf* (not followed) or that none of them defines, each once, in
    order of first use."""
    seen: set[str] = set()
    stack: list[Expr] = [e for e in exprs if e is not None]
    while stack:
        for e in walk_exprs(stack.pop()):
            yield e
            v = var_like(e)
            if v is None or v.name in seen:
                continue
            seen.add(v.name)
            definition = scalars.defs.get(v.name)
            if leaf(v.name):
                yield v.name
            elif definition is not None:
                stack.append(definition)
            elif v.name in scalars.carries:
                carry = scalars.carries[v.name]
                stack += [x for x in (carry.init, carry.yielded) if x is not None]
            elif v.name in scalars.phis:
                phi = scalars.phis[v.name]
                stack += [x for x in (phi.cond, phi.then, phi.orelse) if x is not None]
            else:
                yield v.name


def runtime_inputs(scalars: Scalars, exprs: tuple[Expr | None, ...]) -> list[str]:
    """The values read at run time (a scalar parameter, a `pl.read` of a tensor) that *exprs* depend on,
    through inline definitions, loop carries and if-phis: display names, in order of first use. Loop
    variables are not followed into their bounds (a runtime trip count is a size, not a choice)."""
    def read(name: str) -> bool:
        definition = scalars.defs.get(name)
        return name in scalars.params or (isinstance(definition, Call) and definition.op in ops.SCALAR_READS)
    return [display_name(x) for x in _depends(scalars, exprs, read) if isinstance(x, str) and read(x)]


def reads_tensors(scalars: Scalars, exprs: tuple[Expr, ...], loop_vars: frozenset[str]) -> bool:
    """*exprs* depend on a value read from a tensor at run time (`pl.read(table, [i])`), through inline
    definitions, loop carries and if-phis, or on a name none of them (nor a parameter, nor one of
    *loop_vars*) defines (the model cannot tell what it holds)."""
    return any(x not in scalars.params and x not in loop_vars if isinstance(x, str)
               else isinstance(x, Call) and x.op in ops.SCALAR_READS
               for x in _depends(scalars, exprs, lambda name: False))


# ---------------------------------------------------------------------------------------------- extraction


def extract_sites(module: Module) -> list[AccSite]:
    """Every accumulator chain of every function of *module*, in program order."""
    sites: list[AccSite] = []
    for _, fn in module.functions():
        sites.extend(function_sites(fn, module.path))
    return sites


def function_sites(fn: Function, path: str = "") -> list[AccSite]:
    """The chains of one function."""
    fn = bind_block_indices(hoist_mads(fn))
    classes = _chain_classes(fn)
    if not classes:
        return []
    types = _types(fn)
    defs = _definitions(fn)
    origins = _Origins(fn, types, defs, classes)
    scalars = _scalars(fn, types)
    index = _Mentions(fn)
    sites = []
    for members, first in classes:
        sites.append(_Projector(fn, path, members, first, defs, origins, scalars, index).site())
    sites.sort(key=lambda s: (s.span.line, s.span.col))
    return _unique_ids(sites)


def hoist_mads(fn: Function) -> Function:
    """*fn* with every MAD that is an operand of another expression (`y[:, :] = pl.matmul(a, b)` reads
    as `pl.tensor.assemble(y, pl.tensor.matmul(...), ...)`) bound to a name of its own right before its
    statement, keeping the statement's and the call's spans: a one-step chain drained by its consumer,
    matched with the K loop the lowering tiles it into."""
    counter = [0]

    def lift(expr: Expr, target: str, out: list[Stmt], span: Span, top: bool) -> Expr:
        if isinstance(expr, Call):
            args = tuple(lift(a, target, out, span, False) for a in expr.args)
            kwargs = tuple((k, lift(v, target, out, span, False)) for k, v in expr.kwargs)
            # `lift` returns an operand it does not change as it is: identity, not a deep comparison, says so
            if any(a is not b for a, b in zip(args, expr.args)) or \
                    any(a is not b for (_, a), (_, b) in zip(kwargs, expr.kwargs)):
                expr = replace(expr, args=args, kwargs=kwargs)
            if not top and expr.op in ops.ALL_MADS:
                counter[0] += 1
                name = Var(f"{target}__mad_h{counter[0]}", span=expr.span)
                out.append(Assign(name, expr, span=span))
                return name
            return expr
        if isinstance(expr, (ListExpr, TupleExpr)):
            items = tuple(lift(e, target, out, span, False) for e in expr.items)
            return expr if all(a is b for a, b in zip(items, expr.items)) else replace(expr, items=items)
        return expr

    def visit(stmt: Stmt) -> tuple[Stmt, ...] | None:
        lifted: list[Stmt] = []
        if isinstance(stmt, Assign):
            value = lift(stmt.value, display_name(stmt.target.name), lifted, stmt.span, True)
            return (*lifted, replace(stmt, value=value)) if lifted else None
        if isinstance(stmt, Eval):
            value = lift(stmt.value, "mad", lifted, stmt.span, True)
            return (*lifted, replace(stmt, value=value)) if lifted else None
        if isinstance(stmt, (Return, Yield)):
            values = tuple(lift(v, "mad", lifted, stmt.span, False) for v in stmt.values)
            return (*lifted, replace(stmt, values=values)) if lifted else None
        return None

    body = map_stmts(fn.body, visit)
    return fn if not counter[0] else replace(fn, body=body)


def bind_block_indices(fn: Function) -> Function:
    """*fn* with every `get_block_idx()` inside a `pl.spmd(n)` loop replaced by that launch's loop variable:
    the launch runs its blocks 0 .. n - 1 as the iterations of the loop (`reference.py` runs them so), and
    the innermost launch is the one the block index is of. Only a loop `range(0, n, 1)` is bound; a block
    index outside every launch (its range given at run time) stays an undefined name, so a window
    indexed by it is never taken as known."""

    def bound(block: Var) -> Callable[[Expr], Expr | None]:
        return lambda e: Var(block.name, span=e.span) if (
            isinstance(e, Call) and e.op in ops.BLOCK_IDX and not e.args) else None

    def visit(body: tuple[Stmt, ...], block: Var | None) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for stmt in body:
            inner = block
            if isinstance(stmt, For) and stmt.kind is LoopKind.SPMD:
                launched = ops.const_int(stmt.start) == 0 and ops.const_int(stmt.step) == 1
                inner = stmt.loop_var if launched else None
            if isinstance(stmt, (For, Scope)):
                stmt = replace(stmt, body=visit(stmt.body, inner))
            elif isinstance(stmt, If):
                stmt = replace(stmt, then_body=visit(stmt.then_body, inner), else_body=visit(stmt.else_body, inner))
            out.append(map_stmt_exprs(stmt, bound(block)) if block is not None else stmt)
        return tuple(out)

    if not any(isinstance(e, Call) and e.op in ops.BLOCK_IDX
               for stmt in _walk(fn.body) for root in stmt_exprs(stmt) for e in walk_exprs(root)):
        return fn
    return replace(fn, body=visit(fn.body, None))


def _unique_ids(sites: list[AccSite]) -> list[AccSite]:
    seen: dict[str, int] = {}
    out = []
    for site in sites:
        n = seen.get(site.id, 0)
        seen[site.id] = n + 1
        out.append(site if n == 0 else replace(site, id=f"{site.id}.{n + 1}"))
    return out


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _chain_classes(fn: Function) -> list[tuple[frozenset[str], Assign]]:
    """Each chain as (its value names, its first MAD), in program order of the first MAD."""
    uf = _UnionFind()
    mad_outputs: list[Assign] = []

    def name(expr: Expr | None) -> str | None:
        v = var_like(expr)
        return v.name if v is not None else None

    def visit(body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, Assign):
                value = stmt.value
                if isinstance(value, Call) and value.op in ops.ALL_MADS:
                    mad_outputs.append(stmt)
                    uf.find(stmt.target.name)
                    acc = name(ops.matmul_parts(value).acc) if value.op in ops.ACC_MADS else None
                    if acc is not None:
                        uf.union(stmt.target.name, acc)
                elif (source := var_like(value)) is not None:
                    uf.union(stmt.target.name, source.name)
            elif isinstance(stmt, For):
                yielded = final_yield(stmt.body)
                for i, arg in enumerate(stmt.iter_args):
                    if i < len(stmt.inits) and (init := name(stmt.inits[i])) is not None:
                        uf.union(arg.name, init)
                    if i < len(stmt.return_vars):
                        uf.union(arg.name, stmt.return_vars[i].name)
                    if yielded is not None and i < len(yielded.values) and \
                            (carried := name(yielded.values[i])) is not None:
                        uf.union(arg.name, carried)
                visit(stmt.body)
            elif isinstance(stmt, If):
                for arm in (stmt.then_body, stmt.else_body):
                    yielded = final_yield(arm)
                    for i, rv in enumerate(stmt.return_vars):
                        if yielded is not None and i < len(yielded.values) and \
                                (arm_value := name(yielded.values[i])) is not None:
                            uf.union(rv.name, arm_value)
                visit(stmt.then_body)
                visit(stmt.else_body)
            elif isinstance(stmt, Scope):
                visit(stmt.body)

    visit(fn.body)
    members: dict[str, set[str]] = {}
    for x in list(uf.parent):
        members.setdefault(uf.find(x), set()).add(x)
    classes: list[tuple[frozenset[str], Assign]] = []
    seen: set[str] = set()
    for stmt in mad_outputs:
        root = uf.find(stmt.target.name)
        if root in seen:
            continue
        seen.add(root)
        classes.append((frozenset(members[root]), stmt))
    return classes


def _definitions(fn: Function) -> dict[str, Assign]:
    defs: dict[str, Assign] = {}
    for stmt in _walk(fn.body):
        if isinstance(stmt, Assign):
            defs.setdefault(stmt.target.name, stmt)
    return defs


class _Mentions:
    """Where each name of one function is mentioned, computed once for all its chains: a chain's
    projection visits only the statements that mention one of its members (any other statement
    projects to nothing), so extracting every chain of a long unrolled body costs the body once plus
    each chain's own statements, not chains x statements."""

    def __init__(self, fn: Function) -> None:
        self._names: dict[int, frozenset[str]] = {}
        self._positions: dict[int, dict[str, list[int]]] = {}
        self.assigns: dict[str, list[tuple[int, Assign]]] = {}
        """Name -> the statements assigning it, with their program-order position."""
        for position, stmt in enumerate(_walk(fn.body)):
            if isinstance(stmt, Assign):
                self.assigns.setdefault(stmt.target.name, []).append((position, stmt))

    def of(self, members: frozenset[str]) -> list[Assign]:
        """The statements assigning a member, in program order."""
        found = [pair for name in members for pair in self.assigns.get(name, ())]
        return [stmt for _, stmt in sorted(found, key=lambda pair: pair[0])]

    def relevant(self, body: tuple[Stmt, ...], members: frozenset[str]) -> list[Stmt]:
        """The statements of *body* whose subtree mentions a member, in order."""
        positions = self._positions.get(id(body))
        if positions is None:
            positions = {}
            for i, stmt in enumerate(body):
                for name in self.names(stmt):
                    positions.setdefault(name, []).append(i)
            self._positions[id(body)] = positions
        hits = sorted({i for name in members for i in positions.get(name, ())})
        return [body[i] for i in hits]

    def names(self, stmt: Stmt) -> frozenset[str]:
        """Every name *stmt* and the statements inside it mention (read, assign, carry, yield)."""
        found = self._names.get(id(stmt))
        if found is not None:
            return found
        out: set[str] = set()
        if isinstance(stmt, Assign):
            out.add(stmt.target.name)
            out.update(_var_names(stmt.value))
        elif isinstance(stmt, Eval):
            out.update(_var_names(stmt.value))
        elif isinstance(stmt, (Return, Yield)):
            for value in stmt.values:
                out.update(_var_names(value))
        elif isinstance(stmt, For):
            out.add(stmt.loop_var.name)
            out.update(a.name for a in stmt.iter_args)
            out.update(v.name for v in stmt.return_vars)
            for e in (stmt.start, stmt.stop, stmt.step, *stmt.inits):
                out.update(_var_names(e))
            for inner in stmt.body:
                out |= self.names(inner)
        elif isinstance(stmt, If):
            out.update(v.name for v in stmt.return_vars)
            out.update(_var_names(stmt.cond))
            for inner in (*stmt.then_body, *stmt.else_body):
                out |= self.names(inner)
        elif isinstance(stmt, Scope):
            for inner in stmt.body:
                out |= self.names(inner)
        else:
            raise TypeError(f"unexpected statement {type(stmt).__name__}")
        frozen = frozenset(out)
        self._names[id(stmt)] = frozen
        return frozen


def _var_names(expr: Expr | None) -> Iterator[str]:
    if expr is None:
        return
    yield from var_names(expr)


def _bare_ranks(fn: Function) -> dict[str, int]:
    """The parameters of *fn* with no type, each with the rank its windows (`tensor.slice` / `tile.load`
    of it) all take; one whose windows disagree on the rank, or that has none, is left out."""
    bare = {p.name for p in fn.params if p.type is None}
    ranks: dict[str, set[int]] = {}
    if not bare:
        return {}
    for stmt in _walk(fn.body):
        for top in stmt_exprs(stmt):
            for expr in walk_exprs(top):
                if not isinstance(expr, Call) or expr.op not in (ops.T_SLICE, ops.LOAD) or len(expr.args) < 3:
                    continue
                v = var_like(expr.args[0])
                offsets = expr.args[2] if expr.op == ops.T_SLICE else expr.args[1]
                if v is not None and v.name in bare and isinstance(offsets, (ListExpr, TupleExpr)):
                    ranks.setdefault(v.name, set()).add(len(offsets.items))
    return {name: next(iter(r)) for name, r in ranks.items() if len(r) == 1}


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


def _types(fn: Function) -> dict[str, Type]:
    """Every name's type: annotations, then `ops.infer_call_type`, copies, iter_args, loop results and if
    results, and the windows of a bare `pl.Tensor` that are MAD operands (`_pin_bare_windows`) — in rounds to
    a fixpoint, so a loop body sees types defined after it in an earlier round."""
    env = type_env(fn)
    for _ in range(16):  # to a fixpoint: each round types what the last one's carries and phis made known
        known = len(env)
        _pin_bare_windows(fn, env)
        for stmt in _walk(fn.body):
            if isinstance(stmt, Assign) and stmt.target.name not in env:
                value = stmt.value
                t = None
                if isinstance(value, Call):
                    t = ops.infer_call_type(value, env)
                elif (source := var_like(value)) is not None:
                    t = env.get(source.name)
                if t is not None:
                    env[stmt.target.name] = t
            elif isinstance(stmt, For):
                for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                    v = var_like(init)
                    if arg.name not in env and v is not None and v.name in env:
                        env[arg.name] = env[v.name]
                    # a loop's result has its carry's type
                    if i < len(stmt.return_vars) and stmt.return_vars[i].name not in env and arg.name in env:
                        env[stmt.return_vars[i].name] = env[arg.name]
            elif isinstance(stmt, If):
                # an if's result has the type of what its arms yield, when they agree
                arms = [final_yield(stmt.then_body), final_yield(stmt.else_body)]
                for i, rv in enumerate(stmt.return_vars):
                    if rv.name in env:
                        continue
                    found = [env.get(v.name) if (v := var_like(a.values[i])) is not None else None
                             for a in arms if a is not None and i < len(a.values)]
                    if found and all(f is not None and f == found[0] for f in found):
                        env[rv.name] = found[0]  # type: ignore[assignment]
        if len(env) == known:
            break
    return env


def _pin_bare_windows(fn: Function, env: dict[str, Type]) -> None:
    """Type each window `x[a:b, c:d]` of a run-time shaped parameter (a bare `pl.Tensor` of a `pl.jit` entry)
    that is a MAD operand as the lowering does (`convert_tensor_to_tile_ops._pin_runtime_operands`): the slice's
    own shape and the other operand's dtype (pypto's tile.matmul / matmul_acc require identical lhs and rhs
    dtypes); left untyped when the other operands' dtypes are unknown or differ. Without it, every value
    computed from such a window (a product, a softmax of it, its cast) has no shape here, and no block."""
    runtime = {p.name for p in fn.params if p.runtime_shaped}
    if not runtime:
        return
    windows: dict[str, tuple[Expr, ...]] = {}
    mads: list[Call] = []
    for stmt in _walk(fn.body):
        if not isinstance(stmt, Assign) or not isinstance(stmt.value, Call):
            continue
        call = stmt.value
        if stmt.target.name not in env and call.op == ops.T_SLICE and len(call.args) >= 3 \
                and (v := var_like(call.args[0])) is not None and v.name in runtime \
                and isinstance(call.args[1], ListExpr):
            windows[stmt.target.name] = tuple(call.args[1].items)
        elif call.op in ops.TENSOR_MADS:
            mads.append(call)
    dtypes: dict[str, set[DType | None]] = {}
    for call in mads:
        parts = ops.matmul_parts(call)
        for operand, other in ((parts.lhs, parts.rhs), (parts.rhs, parts.lhs)):
            v = var_like(operand)
            if v is not None and v.name in windows:
                o = var_like(other)
                t = env.get(o.name) if o is not None else None
                dtypes.setdefault(v.name, set()).add(t.dtype if isinstance(t, (TileType, TensorType)) else None)
    for name, found in dtypes.items():
        dtype = next(iter(found)) if len(found) == 1 else None
        if dtype is not None:
            env[name] = TensorType(windows[name], dtype)


def carries_and_phis(fn: Function, scalar: Callable[[str, Expr | None], bool]
                     ) -> tuple[dict[str, Carry], dict[str, ScalarPhi]]:
    """The scalar loop carries and if-phis of *fn*, by SSA name: those whose name and every incoming value
    *scalar(name, value)* accepts (a tile or tensor carry is a chain's, not a scalar's)."""
    carries: dict[str, Carry] = {}
    phis: dict[str, ScalarPhi] = {}
    for stmt in _walk(fn.body):
        if isinstance(stmt, For):
            yielded = final_yield(stmt.body)
            for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                if not scalar(arg.name, init):
                    continue
                carried = yielded.values[i] if yielded is not None and i < len(yielded.values) else None
                carry = Carry(arg.name, stmt.loop_var.name, stmt.start, stmt.stop, stmt.step, init, carried, False,
                              stmt.span)
                carries[arg.name] = carry
                if i < len(stmt.return_vars):
                    carries[stmt.return_vars[i].name] = replace(carry, after=True)
        elif isinstance(stmt, If):
            arms = [final_yield(stmt.then_body), final_yield(stmt.else_body)]
            for i, rv in enumerate(stmt.return_vars):
                values = [a.values[i] if a is not None and i < len(a.values) else None for a in arms]
                if all(scalar(rv.name, v) for v in values):
                    phis[rv.name] = ScalarPhi(stmt.cond, values[0], values[1])
    return carries, phis


def _scalars(fn: Function, types: dict[str, Type]) -> Scalars:
    """The scalar definitions of *fn*: what `encode.py` inlines or turns into symbols."""
    defs: dict[str, Expr] = {}
    casts: dict[str, Call] = {}
    for stmt in _walk(fn.body):
        if not isinstance(stmt, Assign):
            continue
        value = stmt.value
        t = stmt.type if stmt.type is not None else types.get(stmt.target.name)
        if isinstance(value, (BinOp, UnaryOp, Compare, BoolOp)):
            defs[stmt.target.name] = value
        elif isinstance(value, Const) and not isinstance(value.value, str):
            defs[stmt.target.name] = value
        elif (source := var_like(value)) is not None and not isinstance(types.get(source.name), (TileType, TensorType)):
            defs[stmt.target.name] = value
        elif isinstance(value, Call) and (value.op in ops.SCALAR_READS or isinstance(t, ScalarType)):
            defs[stmt.target.name] = value
        elif isinstance(value, Call) and value.op in (ops.T_CAST, "tile.cast") and value.args \
                and not isinstance(t, (TileType, TensorType)) and _scalar_value(value.args[0], types):
            casts[stmt.target.name] = value
    params = frozenset(p.name for p in fn.params
                       if isinstance(p.type, ScalarType) or p.type is None)
    def scalar(name: str, value: Expr | None) -> bool:
        if isinstance(types.get(name), (TileType, TensorType)):
            return False
        v = var_like(value)
        return v is None or not isinstance(types.get(v.name), (TileType, TensorType))

    carries, phis = carries_and_phis(fn, scalar)
    tensors = frozenset(p.name for p in fn.params if isinstance(p.type, TensorType))
    return Scalars(defs, params, carries, phis, tensors, casts)


def _scalar_value(expr: Expr, types: dict[str, Type]) -> bool:
    """*expr* is a runtime read or a name of a scalar (not a tile or a tensor)."""
    if isinstance(expr, Call):
        return expr.op in ops.SCALAR_READS
    v = var_like(expr)
    return v is not None and not isinstance(types.get(v.name), (TileType, TensorType))


# ---------------------------------------------------------------------------------------------- operands


_SET_VALIDSHAPE = (ops.SET_VALIDSHAPE, "tensor.set_validshape")
"""`pl.set_validshape` / `pl.tile.set_validshape` (`_Origins._valid_view`)."""


class _Origins:
    """Where each tile / tensor value lies in a GM tensor (see `Operand`), memoised."""

    def __init__(self, fn: Function, types: dict[str, Type], defs: dict[str, Assign],
                 chains: list[tuple[frozenset[str], Assign]] = ()) -> None:  # type: ignore[assignment]
        self.types = types
        self.products: dict[str, tuple[Call, ...]] = {m: (c,) for m, c in _single_products(chains, defs).items()}
        """Every value of a chain made by one source MAD (a one-step product, or its lowering's L0 blocks) ->
        a MAD of it: the product is named by that MAD's position and its operands' blocks off K."""
        self.products.update(_straight_sums(chains, defs))
        """The last value of a straight-line chain of MADs at distinct positions -> those MADs, in order."""
        self.defs = defs
        self.params: dict[str, Param] = {p.name: p for p in fn.params}
        self.memo: dict[str, Operand | None] = {}
        self.bare_ranks = _bare_ranks(fn)
        """Each bare `pl.Tensor` parameter (no type) -> the rank of its windows, when all of them agree."""
        self.bridged: dict[str, Call] = {}
        """A `tile.load` of a buffer -> the `tile.store` into that buffer just before it in program order (the
        lowering's Acc -> GM -> Vec bridge: `x__gm = tensor.create(...)`, `x__gm = tile.store(x, [0, 0],
        x__gm)`, `x_Vec = tile.load(x__gm, ...)`, the buffer's name reused, and again in each pipeline clone)."""
        _index_bridges(fn.body, {}, self.bridged, types)
        self.filled = _filled_buffers(fn, defs)
        """Every value of an on-chip buffer filled in place (`create_l1` + `gather_row`) -> its create."""
        self.results: dict[str, tuple[For | If, int]] = {
            rv.name: (stmt, i) for stmt in _walk(fn.body) if isinstance(stmt, (For, If))
            for i, rv in enumerate(stmt.return_vars)}
        """The return vars of loops and ifs -> the statement and the result's index."""
        self.carried_in: dict[str, tuple[For | If, int]] = {
            arg.name: (stmt, i) for stmt in _walk(fn.body) if isinstance(stmt, For)
            for i, arg in enumerate(stmt.iter_args)}
        """The iter_args of loops -> the loop and the carry's index."""
        self.placeholders: dict[str, Operand] = {}
        """While the term of a loop's results is built (`_loop_term`): each of its iter_args -> the value it
        holds at the start of an iteration, a term of the loop and the iteration."""
        self.loop_terms: dict[str, tuple[tuple[Expr, ...], tuple[str, ...]] | None] = {}
        """The terms of the loops' results (`_loop_term`), memoised in the scope `memo` is."""
        self.active: tuple[str, ...] = ()
        """The variables of the loops whose terms are being built, outermost first (a loop nested in one of
        them with the same variable name would make two loops one symbol: not traced)."""

    def of(self, expr: Expr | None) -> Operand | None:
        named = var_like(expr)
        filled = self.filled.get(named.name) if named is not None else None
        if named is not None and filled is not None and filled != named.name:
            return self.of(Var(filled))
        if isinstance(expr, Call):
            # an operand computed inline (a source kernel's `pl.matmul(pl.cast(x, ...), w)`)
            if expr.op in ops.ALL_MADS or not expr.span.line:
                return None
            if expr.op in _SET_VALIDSHAPE and expr.args:
                return self._valid_view(expr)
            return self._opaque_call(expr, ops.infer_call_type(expr, self.types), "")
        v = var_like(expr)
        if v is not None and v.name in self.placeholders:
            return self.placeholders[v.name]
        if v is None or isinstance(v, IterArg):
            return None
        if v.name not in self.memo:
            self.memo[v.name] = None  # cycles (never in SSA) stay unknown
            self.memo[v.name] = self._origin(v.name)
        return self.memo[v.name]

    def why(self, expr: Expr | None) -> str:
        """Why *expr* (a MAD operand `of` gives None for) is not traced to a root, in the source's words: the
        values it is computed from, down to the first one that is not traced, then `not modelled: <the
        construct>` (issue 13)."""
        if isinstance(expr, Call):
            return f"it is {self._path(expr, 0)}"
        if expr is None or var_like(expr) is None:
            return "it is not a named value"
        return self._path(expr, 0)

    def _path(self, expr: Expr, depth: int) -> str:
        """*expr* and the untraced values it is computed from, in order, ending with what is not modelled."""
        if isinstance(expr, Call):
            inner = self._untraced_input(expr) if depth < 32 else None
            if inner is not None:
                return f"a `{expr.op}` computed inline from {self._path(inner, depth + 1)}"
            return f"a `{expr.op}` computed inline; not modelled: {self._unmodelled_op(expr, None)}"
        v = var_like(expr)
        if v is None:
            return "a value that is not named"
        name = display_name(v.name)
        if isinstance(v, IterArg) or v.name in self.carried_in:
            return f"`{name}`, a value a loop carries; not modelled: a tile computed across the iterations of a loop"
        if v.name in self.params:
            t = self.params[v.name].type
            return f"`{name}`, a parameter the model does not trace ({'no type stated' if t is None else t})"
        found = self.results.get(v.name)
        if found is not None and isinstance(found[0], For) and depth < 32:
            return f"`{name}`, a value the loop at line {found[0].span.line} yields, {self._loop_path(found[0], depth)}"
        if found is not None:
            return (f"`{name}`, a value the `if` at line {found[0].span.line} yields (not a GM buffer); not "
                    "modelled: a tile computed across the arms of an `if`")
        stmt = self.defs.get(v.name)
        if stmt is None:
            return f"`{name}`, which has no definition in the function"
        value = stmt.value
        if var_like(value) is not None and depth < 32:
            return self._path(value, depth + 1)
        if not isinstance(value, Call):
            return f"`{name}`, which is not traced to a GM tensor or buffer"
        at = f"at line {stmt.span.line}"
        if value.op in ops.ALL_MADS:
            return (f"`{name}`, the result of the matmul {at} read inside another chain; not modelled: the sum of a "
                    "chain of several MADs read as an operand (only a one-MAD product is traced)")
        base = var_like(value.args[0]) if value.args else None
        if value.op in (ops.T_SLICE, ops.TILE_SLICE, ops.LOAD, ops.EXTRACT, ops.MOVE, "tensor.move",
                        ops.TRANSPOSE_VIEW, ops.T_RESHAPE, "tile.reshape", *_SET_VALIDSHAPE) and base is not None:
            if self.of(base) is not None or depth >= 32:
                return f"`{name}`, `{value.op}` of `{display_name(base.name)}` {at}; not modelled: that window, shape or view"
            return f"`{name}`, `{value.op}` {at} of {self._path(base, depth + 1)}"
        operand = self._untraced_input(value) if depth < 32 else None
        if operand is not None:
            return f"`{name}`, computed by `{value.op}` {at} from {self._path(operand, depth + 1)}"
        return f"`{name}`, computed by `{value.op}` {at}; not modelled: {self._unmodelled_op(value, v.name)}"

    def _loop_path(self, loop: For, depth: int) -> str:
        """Why the results of *loop* have no term (`_loop_term`): the first init or yielded value not traced."""
        reason = self._loop_unmodelled(loop)
        if reason is not None:
            return f"not modelled: {reason}"
        for init in loop.inits:
            if self.of(init) is None:
                return f"from the init {self._path(init, depth + 1)}"
        with self._iterating(loop):
            for value in yield_values(loop.body):
                if self.of(value) is None:
                    return f"whose body yields {self._path(value, depth + 1)}"
        return "not modelled: a loop whose term is not known"

    def _untraced_input(self, call: Call) -> Expr | None:
        """The first tile / tensor operand of *call* (a name, or a call nested in it) that is not traced."""
        for arg in call.args:
            if isinstance(arg, Call):
                t = ops.infer_call_type(arg, self.types)
                if isinstance(t, (TileType, TensorType)) and arg.op not in ops.ALL_MADS \
                        and (self._untraced_input(arg) is not None or self.of(arg) is None):
                    return arg
                continue
            v = var_like(arg)
            if v is not None and isinstance(self.types.get(v.name), (TileType, TensorType)) and self.of(arg) is None:
                return arg
        return None

    def _unmodelled_op(self, call: Call, name: str | None) -> str:
        """What about *call* (whose operands are all traced) the model does not follow."""
        t = self.types.get(name) if name is not None else ops.infer_call_type(call, self.types)
        if not isinstance(t, (TileType, TensorType)):
            return f"`{call.op}` whose result shape is not known"
        if call.op in (ops.T_RESHAPE, "tile.reshape"):
            return "a reshape that is not a block of its operand"
        return f"the blocks of `{call.op}`"

    def _rank(self, name: str) -> int | None:
        t = self.types.get(name)
        if isinstance(t, (TileType, TensorType)):
            return len(t.shape)
        return None

    def _origin(self, name: str) -> Operand | None:
        if name in self.products:
            return self._product(name, self.products[name])
        if name in self.params:
            t = self.params[name].type
            if isinstance(t, TensorType):
                return _whole(display_name(name), _shape(t))
            rank = self.bare_ranks.get(name) if t is None else None
            if rank is not None:
                # a bare `pl.Tensor` (pypto specialises the function on the tensor each call passes): a root
                # of unknown extents, read in windows of one rank. Two windows at the same offsets are the
                # same block of the tensor passed, and windows adjacent along a dimension are adjacent
                # blocks, whatever its extents; its K extent is unknown, so no `remainder` is posed on it
                return _whole(display_name(name), (None,) * rank)
            return None
        stmt = self.defs.get(name)
        if stmt is None:
            return self._carried(name) or self._loop_result(name)
        value = stmt.value
        if var_like(value) is not None:
            return self.of(value)
        if not isinstance(value, Call):
            return None
        call = value
        args = call.args
        if call.op in (ops.T_SLICE, ops.TILE_SLICE) and len(args) >= 3:
            # `tile.slice` is pypto's zero-copy view of a tile (`pto.subview`): the lowering of a tensor slice of
            # a value computed on chip, the same block at the same offsets
            return self._window(self.of(args[0]), args[2], args[1], self._rank(name))
        if call.op == ops.LOAD and len(args) >= 3:
            store = self.bridged.get(name)
            if store is not None and len(store.args) >= 3 and self._whole_store(*store.args[:3]):
                # the buffer was just overwritten whole by one value: the load reads that value's block
                return self._window(self.of(store.args[0]), args[1], args[2], self._rank(name))
            return self._window(self.of(args[0]), args[1], args[2], self._rank(name))
        if call.op == ops.EXTRACT and len(args) >= 4:
            return self._window(self.of(args[0]), ListExpr((args[1], args[2])), args[3], self._rank(name))
        if call.op in (ops.MOVE, "tensor.move") and args:
            return self.of(args[0])
        if call.op in _SET_VALIDSHAPE and args:
            return self._valid_view(call)
        if call.op == ops.TRANSPOSE_VIEW and args:
            src = self.of(args[0])
            if src is None or len(src.dims) != 2:
                return None
            return replace(src, dims=(src.dims[1], src.dims[0]))
        if call.op in (ops.T_RESHAPE, "tile.reshape") and len(args) >= 2:
            # a reshape that only adds or drops unit dimensions keeps its source's block; one that merges
            # or splits the dimensions of a GM tensor (`[T, H, D]` as `[T * H, D]`) is a view of its own,
            # which both sides keep as `tensor.reshape`: a term of its source's block, sliced alike on both
            # sides. A reshape of a computed value is left untraced: the lowering turns it into a tile op
            # and may flatten the ops around it differently, so the terms would not line up.
            through = self._reshaped_back(args[0], args[1])
            if through is not None:
                return self.of(through)
            src = self.of(args[0])
            kept = self._reshape(src, args[1])
            if kept is None and src is not None:
                return self._opaque(name, stmt, call)
            return kept
        if call.op in ops.ALL_MADS:
            return None
        if call.op in (*ops.CREATES, ops.T_CREATE_L1):
            # a GM buffer (`pl.create_tensor` written by assembles, then read by slices) is a root of
            # its own, and so is an L1 buffer rows are gathered into; an Acc create is never an operand
            t = self.types.get(name)
            if not isinstance(t, (TileType, TensorType)) or (isinstance(t, TileType) and t.space is MemSpace.Acc):
                return None
            return _whole(display_name(name), _shape(t))
        return self._opaque(name, stmt, call)

    def _reshaped_back(self, value: Expr, shape: Expr) -> Expr | None:
        """The value a chain of reshapes ending in `reshape(value, shape)` started from, when *shape* is that
        value's own static shape: reshapes reinterpret one row-major buffer, so reshaping back is the
        value itself (`[T, H * D]` viewed as `[T, H, D]` for an extern op, then as `[T, H * D]` again)."""
        target = ops.int_list(shape)
        v = var_like(value)
        while target is not None and v is not None:
            stmt = self.defs.get(v.name)
            if stmt is None or not isinstance(stmt.value, Call) or stmt.value.op not in (ops.T_RESHAPE, "tile.reshape") \
                    or not stmt.value.args:
                return None
            v = var_like(stmt.value.args[0])
            t = self.types.get(v.name) if v is not None else None
            if v is not None and isinstance(t, (TileType, TensorType)) and ops.static_shape(t.shape) == target:
                return v
        return None

    def _valid_view(self, call: Call) -> Operand | None:
        """`set_validshape(x, rows, cols)`: the block of *x* itself (PyPTO: the op changes the valid region
        only, never the data or the buffer), narrowed in each dimension whose valid extent is not the
        block's own literal extent."""
        src = self.of(call.args[0])
        valid = call.args[1:]
        if src is None or len(valid) != len(src.dims):
            return None
        narrowed = tuple(r for r, v in zip(src.dims, valid)
                         if src.extents[r] is None or ops.const_int(v) != src.extents[r])
        return replace(src, narrowed=tuple(sorted({*src.narrowed, *narrowed})))

    def _window(self, src: Operand | None, offsets: Expr, shape: Expr, rank: int | None) -> Operand | None:
        """A sub-block of *src*: `offsets` and `shape` in *src*'s value dimensions; the result keeps the
        last *rank* of them (a 3-D load of a unit batch dimension gives a 2-D tile)."""
        if src is None or not isinstance(offsets, (ListExpr, TupleExpr)):
            return None
        extents = ops.int_list(shape)
        if extents is None or len(extents) != len(src.dims) or len(offsets.items) != len(src.dims):
            return None
        root_offsets = list(src.offsets)
        root_extents = list(src.extents)
        for d, (offset, extent) in enumerate(zip(offsets.items, extents)):
            r = src.dims[d]
            root_offsets[r] = _plus(root_offsets[r], offset)
            root_extents[r] = extent
        keep = rank if rank is not None else len(extents)
        dropped = len(extents) - keep
        if dropped < 0 or any(e != 1 for e in extents[:dropped]):
            return None
        return Operand(src.root, tuple(root_offsets), tuple(root_extents), src.dims[dropped:], src.root_args,
                       src.root_shape, src.narrowed, bound=src.bound)

    def _product(self, name: str, mads: tuple[Call, ...]) -> Operand | None:
        """The value of a one-MAD chain read outside it (`qk_raw = pl.matmul(q, kv)` then `pl.exp(...)` of
        it), or the last value of a straight-line chain of MADs (`s = pl.matmul(q[:, 0:D], k0)`, `s =
        pl.matmul_acc(s, q[:, D:2 * D], k1)`): an opaque root named by the MADs' positions, identified by where
        their operands lie off their K dimension. Its lowering may split K into L0 blocks (matmul_acc's of one
        span); that the blocks add up to the source's sum is the chain's own obligation (PV105 / PV106 on its
        site)."""
        args: list[Expr] = []
        bound: set[str] = set()
        shape: tuple[int | None, ...] | None = None
        for mad in mads:
            parts = ops.matmul_parts(mad)
            lhs, rhs = self.of(parts.lhs), self.of(parts.rhs)
            if lhs is None or rhs is None or len(lhs.dims) < 2 or len(rhs.dims) < 2:
                return None
            if shape is None:
                t = self.types.get(name)
                shape = ops.static_shape(t.shape) if isinstance(t, (TileType, TensorType)) else None
            if shape is None:
                # a carry or phi of the chain has no type of its own here: the product's [M, N] from its operands
                lhs_shape = [lhs.extents[r] for r in lhs.dims]
                rhs_shape = [rhs.extents[r] for r in rhs.dims]
                shape = (lhs_shape[-1 if parts.a_trans else -2], rhs_shape[-2 if parts.b_trans else -1])
            bound.update((*lhs.bound, *rhs.bound))
            lk = lhs.dims[-2 if parts.a_trans else -1]
            rk = rhs.dims[-1 if parts.b_trans else -2]
            args += [*lhs.root_args, *(o for d, o in enumerate(lhs.offsets) if d != lk),
                     *rhs.root_args, *(o for d, o in enumerate(rhs.offsets) if d != rk)]
        assert shape is not None  # mads is never empty
        root = "matmul@" + "+".join(f"{m.span.line}:{m.span.col}" for m in mads)
        return Operand(root, tuple(Const(0) for _ in shape), shape, tuple(range(len(shape))), tuple(args), shape,
                       bound=tuple(sorted(bound)))

    def _whole_store(self, value: Expr, offsets: Expr, dst: Expr) -> bool:
        """`tile.store(value, offsets, dst)` writes every element of *dst*: zero offsets, the same static
        shape (leading unit dimensions aside), and *dst* a buffer the function creates."""
        v, d = var_like(value), var_like(dst)
        if v is None or d is None or not isinstance(offsets, (ListExpr, TupleExpr)):
            return False
        if any(ops.const_int(o) != 0 for o in offsets.items):
            return False
        created = self.defs.get(d.name)
        if created is None or not isinstance(created.value, Call) or created.value.op not in ops.CREATES:
            return False
        vt, dt = self.types.get(v.name), self.types.get(d.name)
        if not isinstance(vt, (TileType, TensorType)) or not isinstance(dt, (TileType, TensorType)):
            return False
        a, b = ops.static_shape(vt.shape), ops.static_shape(dt.shape)
        return a is not None and b is not None and [x for x in a if x != 1] == [x for x in b if x != 1]

    def _reshape(self, src: Operand | None, shape: Expr) -> Operand | None:
        """A reshape that only adds or drops unit dimensions keeps the block; anything else is unknown."""
        target = ops.int_list(shape)
        if src is None or target is None:
            return None
        current = [src.extents[r] for r in src.dims]
        kept = [(r, e) for r, e in zip(src.dims, current) if e != 1]
        if [e for e in target if e != 1] != [e for _, e in kept]:
            return None
        dims: list[int] = []
        it = iter(kept)
        unit_roots = [r for r, e in zip(src.dims, current) if e == 1]
        for e in target:
            if e != 1:
                dims.append(next(it)[0])
            elif unit_roots:
                dims.append(unit_roots.pop(0))
            else:
                return None
        return replace(src, dims=tuple(dims))

    def _opaque(self, name: str, stmt: Assign, call: Call) -> Operand | None:
        """An op we do not model (a cast, a vector op): a root of its own, named by its position, whose
        identity includes the blocks its operands read."""
        return self._opaque_call(call, self.types.get(name), f"{display_name(name)}@{stmt.span.line}:{stmt.span.col}")

    def _opaque_call(self, call: Call, t: Type | None, fallback: str) -> Operand | None:
        """The opaque root of *call*, of type *t*: named by the op and the call's own position, which the
        lowering keeps when it hoists a nested call into an assignment of its own (so a source operand
        written inline, `pl.matmul(pl.cast(x, ...), w)`, and its hoisted lowering name one root); by
        *fallback* when the call has no position."""
        if not isinstance(t, (TileType, TensorType)):
            return None
        shape = _shape(t)
        # UNSOUND: only the blocks of the op's tile / tensor operands identify its result; its scalar
        # operands (a runtime scale) and keyword arguments are not compared (listed under Known limits).
        blocks = self._operand_blocks(call)
        if blocks is None:
            return None
        root_args, bound = blocks
        span = call.span
        root = f"{call.op.rsplit('.', 1)[-1]}@{span.line}:{span.col}" if span.line else fallback
        return replace(_whole(root, shape), root_args=tuple(root_args), elementwise_of=self._cast_of(call, shape),
                       bound=tuple(sorted(bound)))

    def _cast_of(self, call: Call, shape: tuple[int | None, ...]) -> Operand | None:
        """The block a cast (`tensor.cast` / `tile.cast`) converts, when it is a traced value of the cast's
        own shape: PyPTO's cast converts each element in place (same shape, one element per element)."""
        if call.op not in (ops.T_CAST, "tile.cast") or not call.args:
            return None
        v = var_like(call.args[0])
        src = self.of(call.args[0]) if v is not None else None
        if src is None or [src.extents[r] for r in src.dims] != list(shape):
            return None
        return src

    def _buffer(self, name: str, seen: set[str]) -> bool:
        """Every value that reaches *name* through loop carries, `if` results and copies is a GM buffer as
        such (a parameter, a create, an assemble into it, a store, a call's result or an item of it), never
        a value an op computes (a MAD's accumulator a loop carries is a tile once lowered)."""
        if name in seen:
            return True
        seen.add(name)
        if name in self.params:
            return True
        found = self.results.get(name) or self.carried_in.get(name)
        if found is not None:
            incoming = _incoming(*found)
            return incoming is not None and all(self._buffer(v.name, seen) for v in incoming)
        stmt = self.defs.get(name)
        if stmt is None:
            return False
        if (v := var_like(stmt.value)) is not None:
            return self._buffer(v.name, seen)
        op = stmt.value.op if isinstance(stmt.value, Call) else ""
        return op in _BUFFER_OPS or (bool(op) and "." not in op)  # a call of a function of the file

    def _carried(self, name: str) -> Operand | None:
        """A GM tensor a loop or an `if` yields (a buffer threaded through the iterations of a loop that
        assembles into it, or calls that do): a term of its own, named by the statement's position and
        the result's index (the lowering keeps the span of the statement, and renames no position), read
        in blocks like a created buffer. A tile a loop carries is computed in it: not traced."""
        found = self.results.get(name)
        t = self.types.get(name)
        if found is None or not isinstance(t, TensorType) or not self._buffer(name, set()):
            return None
        stmt, index = found
        return _whole(f"{display_name(name)}@{stmt.span.line}:{stmt.span.col}#{index}", _shape(t))

    def _loop_result(self, name: str) -> Operand | None:
        """A tile or tensor a loop yields that is not a GM buffer as such (a tensor assembled row by row from
        a computed init, an online-softmax accumulator): a term of its own, named by the loop's position and
        the result's index, whose arguments identify the whole loop (`_loop_term`): both sides name one term
        only when the loops have one range, the same inits and yield the same terms of their iter_args."""
        found = self.results.get(name)
        t = self.types.get(name)
        if found is None or not isinstance(t, (TileType, TensorType)):
            return None
        loop, index = found
        if not isinstance(loop, For):
            return None
        shape = _shape(t)
        term = self._loop_term(loop) if None not in shape else None
        if term is None:
            return None
        args, bound = term
        return replace(_whole(f"loop@{loop.span.line}:{loop.span.col}#{index}", shape), root_args=args,
                       bound=bound)

    def _loop_term(self, loop: For) -> tuple[tuple[Expr, ...], tuple[str, ...]] | None:
        """The arguments of the term of *loop*'s results and the loop variables they range over: its start,
        stop and step, then for every init and every value its body yields, a code of its root and its
        blocks, where iter_arg j is a term of the loop's position, j and the loop variable (the value it
        holds at the start of that iteration). So both sides name one term only when the loops have one
        range, the same inits, and yield the same terms of their iter_args; a lowering that unrolls, splits
        or pipelines the loop yields from other ranges or from no loop, and its term differs (never proved).
        None when `_loop_unmodelled` gives a reason."""
        key = f"{loop.span.line}:{loop.span.col}:{loop.loop_var.name}"
        if key in self.loop_terms:
            return self.loop_terms[key]
        self.loop_terms[key] = None  # a loop whose term needs itself (never in SSA) stays unknown
        term = None
        if self._loop_unmodelled(loop) is None:
            yielded = final_yield(loop.body)
            assert yielded is not None  # `_loop_unmodelled` checks it
            inits = [self.of(init) for init in loop.inits]
            with self._iterating(loop):
                yields = [self.of(v) for v in yielded.values]
            args: list[Expr] = [loop.start, loop.stop, loop.step]
            bound = {display_name(loop.loop_var.name)}
            for operand in (*inits, *yields):
                if operand is None:
                    break
                bound.update(operand.bound)
                args += [_root_code(operand.root), *operand.root_args, *operand.offsets]
            else:
                term = (tuple(args), tuple(sorted(bound)))
        self.loop_terms[key] = term
        return term

    def _loop_unmodelled(self, loop: For) -> str | None:
        """Why the results of *loop* have no term (`_loop_term`), before its values are traced: its variable is
        a free symbol of the user's name, which stands for it only where no other value or enclosing loop
        takes that name, and which is nonnegative by assumption (`encode.Symbols.free`)."""
        var = display_name(loop.loop_var.name)
        yielded = final_yield(loop.body)
        if yielded is None or not len(loop.iter_args) == len(loop.inits) == len(yielded.values):
            return "a loop whose body does not yield one value per carry"
        if loop.loop_var.name in self.defs or loop.loop_var.name in self.params or var in self.active:
            return f"a loop whose variable `{var}` names another value or an enclosing loop's variable"
        start, step, stop = ops.const_int(loop.start), ops.const_int(loop.step), ops.const_int(loop.stop)
        if start is None or start < 0 or not step or (step < 0 and (stop is None or stop < -1)):
            return f"a loop whose variable `{var}` may be negative or whose step is not a literal"
        for arg in loop.iter_args:
            t = self.types.get(arg.name)
            if not isinstance(t, (TileType, TensorType)):
                return f"a loop that also carries the scalar `{display_name(arg.name)}`"
            if None in _shape(t):
                return f"a loop carrying `{display_name(arg.name)}`, whose shape is not known"
        return None

    @contextmanager
    def _iterating(self, loop: For) -> Iterator[None]:
        """Inside: each iter_arg of *loop* is the value it holds at the start of an iteration (a term of the
        loop's position, the carry's index and the loop variable), and the values traced are memoised
        apart from the rest, then forgotten (the body's values are terms of the iter_args only here)."""
        outer, saved, active, terms = self.memo, dict(self.placeholders), self.active, self.loop_terms
        var = display_name(loop.loop_var.name)
        self.memo, self.active, self.loop_terms = {}, (*active, var), {}
        for j, arg in enumerate(loop.iter_args):
            t = self.types.get(arg.name)
            assert isinstance(t, (TileType, TensorType))  # `_loop_unmodelled` checks it
            self.placeholders[arg.name] = replace(
                _whole(f"carry@{loop.span.line}:{loop.span.col}#{j}", _shape(t)),
                root_args=(Const(j), loop.loop_var), bound=(var,))
        try:
            yield
        finally:
            self.memo, self.placeholders, self.active, self.loop_terms = outer, saved, active, terms

    def _operand_blocks(self, call: Call) -> tuple[list[Expr], set[str]] | None:
        """The blocks *call*'s tile / tensor operands read, in operand order (each operand's `root_args`
        then its offsets), and the loop variables they range over (`Operand.bound`); None when one of them
        is not traced. An operand computed inline (a source kernel's `pl.cast(pl.cast(x))`) counts as the
        opaque op it is hoisted into by the lowering (PyPTO 06 FlattenCallExpr): its own operands' blocks,
        then its result's zero offsets, so both sides identify the block alike. An assemble also names the
        offsets it writes its value at (where in its target the value lies is part of the result)."""
        blocks: list[Expr] = []
        bound: set[str] = set()

        def take(operand: Operand) -> None:
            bound.update(operand.bound)
            blocks.extend(operand.root_args)
            blocks.extend(operand.offsets)

        if call.op in (ops.ASSEMBLE, ops.T_ASSEMBLE):
            at = call.args[2] if len(call.args) >= 3 else None
            if not isinstance(at, (ListExpr, TupleExpr)):
                return None
            blocks.extend(at.items)
        for arg in call.args:
            if isinstance(arg, Call) and arg.op in _SET_VALIDSHAPE and arg.args:
                # a view of its operand's block (the valid region only), as `of` reads it once the lowering
                # has hoisted it into a statement of its own: not an op of its own on either side
                view = self._valid_view(arg)
                if view is None:
                    return None
                take(view)
                continue
            if isinstance(arg, Call) and arg.op in (ops.T_SLICE, ops.TILE_SLICE) and len(arg.args) >= 3 \
                    and isinstance(arg.args[1], (ListExpr, TupleExpr)):
                # a window written inline (`pl.cast(pl.slice(x, [M, K], [0, 0]), ...)`) is the window its
                # hoisted load or slice reads, as `of` reads it once in a statement of its own
                window = self._window(self.of(arg.args[0]), arg.args[2], arg.args[1], len(arg.args[1].items))
                if window is None:
                    return None
                take(window)
                continue
            if isinstance(arg, Call) and arg.op in (ops.T_RESHAPE, "tile.reshape") and len(arg.args) >= 2:
                # a reshape that only adds or drops unit dimensions keeps its operand's block (`_reshape`), as
                # `of` reads it once hoisted into a statement of its own
                kept = self._reshape(self.of(arg.args[0]), arg.args[1])
                if kept is not None:
                    take(kept)
                    continue
            if isinstance(arg, Call):
                t = ops.infer_call_type(arg, self.types)
                if not isinstance(t, (TileType, TensorType)):
                    if arg.op in ops.SCALAR_READS or arg.op in ("tensor.dim", "tile.dim") or not self._reads_data(arg):
                        continue  # a scalar computed inline (`pl.cast(s, pl.FP32)`): not a block
                    return None
                inner_blocks = self._operand_blocks(arg)
                if inner_blocks is None:
                    return None
                blocks.extend(inner_blocks[0])
                bound.update(inner_blocks[1])
                blocks.extend(Const(0) for _ in t.shape)
                continue
            v = var_like(arg)
            if v is None or not isinstance(self.types.get(v.name), (TileType, TensorType)):
                continue
            inner = self.of(arg)
            if inner is None:
                return None
            take(inner)
        return blocks, bound


    def _reads_data(self, call: Call) -> bool:
        """*call* has a tile / tensor operand (directly or in a call nested in it)."""
        for arg in call.args:
            if isinstance(arg, Call):
                if self._reads_data(arg):
                    return True
            elif (v := var_like(arg)) is not None and isinstance(self.types.get(v.name), (TileType, TensorType)):
                return True
        return False


_BUFFER_OPS = (*ops.CREATES, ops.T_ASSEMBLE, ops.STORE, "tensor.getitem")
"""Ops whose result is a GM buffer as such (not a value computed into a tile)."""


def _root_code(root: str) -> Const:
    """*root* as an integer argument of a term (a 64-bit digest of its name: the roots of the values a loop's term
    is built from stay part of it once flattened into its arguments)."""
    return Const(int.from_bytes(hashlib.blake2b(root.encode(), digest_size=8).digest(), "big"))


def _incoming(stmt: For | If, index: int) -> list[Var] | None:
    """The values that flow into result *index* of *stmt*: a loop's init and yield, an if's arm yields
    (None when one of them is not a name)."""
    if isinstance(stmt, For):
        yielded = final_yield(stmt.body)
        values = [stmt.inits[index] if index < len(stmt.inits) else None,
                  yielded.values[index] if yielded is not None and index < len(yielded.values) else None]
    else:
        arms = [final_yield(stmt.then_body), final_yield(stmt.else_body)]
        values = [a.values[index] if a is not None and index < len(a.values) else None for a in arms]
    out = [var_like(v) for v in values]
    return [v for v in out if v is not None] if all(v is not None for v in out) else None


def _shape(t: TileType | TensorType) -> tuple[int | None, ...]:
    """*t*'s extents, None for a dimension that is not a literal (`pl.dynamic`, a run-time size)."""
    return tuple(ops.const_int(d) for d in t.shape)


def _whole(root: str, shape: tuple[int | None, ...]) -> Operand:
    """All of *root*, a tensor of *shape*."""
    return Operand(root, tuple(Const(0) for _ in shape), shape, tuple(range(len(shape))), root_shape=shape)


def _single_products(chains: list[tuple[frozenset[str], Assign]], defs: dict[str, Assign]) -> dict[str, Call]:
    """The members of each chain whose MADs all have one call position (one source MAD, or the L0 blocks
    its lowering splits it into) and no bias, and whose other definitions are creates: member -> a MAD."""
    out: dict[str, Call] = {}
    for members, _ in chains:
        mads: list[Call] = []
        targets: list[str] = []
        plain = True
        for m in members:
            stmt = defs.get(m)
            if stmt is None or not isinstance(stmt.value, Call):
                continue
            if stmt.value.op in ops.ALL_MADS:
                mads.append(stmt.value)
                targets.append(m)
            elif stmt.value.op not in ops.CREATES:
                plain = False
        positions = {(c.span.line, c.span.col) for c in mads}
        if not plain or len(positions) != 1 or not mads[0].span.line or any(c.op in ops.BIAS_MADS for c in mads):
            continue
        # a source matmul_acc chain written as one statement (`acc = pl.matmul_acc(acc, a, b)` in a loop)
        # has one position too, but it is not one product: only a chain that starts fresh inside it is
        if not (len(mads) == 1 and mads[0].op in ops.FRESH_MADS) and not _lowered_blocks(mads, targets):
            continue
        for m in members:
            out[m] = mads[0]
    return out


def _straight_sums(chains: list[tuple[frozenset[str], Assign]], defs: dict[str, Assign]
                   ) -> dict[str, tuple[Call, ...]]:
    """The last value of each chain that is a straight line of MADs at distinct call positions (no loop carry,
    phi, copy or create among its values; no bias): one `matmul`, then `matmul_acc`s without `init_cond`, each
    accumulating the one before -> those MADs in order. Its value is their sum, whatever the lowering does
    inside the chain (PV105 compares it with the source's); the values before the last are partial sums, never
    named so."""
    out: dict[str, tuple[Call, ...]] = {}
    for members, _ in chains:
        calls: dict[str, Call] = {}
        for m in members:
            stmt = defs.get(m)
            if stmt is None or not isinstance(stmt.value, Call) or stmt.value.op not in ops.ALL_MADS:
                break
            calls[m] = stmt.value
        else:
            fresh = [m for m, c in calls.items() if c.op in ops.FRESH_MADS]
            follows: dict[str, str] = {}
            for m, c in calls.items():
                parts = ops.matmul_parts(c)
                acc = var_like(parts.acc) if c.op in ops.ACC_MADS and parts.init_cond is None else None
                if acc is not None and acc.name in calls and acc.name not in follows:
                    follows[acc.name] = m
            if len(calls) < 2 or len(fresh) != 1 or len(follows) != len(calls) - 1:
                continue
            order = [fresh[0]]
            while order[-1] in follows:
                order.append(follows[order[-1]])
            mads = tuple(calls[m] for m in order)
            if len(order) != len(calls) or len({(c.span.line, c.span.col) for c in mads}) != len(mads) \
                    or not all(c.span.line for c in mads):
                continue
            out[order[-1]] = mads
    return out


L0_BLOCK_MARK = "__l0_"
"""How `auto_tile_matmul_l0` names the values of the L0 K loop it splits one MAD into (`acc__l0_c_acc`)."""


def _lowered_blocks(mads: list[Call], targets: list[str]) -> bool:
    """The MADs are the L0 blocks `auto_tile_matmul_l0` split one MAD into: `matmul_acc`s with the
    lowering's `init_cond=ko == 0`, named by it. Never a chain the kernel wrote itself, whose partial
    sums may be read between its steps."""
    return all(c.op == ops.MATMUL_ACC and ops.matmul_parts(c).init_cond is not None for c in mads) \
        and all(L0_BLOCK_MARK in t for t in targets)


BRIDGE_SUFFIX = "__gm"
"""How `infer_tile_memory_space` names the GM buffer of an a2a3 Acc -> GM -> Vec bridge (`acc__gm`). Only
such buffers are seen through: a buffer the kernel itself creates is a root of its own on both sides."""


def _whole_tile_round_trip(store: Call, load: Call, loaded: str, types: dict[str, Type]) -> bool:
    """*load* reads back exactly the tile *store* wrote: both at offset 0 in every dimension, and the loaded
    value of the stored tile's shape. Only then is the load the stored tile (the name `x__gm` alone is not
    proof: a kernel may name a buffer so, store a tile at an offset or read back a wider window)."""
    def at_origin(call: Call) -> bool:
        offsets = call.args[1] if len(call.args) > 1 else None
        items = offsets.items if isinstance(offsets, (TupleExpr, ListExpr)) else None
        return items is not None and all(isinstance(e, Const) and e.value == 0 and not isinstance(e.value, bool)
                                         for e in items)

    stored = var_like(store.args[0]) if store.args else None
    stored_type = types.get(stored.name) if stored is not None else None
    loaded_type = types.get(loaded)
    return at_origin(store) and at_origin(load) and isinstance(stored_type, (TileType, TensorType)) \
        and isinstance(loaded_type, (TileType, TensorType)) and stored_type.shape == loaded_type.shape


def _index_bridges(body: tuple[Stmt, ...], last: dict[str, Call], out: dict[str, Call],
                   types: dict[str, Type]) -> None:
    """Fill *out* with each `tile.load` of a buffer that a `tile.store` earlier in the same statement list
    (or an enclosing one) rebound under the buffer's own name: the load's target -> that store."""
    last = dict(last)
    for stmt in body:
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
            call = stmt.value
            if call.op == ops.STORE and len(call.args) >= 3 and (dst := var_like(call.args[2])) is not None \
                    and dst.name == stmt.target.name and BRIDGE_SUFFIX in dst.name:
                last[dst.name] = call
            elif call.op == ops.LOAD and call.args and (src := var_like(call.args[0])) is not None \
                    and src.name in last and _whole_tile_round_trip(last[src.name], call, stmt.target.name, types):
                out[stmt.target.name] = last[src.name]
            else:
                last.pop(stmt.target.name, None)
        elif isinstance(stmt, For):
            _index_bridges(stmt.body, last, out, types)
        elif isinstance(stmt, If):
            _index_bridges(stmt.then_body, last, out, types)
            _index_bridges(stmt.else_body, last, out, types)
        elif isinstance(stmt, Scope):
            _index_bridges(stmt.body, last, out, types)


_FILLS = (ops.T_GATHER_ROW, ops.GATHER_ROW)
"""Ops that write a window of their first operand's buffer in place and return it."""


def _filled_buffers(fn: Function, defs: dict[str, Assign]) -> dict[str, str]:
    """The values of each on-chip buffer filled in place, mapped to the buffer's create: a class of
    names joined by the in-place fills (`kv = gather_row(kv, ...)`), loop carries, if-phis and copies,
    made by exactly one `create_l1` / `tile.create` and otherwise only by fills. Every value of such a
    class is that one buffer (PyPTO: `tile.gather_row` reuses its first operand's buffer), so a MAD
    reading any of them reads the create's root at the same offsets (what it holds is the buffer's
    business, as for a GM buffer written by assembles)."""
    uf = _UnionFind()

    def join(a: str, b: Expr | None) -> None:
        v = var_like(b) if b is not None else None
        if v is not None:
            uf.union(a, v.name)

    for stmt in _walk(fn.body):
        if isinstance(stmt, Assign):
            if isinstance(stmt.value, Call) and stmt.value.op in _FILLS and stmt.value.args:
                join(stmt.target.name, stmt.value.args[0])
            elif var_like(stmt.value) is not None:
                join(stmt.target.name, stmt.value)
        elif isinstance(stmt, For):
            yielded = final_yield(stmt.body)
            for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                join(arg.name, init)
                if yielded is not None and i < len(yielded.values):
                    join(arg.name, yielded.values[i])
                if i < len(stmt.return_vars):
                    uf.union(arg.name, stmt.return_vars[i].name)
        elif isinstance(stmt, If):
            for arm in (final_yield(stmt.then_body), final_yield(stmt.else_body)):
                for i, rv in enumerate(stmt.return_vars):
                    if arm is not None and i < len(arm.values):
                        join(rv.name, arm.values[i])
    creates: dict[str, list[str]] = {}
    spoiled: set[str] = set()
    for name, stmt in defs.items():
        if name not in uf.parent or not isinstance(stmt.value, Call):
            continue
        root = uf.find(name)
        if stmt.value.op in (ops.T_CREATE_L1, ops.CREATE):
            creates.setdefault(root, []).append(name)
        elif stmt.value.op not in _FILLS:
            spoiled.add(root)
    has_fill = {uf.find(n) for n, s in defs.items() if isinstance(s.value, Call) and s.value.op in _FILLS}
    return {name: creates[root][0] for name in uf.parent
            if (root := uf.find(name)) in has_fill and root not in spoiled and len(creates.get(root, ())) == 1}


def _plus(a: Expr, b: Expr) -> Expr:
    if isinstance(a, Const) and a.value == 0:
        return b
    if isinstance(b, Const) and b.value == 0:
        return a
    return BinOp("+", a, b)


# ---------------------------------------------------------------------------------------------- projection


class Unsupported(Exception):
    """The chain cannot be modelled exactly; the message says why (one sentence)."""


_AFTER = "<after>"
"""The current value is one no name denotes (what a loop left that does not carry the chain)."""


class _Projector:
    """The function body projected onto one chain (module docstring)."""

    def __init__(self, fn: Function, path: str, members: frozenset[str], first: Assign,
                 defs: dict[str, Assign], origins: _Origins, scalars: Scalars, index: _Mentions) -> None:
        self.fn = fn
        self.index = index
        self.path = path
        self.members = members
        self.first = first
        self.defs = defs
        self.origins = origins
        self.scalars = scalars
        self.initial = "undefined"
        self.params = {p.name for p in fn.params}
        self.drained: list[str] = []
        """The chain values drains read, in program order (the first names the site: what the user stores)."""

    def _type_k(self, lhs: Expr | None, a_trans: bool) -> int | None:
        v = var_like(lhs)
        t = self.origins.types.get(v.name) if v is not None else None
        if not isinstance(t, (TileType, TensorType)) or len(t.shape) < 2:
            return None
        return ops.const_int(t.shape[-2] if a_trans else t.shape[-1])

    def site(self) -> AccSite:
        first_span = self.first.span
        site_id = f"{self.fn.name}:{first_span.line}"
        spans = frozenset(s for m, call in self._mad_stmts() for s in (m.span, call.span) if s != NO_SPAN)
        try:
            body, _ = self.block(self.fn.body, None)
            body, context = _strip_context(body)
            unsupported = ""
        except Unsupported as error:
            body, context, unsupported = (), (), str(error)
        name = display_name(self.drained[0] if self.drained else self._chain_name())
        return AccSite(site_id, self.fn.name, name, first_span, self.path, body, context, self.scalars,
                    self.initial, unsupported, spans)

    def _chain_name(self) -> str:
        """The created accumulator's name, else the first MAD's result."""
        for stmt in self.index.of(self.members):
            if isinstance(stmt.value, Call) and stmt.value.op in ops.CREATES:
                return stmt.target.name
        return self.first.target.name

    def _mad_stmts(self) -> list[tuple[Assign, Call]]:
        """The chain's MAD statements, each with its call."""
        return [(s, s.value) for s in self.index.of(self.members)
                if isinstance(s.value, Call) and s.value.op in ops.ALL_MADS]

    # -- reads

    def _is_create(self, name: str) -> bool:
        seen = set()
        while name not in seen:
            seen.add(name)
            stmt = self.defs.get(name)
            if stmt is None:
                return False
            if isinstance(stmt.value, Call) and stmt.value.op in ops.CREATES:
                return True
            v = var_like(stmt.value)
            if v is None:
                return False
            name = v.name
        return False

    def read(self, name: str, cur: str | None, items: list[Item], where: Span) -> str:
        """The chain's value *name* is read: it must be the current one. A stale read of a created value
        is a fresh `Create` (its contents are undefined again); a stale read of anything else is not
        modelled."""
        if name == cur:
            return cur
        if cur is None and name in self.params:
            self.initial = "external"
            return name
        if self._is_create(name):
            stmt = self.defs.get(name)
            items.append(Create(name, stmt.span if stmt is not None else where))
            return name
        raise Unsupported(f"`{display_name(name)}` is read at line {where.line} after the chain moved on "
                          "(PV004 reports where)")

    def reads_in(self, expr: Expr) -> list[str]:
        return [name for name in var_names(expr) if name in self.members]

    # -- statements

    def block(self, body: tuple[Stmt, ...], cur: str | None) -> tuple[tuple[Item, ...], str | None]:
        items: list[Item] = []
        for stmt in self.index.relevant(body, self.members):
            if isinstance(stmt, Yield):
                continue
            cur = self.stmt(stmt, cur, items)
        return tuple(items), cur

    def stmt(self, stmt: Stmt, cur: str | None, items: list[Item]) -> str | None:
        if isinstance(stmt, Assign):
            return self.assign(stmt, cur, items)
        if isinstance(stmt, (Eval, Return)):
            exprs = (stmt.value,) if isinstance(stmt, Eval) else stmt.values
            read = [n for e in exprs for n in self.reads_in(e)]
            self.drained += read
            if read:
                for n in read:
                    cur = self.read(n, cur, items, stmt.span)
                op = stmt.value.op if isinstance(stmt, Eval) and isinstance(stmt.value, Call) else "return"
                items.append(Drain(op, stmt.span))
            return cur
        if isinstance(stmt, For):
            return self.loop(stmt, cur, items)
        if isinstance(stmt, If):
            return self.branch(stmt, cur, items)
        if isinstance(stmt, Scope):
            inner, cur = self.block(stmt.body, cur)
            items.extend(inner)
            return cur
        return cur

    def assign(self, stmt: Assign, cur: str | None, items: list[Item]) -> str | None:
        target, value = stmt.target.name, stmt.value
        if target not in self.members:
            read = self.reads_in(value)
            self.drained += read
            if read:
                for n in read:
                    cur = self.read(n, cur, items, stmt.span)
                items.append(Drain(value.op if isinstance(value, Call) else "copy", stmt.span))
            return cur
        if isinstance(value, Call) and value.op in ops.ALL_MADS:
            parts = ops.matmul_parts(value)
            if value.op in ops.ACC_MADS:
                acc = var_like(parts.acc)
                if acc is None:
                    raise Unsupported(f"the accumulator operand of line {stmt.span.line} is not a value")
                self.read(acc.name, cur, items, stmt.span)
                kind = "acc"
            else:
                kind = "bias" if value.op in ops.BIAS_MADS else "fresh"
            lhs, rhs = self.origins.of(parts.lhs), self.origins.of(parts.rhs)
            bias = self.origins.of(parts.bias) if parts.bias is not None else None
            why = tuple((o, self.origins.why(e)) for o, e, traced in (("lhs", parts.lhs, lhs), ("rhs", parts.rhs, rhs),
                                                                      ("bias", parts.bias, bias))
                        if e is not None and traced is None)
            items.append(Mad(value.op, kind, parts.init_cond if kind == "acc" else None, lhs, rhs, bias,
                             parts.a_trans, parts.b_trans, target, stmt.span, value.span,
                             type_k=self._type_k(parts.lhs, parts.a_trans), why=why))
            return target
        if isinstance(value, Call) and value.op in ops.CREATES:
            items.append(Create(target, stmt.span))
            return target
        v = var_like(value)
        if v is not None:
            self.read(v.name, cur, items, stmt.span)
            return target
        if cur is None and not items:
            self.initial = "external"
            return target
        raise Unsupported(f"`{display_name(target)}` (line {stmt.span.line}) joins the chain by "
                          f"`{value.op if isinstance(value, Call) else type(value).__name__}`, which is neither "
                          "a MAD nor a create")

    def loop(self, stmt: For, cur: str | None, items: list[Item]) -> str | None:
        carried = [i for i, arg in enumerate(stmt.iter_args) if arg.name in self.members]
        if len(carried) > 1:
            raise Unsupported(f"the loop at line {stmt.span.line} carries the chain in two iter_args")
        if carried:
            i = carried[0]
            init = var_like(stmt.inits[i]) if i < len(stmt.inits) else None
            if init is not None:
                self.read(init.name, cur, items, stmt.span)
            body, end = self.block(stmt.body, stmt.iter_args[i].name)
            yielded = final_yield(stmt.body)
            value = var_like(yielded.values[i]) if yielded is not None and i < len(yielded.values) else None
            if value is None or value.name != end:
                scratch: list[Item] = []
                if value is None:
                    raise Unsupported(f"the loop at line {stmt.span.line} does not yield the chain")
                self.read(value.name, end, scratch, stmt.span)
                if scratch:
                    raise Unsupported(f"the loop at line {stmt.span.line} yields a created value")
            items.append(Loop(stmt.loop_var.name, stmt.start, stmt.stop, stmt.step, body, stmt.kind, True,
                              stmt.span))
            return stmt.return_vars[i].name if i < len(stmt.return_vars) else _AFTER
        body, _ = self.block(stmt.body, cur)
        if not body:
            return cur
        if _modifies(body):
            # in every iteration but the first, the current value is what the previous one left
            body, _ = self.block(stmt.body, _AFTER)
        items.append(Loop(stmt.loop_var.name, stmt.start, stmt.stop, stmt.step, body, stmt.kind, False,
                          stmt.span))
        return _AFTER if _modifies(body) else cur

    def branch(self, stmt: If, cur: str | None, items: list[Item]) -> str | None:
        phis = [i for i, rv in enumerate(stmt.return_vars) if rv.name in self.members]
        if len(phis) > 1:
            raise Unsupported(f"the if at line {stmt.span.line} yields the chain twice")
        arms = []
        for arm in (stmt.then_body, stmt.else_body):
            body, end = self.block(arm, cur)
            if phis:
                yielded = final_yield(arm)
                i = phis[0]
                value = var_like(yielded.values[i]) if yielded is not None and i < len(yielded.values) else None
                if value is None:
                    raise Unsupported(f"an arm of the if at line {stmt.span.line} does not yield the chain")
                if value.name != end:
                    extra: list[Item] = []
                    self.read(value.name, end, extra, stmt.span)
                    body = (*body, *extra)
            arms.append(body)
        then, orelse = arms
        if then or orelse:
            items.append(Branch(stmt.cond, then, orelse, stmt.span))
        if phis:
            return stmt.return_vars[phis[0]].name
        return _AFTER if _modifies(then) or _modifies(orelse) else cur


def _modifies(body: tuple[Item, ...]) -> bool:
    return any(isinstance(item, (Mad, Create)) for item in walk_items(body))


def _strip_context(body: tuple[Item, ...]) -> tuple[tuple[Item, ...], tuple[ContextLoop | ContextGuard, ...]]:
    """Peel the enclosing loops that do not carry the chain and the enclosing one-armed ifs (module
    docstring, "region")."""
    context: list[ContextLoop | ContextGuard] = []
    while len(body) == 1:
        item = body[0]
        if isinstance(item, Loop) and not item.carried:
            context.append(ContextLoop(item.var, item.start, item.stop, item.step))
            body = item.body
        elif isinstance(item, Branch) and not item.orelse:
            context.append(ContextGuard(item.cond, True))
            body = item.then
        elif isinstance(item, Branch) and not item.then:
            context.append(ContextGuard(item.cond, False))
            body = item.orelse
        else:
            break
    return body, tuple(context)


# ---------------------------------------------------------------------------------------------- matching


@slotted_init
@dataclass(frozen=True, slots=True)
class Pair:
    """A lowered site and the source site it came from (None for Form 3 input or an unmatched chain)."""

    lowered: AccSite
    source: AccSite | None


def match_sites(source: list[AccSite], lowered: list[AccSite]) -> tuple[list[Pair], list[AccSite]]:
    """Pair each lowered site with the source site whose MAD spans it shares most; the source sites
    left without a lowered chain are returned second. Matched source sites are refined (`refine`) to
    the lowered chain's L0 block width."""
    pairs: list[Pair] = []
    used: set[int] = set()
    for low in lowered:
        best, best_score = None, 0
        for i, src in enumerate(source):
            score = len(low.mad_spans & src.mad_spans)
            if score > best_score:
                best, best_score = i, score
        if best is None:
            pairs.append(Pair(low, None))
            continue
        used.add(best)
        src = source[best]
        pairs.append(Pair(replace(low, id=src.id, name=src.name), refine(src, low)))
    unmatched = [s for i, s in enumerate(source) if i not in used]
    return _shift_clones(pairs), unmatched


def _shift_clones(pairs: list[Pair]) -> list[Pair]:
    """Each pair whose lowered site is clone j of a replicated context loop, with the source site's
    loop variable offset by `j * step` (`AccSite.context_offsets`), and each whose lowered site is a copy
    with that variable replaced by a literal (a static tail clone, an unrolled copy), with the literal
    (`AccSite.context_values`).

    A loop that does not carry the chain (a pipeline over output blocks, each with a fresh accumulator)
    is replicated by LowerPipelineLoops into a main loop of step `F * step` holding F clones of the
    body: F lowered sites, in program order, share the source site and that loop. The source and the
    lowered site name the loop variable alike, so without the offset clone j would be compared with
    the source's iteration `i` instead of `i + j * step`.
    """
    literal = ops.const_int

    def loops(site: AccSite) -> dict[str, ContextLoop]:
        return {display_name(c.var): c for c in site.context if isinstance(c, ContextLoop)}

    renamed: dict[int, dict[str, str]] = {}
    """pair index -> the lowered site's renamed clone loops: lowered variable -> source display name."""
    for index, pair in enumerate(pairs):
        if pair.source is not None:
            renamed[index] = _renamed_loops(loops(pair.source), loops(pair.lowered))

    seen: dict[tuple[str, str], int] = {}
    literal_copies: dict[tuple[str, str], list[int]] = {}
    """(source site, loop variable) -> the indices of the pairs whose lowered site has no such loop."""
    main_stop: dict[tuple[str, str], int] = {}
    """(source site, loop variable) -> where the replicated main loop stops (its tail clones start)."""
    stages: dict[tuple[str, str], int] = {}
    """(source site, loop variable) -> how many clones of the body the replicated main loop holds (F)."""
    offsets: list[list[tuple[str, int]]] = []
    for index, pair in enumerate(pairs):
        offsets.append([])
        if pair.source is None:
            continue
        lowered_loops = loops(pair.lowered)
        lowered_loops.update({name: lowered_loops[display_name(var)] for var, name in renamed[index].items()})
        for ctx in pair.source.context:
            if not isinstance(ctx, ContextLoop):
                continue
            low = lowered_loops.get(display_name(ctx.var))
            if low is None:
                literal_copies.setdefault((pair.source.id, ctx.var), []).append(index)
                continue
            step, low_step = literal(ctx.step), literal(low.step)
            if not step or not low_step or low_step == step or low_step % step:
                continue
            key = (pair.source.id, low.var)
            j = seen.get(key, 0)
            seen[key] = j + 1
            stages[(pair.source.id, ctx.var)] = low_step // step
            stop = literal(low.stop)
            if stop is not None:
                main_stop[(pair.source.id, ctx.var)] = stop
            if 0 < j < low_step // step:
                offsets[index].append((ctx.var, j * step))
    values: list[list[tuple[str, int]]] = [[] for _ in pairs]
    exprs: list[list[tuple[str, Expr]]] = [[] for _ in pairs]
    for (source_id, var), indices in literal_copies.items():
        # one run of copies, each with the same other context loops (a pipeline's tail clones, the
        # copies of an unrolled loop): copy j is at `base + j * step`
        signatures = {tuple(renamed[i].get(c.var, display_name(c.var)) for c in pairs[i].lowered.context
                            if isinstance(c, ContextLoop)) for i in indices}
        source_site = pairs[indices[0]].source
        assert source_site is not None  # literal_copies holds only pairs with a source site
        ctx = next(c for c in source_site.context if isinstance(c, ContextLoop) and c.var == var)
        start, stop, step = literal(ctx.start), literal(ctx.stop), literal(ctx.step)
        if len(signatures) == 1 and (start is None or stop is None) and step and step > 0 \
                and (source_id, var) in stages:
            found = _remainder_iterations(ctx, [pairs[i].lowered for i in indices], stages[(source_id, var)])
            for i, iteration in zip(indices, found or ()):
                exprs[i].append((var, iteration))
            continue
        if len(signatures) != 1 or start is None or stop is None or not step or step < 0:
            continue
        base = main_stop.get((source_id, var), start)
        if not start <= base + (len(indices) - 1) * step < stop:
            continue  # not the copies of this loop's iterations: a literal outside them would prove vacuously
        for j, i in enumerate(indices):
            values[i].append((var, base + j * step))
    out: list[Pair] = []
    for index, (pair, shift, fixed, computed) in enumerate(zip(pairs, offsets, values, exprs)):
        if shift or fixed or computed:
            assert pair.source is not None  # all stay empty for a pair without a source site
            pair = Pair(replace(pair.lowered, copy=True),
                        replace(pair.source, context_offsets=tuple(shift), context_values=tuple(fixed),
                                context_exprs=tuple(computed), copy=True))
        if renamed.get(index):
            pair = Pair(replace(pair.lowered, context_names=tuple(renamed[index].items())), pair.source)
        out.append(pair)
    return out


REMAINDER_MARK = "unroll_rem"
"""How `lower_pipeline_loops` names the run-time remainder of a pipeline whose bounds are not literals."""


def _remainder_iterations(ctx: ContextLoop, copies: list[AccSite], stages: int) -> list[Expr] | None:
    """The source iteration of each lowered copy (in program order) of the body of `ctx`'s pipeline in its
    run-time remainder: LowerPipelineLoops' cascade `if unroll_rem == k: <k copies> else: ...` (k from F - 1
    down to 1), copy j of an arm at `start + (trip // F) * (F * step) + j * step`, the formula the pass
    computes `unroll_main_end` by, from the same start and stop. None unless the copies are exactly such
    arms: each under a guard `unroll_rem == k` that holds, k copies per guard, one guard per k."""
    arms: dict[int, list[int]] = {}
    for index, site in enumerate(copies):
        guards = [c for c in site.context if isinstance(c, ContextGuard) and c.holds and isinstance(c.cond, Compare)
                  and c.cond.op == "==" and isinstance(c.cond.lhs, Var)
                  and display_name(c.cond.lhs.name).startswith(REMAINDER_MARK)]
        k = ops.const_int(guards[-1].cond.rhs) if guards and isinstance(guards[-1].cond, Compare) else None
        if k is None or not 0 < k < stages:
            return None
        arms.setdefault(k, []).append(index)
    if any(len(members) != k for k, members in arms.items()):
        return None
    step = ops.const_int(ctx.step)
    assert step is not None and step > 0  # the caller checked
    extent = ctx.stop if ops.const_int(ctx.start) == 0 else BinOp("-", ctx.stop, ctx.start)
    trip = extent if step == 1 else BinOp("//", BinOp("+", extent, Const(step - 1)), Const(step))
    main_end: Expr = BinOp("*", BinOp("//", trip, Const(stages)), Const(stages * step))
    if ops.const_int(ctx.start) != 0:
        main_end = BinOp("+", ctx.start, main_end)
    out: list[Expr] = [Const(0)] * len(copies)
    for members in arms.values():
        for j, index in enumerate(members):
            out[index] = BinOp("+", main_end, Const(j * step)) if j else main_end
    return out


_CLONE_SUFFIX = re.compile(r"_\d+$")


def _renamed_loops(source: dict[str, ContextLoop], lowered: dict[str, ContextLoop]) -> dict[str, str]:
    """Lowered context loops that are a source loop under a clone's name: `d0_1` for `d0` when the body
    holding it was replicated (a pipelined outer loop), with the same bounds, and neither name has a
    loop of its own on the other side. Lowered variable -> source display name."""
    out: dict[str, str] = {}
    unmatched = {name: loop for name, loop in source.items() if name not in lowered}
    for name, loop in lowered.items():
        if name in source:
            continue
        base = _CLONE_SUFFIX.sub("", name)
        want = unmatched.get(base)
        if want is None or base in out.values():
            continue
        if all(expr_text(a) == expr_text(b) for a, b in ((want.start, loop.start), (want.stop, loop.stop),
                                                            (want.step, loop.step))):
            out[loop.var] = base
    return out


def refine(source: AccSite, lowered: AccSite) -> AccSite:
    """*source* with each MAD split into the L0 blocks its lowering uses (`Mad.sub_blocks`): the source
    block `[k0, k0 + TK)` is computed by the hardware as `mm(k0)`, `mm(k0 + k)`, ... in K order, so the
    source chain is compared with the lowered one block by block (TARGET_FACTS.md, AutoTileMatmulL0)."""
    widths: dict[Span, int] = {}
    site_width = 0
    for mad in lowered.mads:
        k = mad.k_extent
        if k is None:
            continue
        site_width = max(site_width, k)
        for span in (mad.span, mad.call_span):
            widths[span] = max(widths.get(span, 0), k)

    def split(item: Item) -> Item:
        if isinstance(item, Mad):
            total = item.k_extent
            k = widths.get(item.span) or widths.get(item.call_span) or site_width
            if total is None and k:
                return replace(item, blocks_unknown=True)
            if total is None or not k or k >= total:
                return item
            return replace(item, sub_blocks=-(-total // k), sub_width=k)
        if isinstance(item, Loop):
            return replace(item, body=tuple(split(i) for i in item.body))
        if isinstance(item, Branch):
            return replace(item, then=tuple(split(i) for i in item.then), orelse=tuple(split(i) for i in item.orelse))
        return item

    return replace(source, body=tuple(split(i) for i in source.body))


def var_label(name: str) -> str:
    """A loop variable as the user knows it: `ko` as written, and for a K loop the tiler made
    (`acc__l0_ko`, `c__ssa_v0_l0_ko`) the accumulator's name with `.ko` (`acc.ko`)."""
    base = display_name(name)
    rest = name.split("__", 1)[1] if "__" in name and not name.startswith("__") else ""
    if re.search(r"(^|_)l0_ko(_\d+)?$", rest):
        return f"{base}.ko"
    return base


def expr_text(expr: Expr | None) -> str:
    """*expr* as the user wrote it, with SSA suffixes stripped (`ko == 0`, `(kb == 0) and (nb < 2)`)."""
    if expr is None:
        return "None"
    if isinstance(expr, Var):
        return var_label(expr.name)
    if isinstance(expr, Const):
        return repr(expr.value) if isinstance(expr.value, str) else str(expr.value)
    if isinstance(expr, BinOp):
        if expr.op in ("min", "max"):
            return f"{expr.op}({expr_text(expr.lhs)}, {expr_text(expr.rhs)})"
        return f"{_operand_text(expr.lhs)} {expr.op} {_operand_text(expr.rhs)}"
    if isinstance(expr, Compare):
        return f"{_operand_text(expr.lhs)} {expr.op} {_operand_text(expr.rhs)}"
    if isinstance(expr, UnaryOp):
        return f"not {_operand_text(expr.operand)}" if expr.op == "not" else f"-{_operand_text(expr.operand)}"
    if isinstance(expr, BoolOp):
        return f" {expr.op} ".join(_operand_text(e) for e in expr.operands)
    if isinstance(expr, Call):
        return f"{expr.op}(...)"
    return type(expr).__name__


def _operand_text(expr: Expr) -> str:
    text = expr_text(expr)
    return f"({text})" if isinstance(expr, (BinOp, Compare, BoolOp)) and expr.op not in ("min", "max") else text
