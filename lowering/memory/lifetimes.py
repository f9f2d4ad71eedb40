"""Lifetime intervals of a function's buffers, as PyPTO's MemoryReuse computes them.

Owns the def/use numbering over the whole IR tree and its three refinements (PyPTO LifetimeAnalyzer):
- program points: every Assign and Eval is one point, each Yield / Return one point; an `if`
  condition and a loop's inits are read at the current point; then-arm before else-arm;
- a use of an iter_arg is a use of its init (PyPTO's visitor walks an IterArg's init value); a use of
  a loop's return var is a use of the loop's init; a use of an if's return var is a use of its
  branch-local yield sources (which also join one *phi family* per return slot: values of one phi,
  on mutually exclusive paths, never conflict);
- a value defined before a loop and used inside it lives until the loop's end.

Only tile values defined by an Assign are tracked (iter_args and return vars are not: they follow
their init / yield). Values sharing a base form one *sharing group*, whose interval is the union.
Input: a function with MemRefs. Output: `Lifetimes`. Used by `buffer_packing` only.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Eval, Expr, For, Function, If, IterArg, MemSpace, Return, Scope, Span, Stmt, TileType, Type,
    Var, Yield, expr_children, var_like,
)
from pypto_verify.span import slotted_init
from pypto_verify.lowering.incore_scopes import RegionCounter
from pypto_verify.lowering.memory.memrefs import yield_values, infer_env, membership_of


@slotted_init
@dataclass(frozen=True, slots=True)
class Interval:
    """One sharing group: the buffer its values occupy from `start` to `end` (inclusive points)."""

    rep: str
    """The group's first-defined value; the packer keys everything on it."""
    start: int
    end: int
    space: MemSpace
    size: int
    membership: tuple[tuple[int, int], ...]
    """`(group, stage)` pairs of the pipeline clone its producer belongs to (LowerPipelineLoops)."""
    is_load: bool


@dataclass
class Lifetimes:
    intervals: list[Interval]
    groups: dict[str, list[str]]
    """Every value of a multi-member sharing group -> the group's members (definition order)."""
    liveness: dict[str, tuple[int, int]]
    """Each tracked value's own (definition, effective last use)."""
    families: dict[str, set[int]]
    """Each phi return var and branch-local yield source -> its phi family ids."""
    defs: dict[str, Assign]
    spans: list[Span] = field(default_factory=list)
    """Program point -> the span of the statement at it (for messages: allocate-memory-addr's peak)."""
    regions: list[int] = field(default_factory=list)
    """Program point -> the InCore scope it runs in (`incore_scopes`; allocate-memory-addr checks each
    scope's buffers on their own)."""


def analyze(fn: Function, misses_iter_args: bool) -> Lifetimes:
    """The lifetimes of *fn*'s tile buffers. *misses_iter_args* keeps PyPTO's exact-`Var` test on loop
    inits (`Behaviours.misses_iter_args`)."""
    walker = _Walker(infer_env(fn), misses_iter_args, RegionCounter(fn))
    walker.body(fn.body)
    last = walker.effective_last_use()
    by_base: dict[str, list[str]] = {}
    for name in walker.ordered:
        by_base.setdefault(walker.memref_base(name), []).append(name)
    groups = {n: members for members in by_base.values() if len(members) > 1 for n in members}
    intervals = []
    for members in by_base.values():
        rep = members[0]
        t = walker.env[rep]
        assert isinstance(t, TileType) and t.memref is not None and t.space is not None
        membership: tuple[tuple[int, int], ...] = ()
        is_load = False
        for m in members:
            call = walker.defs[m].value
            if isinstance(call, Call) and (pairs := membership_of(call)):
                membership = pairs
                is_load = call.op in (ops.LOAD, "tile.read")
                break
        intervals.append(Interval(rep, min(walker.def_point[m] for m in members),
                                  max(last[m] for m in members), t.space, t.memref.size, membership, is_load))
    liveness = {n: (walker.def_point[n], last[n]) for n in walker.ordered}
    return Lifetimes(intervals, groups, liveness, walker.families, walker.defs, walker.spans, walker.regions)


@dataclass
class _Walker:
    env: dict[str, Type]
    misses_iter_args: bool
    region: RegionCounter
    point: int = 0
    ordered: list[str] = field(default_factory=list)
    def_point: dict[str, int] = field(default_factory=dict)
    raw_last: dict[str, int] = field(default_factory=dict)
    defs: dict[str, Assign] = field(default_factory=dict)
    loops: list[tuple[int, int]] = field(default_factory=list)
    return_to_init: dict[str, str] = field(default_factory=dict)
    iter_init: dict[str, Expr] = field(default_factory=dict)
    families: dict[str, set[int]] = field(default_factory=dict)
    phi_sources: dict[str, list[str]] = field(default_factory=dict)
    next_family: int = 0
    spans: list[Span] = field(default_factory=list)
    regions: list[int] = field(default_factory=list)

    def memref_base(self, name: str) -> str:
        t = self.env[name]
        assert isinstance(t, TileType) and t.memref is not None
        return t.memref.base

    # ------------------------------------------------------------------------------------------ uses

    def uses(self, expr: Expr, at: int) -> None:
        for name in sorted(self.used_names(expr)):
            self.use(name, at)

    def used_names(self, expr: Expr) -> set[str]:
        """The names *expr* reads (one stack, no generator per node: this runs on every statement)."""
        names: set[str] = set()
        stack = [expr]
        while stack:
            e = stack.pop()
            if isinstance(e, IterArg):
                # PyPTO's visitor reads an IterArg's init value in its place
                init = self.iter_init.get(e.name)
                while isinstance(init, IterArg):
                    init = self.iter_init.get(init.name)
                if init is not None:
                    stack.append(init)
            elif isinstance(e, Var):
                names.add(e.name)
            else:
                stack.extend(expr_children(e))
        return names

    def use(self, name: str, at: int) -> None:
        if name in self.phi_sources:
            for source in self.phi_sources[name]:
                self.use(source, at)
            return
        target = self.return_to_init.get(name, name)
        if target in self.def_point:
            self.raw_last[target] = max(self.raw_last.get(target, at), at)

    # ------------------------------------------------------------------------------------------ statements

    def body(self, body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, stmt: Stmt) -> None:
        if isinstance(stmt, Assign):
            at = self.point
            self.point += 1
            self.spans.append(stmt.span)
            self.regions.append(self.region.current)
            t = self.env.get(stmt.target.name)
            if isinstance(t, TileType) and t.memref is not None and t.space is not None:
                self.ordered.append(stmt.target.name)
                self.def_point[stmt.target.name] = at
                self.defs[stmt.target.name] = stmt
            self.uses(stmt.value, at)
        elif isinstance(stmt, Eval):
            at = self.point
            self.point += 1
            self.spans.append(stmt.span)
            self.regions.append(self.region.current)
            self.uses(stmt.value, at)
        elif isinstance(stmt, (Yield, Return)):
            at = self.point
            self.point += 1
            self.spans.append(stmt.span)
            self.regions.append(self.region.current)
            for value in stmt.values:
                self.uses(value, at)
        elif isinstance(stmt, If):
            self.branch(stmt)
        elif isinstance(stmt, For):
            self.loop(stmt)
        elif isinstance(stmt, Scope):
            self.region.enter(stmt)
            self.body(stmt.body)
            self.region.leave()

    def loop(self, stmt: For) -> None:
        for init in stmt.inits:
            self.uses(init, self.point)
        for arg, init in zip(stmt.iter_args, stmt.inits):
            self.iter_init[arg.name] = init
        start = self.point
        self.region.enter(stmt)
        self.body(stmt.body)
        self.region.leave()
        self.loops.append((start, self.point - 1))
        for rv, init in zip(stmt.return_vars, stmt.inits):
            if not isinstance(self.env.get(rv.name), TileType):
                continue
            # UNSOUND (legacy): PyPTO's `As<Var>` skips an IterArg init (the IterArg blind spot)
            source = (init if type(init) is Var else None) if self.misses_iter_args else var_like(init)
            if source is not None and source.name in self.def_point:
                self.return_to_init[rv.name] = source.name

    def branch(self, stmt: If) -> None:
        self.uses(stmt.cond, self.point)
        then_start = self.point
        self.body(stmt.then_body)
        then_end = self.point - 1
        else_start, else_end = -1, -1
        if stmt.else_body:
            else_start = self.point
            self.body(stmt.else_body)
            else_end = self.point - 1
        arms = ((yield_values(stmt.then_body), then_start, then_end),
                (yield_values(stmt.else_body), else_start, else_end))
        for i, rv in enumerate(stmt.return_vars):
            t = self.env.get(rv.name)
            if not isinstance(t, TileType) or t.memref is None:
                continue
            family = self.next_family
            self.next_family += 1
            local: list[str] = []
            seen: set[str] = set()

            def add(name: str, start: int, end: int) -> None:
                if name in self.phi_sources:  # a nested phi: flatten to its own sources
                    if name in seen:
                        return
                    seen.add(name)
                    for nested in self.phi_sources[name]:
                        add(nested, start, end)
                    return
                at = self.def_point.get(name)
                if start < 0 or at is None or not start <= at <= end:
                    return
                local.append(name)
                self.families.setdefault(name, set()).add(family)

            for values, start, end in arms:
                if i < len(values) and (source := var_like(values[i])) is not None:
                    add(source.name, start, end)
            if local:
                self.families.setdefault(rv.name, set()).add(family)
                self.phi_sources[rv.name] = local

    # ------------------------------------------------------------------------------------------ loop extension

    def effective_last_use(self) -> dict[str, int]:
        """Each value's last use, extended to the end of every loop that starts after its definition and
        at or before that use (the loop's back edge reads it again). The loops are sorted by start, so
        those loops are a run of them (two bisections) and the furthest end of a run one range-max query:
        values x log(loops), not values x loops."""
        loops = sorted(self.loops)
        starts = [start for start, _ in loops]
        furthest = _RangeMax([end for _, end in loops])
        out: dict[str, int] = {}
        for name in self.ordered:
            at = self.def_point[name]
            raw = self.raw_last.get(name, at)
            lo, hi = bisect.bisect_right(starts, at), bisect.bisect_right(starts, raw)
            out[name] = max(raw, furthest.query(lo, hi)) if lo < hi else raw
        return out


class _RangeMax:
    """The largest of `values[lo:hi]` in O(1) after an O(n log n) sparse table."""

    def __init__(self, values: list[int]) -> None:
        self.levels = [values]
        width = 1
        while 2 * width <= len(values):
            prev = self.levels[-1]
            self.levels.append([max(prev[i], prev[i + width]) for i in range(len(values) - 2 * width + 1)])
            width *= 2

    def query(self, lo: int, hi: int) -> int:
        """max(values[lo:hi]) for lo < hi."""
        level = (hi - lo).bit_length() - 1
        row = self.levels[level]
        return max(row[lo], row[hi - (1 << level)])
