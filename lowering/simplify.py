"""Early UnrollLoops + Simplify: unroll constant-bound `pl.unroll` loops, propagate scalar constants,
fold literal conditions.

Mirrors PyPTO 02 UnrollLoops and 05 Simplify (the early run, before tiling; both pipeline modes).
Requires: SSA IR (Form 1 or Form 2, no MemRefs). Leaves: no UNROLL loop with constant bounds, no `if`
whose condition is a literal, every scalar bound to a literal substituted into its uses, and
literal-only arithmetic folded (`0 * 256` -> `0`).

Unrolling (TARGET_FACTS.md, "The compiler passes" 0). A loop of kind UNROLL (`pl.unroll`, and plain
`range(...)`, which the frontend reads as UNROLL) whose start, stop and step evaluate to ints becomes one
copy of its body per iteration value, in order: copy *i* sees the loop variable as the literal value,
reads the iter_args as the previous copy's yielded values (the inits for the first copy), and defines
every name afresh as `name__u<i>` (uniquified if taken). Tensors the body rebinds keep their name. After
the copies, the loop's return vars stand for the last copy's yielded values (the inits when the loop runs
zero times); they are substituted into the rest of the function rather than bound by copies, so an
unrolled `if kb == 0` chain reaches the memory passes as a straight chain on one buffer.

Folding. A scalar `Assign` whose value folds to an int or bool literal is kept, and the literal is
substituted into every later use (SSA: each name has one definition, so this is sound at any depth). An
`If` whose condition evaluates to a literal is replaced by its taken arm (without its final yield), and
its return vars stand for that arm's yielded values; an arm that is not taken disappears. Conditions
that need bounds to decide (`if kb == 0` in a loop from 1) are not folded here.

Loops that are not UNROLL, and UNROLL loops with symbolic bounds, are kept; their bodies are simplified.

Limit. A function unrolls to at most `UNROLL_LIMIT` statements (the largest real kernel file, pypto-lib's
`models/qwen3_14b/prefill_fwd_a8w8.py`, unrolls to about 22 000); past it the kernel is one PV000 at the
loop, "unrolls to N statements; the limit is L", before any copy is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Compare, Const, Expr, For, Function, If, LoopKind, Module, Scope, Stmt,
    UnaryOp, map_stmt_exprs, replace,
)
from pypto_verify.scalar import evaluate, trip_count, truth

from pypto_verify.lowering._pass_util import (
    Namer, clone_fresh, yield_values, fold_condition, map_kernel_functions, rebound_outside, definitions, strip_yield,
    subst_stmt_own,
)
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass

UNROLL_LIMIT: Final = 200_000
"""The most statements one function may unroll to (module docstring, "Limit")."""


def simplify(module: Module, options: LowerOptions) -> Module:
    """Unroll constant UNROLL loops and fold literal scalars and conditions in every function."""
    return map_kernel_functions(module, _simplify_function)


def _simplify_function(fn: Function) -> Function:
    state = _State(fn, Namer(fn))
    body = state.body(fn.body, {})
    return replace(fn, body=body)


class _State:
    def __init__(self, fn: Function, namer: Namer) -> None:
        self.definitions = definitions(fn)
        """How many times each name of the source function is defined (the unrolled copies never change it)."""
        self.namer = namer
        self.made = 0
        """Statements the unrolled copies made so far (a nested copy counts at each level: an over-count)."""

    def body(self, body: tuple[Stmt, ...], subst: dict[str, Expr]) -> tuple[Stmt, ...]:
        """*body* simplified; *subst* (name -> literal or replacement value) grows as names fold."""
        out: list[Stmt] = []
        for stmt in body:
            out.extend(self.stmt(stmt, subst))
        return tuple(out)

    def stmt(self, stmt: Stmt, subst: dict[str, Expr]) -> tuple[Stmt, ...]:
        stmt = _fold_own(subst_stmt_own(stmt, subst))
        if isinstance(stmt, Assign):
            value = stmt.value
            if isinstance(value, Const) and isinstance(value.value, (int, bool)) and value.dtype is None:
                subst[stmt.target.name] = Const(value.value, span=value.span)
            return (stmt,)
        if isinstance(stmt, For):
            trip = _constant_domain(stmt) if stmt.kind is LoopKind.UNROLL else None
            if trip is not None:
                return self.unroll(stmt, trip, subst)
            return (replace(stmt, body=self.body(stmt.body, subst)),)
        if isinstance(stmt, If):
            taken = truth(stmt.cond)
            if taken is None:
                return (replace(stmt, cond=fold_condition(stmt.cond), then_body=self.body(stmt.then_body, subst),
                                else_body=self.body(stmt.else_body, subst)),)
            arm = stmt.then_body if taken else stmt.else_body
            simplified = self.body(arm, subst)
            values = yield_values(simplified)
            assert len(values) == len(stmt.return_vars), f"{stmt.span}: the taken arm does not yield the phis"
            for rv, value in zip(stmt.return_vars, values):
                subst[rv.name] = value
            return strip_yield(simplified)
        if isinstance(stmt, Scope):
            return (replace(stmt, body=self.body(stmt.body, subst)),)
        return (stmt,)

    def copy_namer(self, i: int) -> Callable[[str], str]:
        """Fresh names for unrolled copy *i*: `name__u<i>`, uniquified if taken."""
        return lambda name: self.namer.fresh(f"{name}__u{i}")

    def unroll(self, loop: For, values: range, subst: dict[str, Expr]) -> tuple[Stmt, ...]:
        trip = trip_count(values.start, values.stop, values.step)
        size = trip * _unrolled_size(loop.body)
        if self.made + size > UNROLL_LIMIT:
            raise LoweringError("PV000", loop.span, f"the `pl.unroll` loop of {trip} iterations unrolls to "
                                                    f"{size} statements; the limit is {UNROLL_LIMIT}")
        keep = rebound_outside(self.definitions, loop.body)
        current: tuple[Expr, ...] = loop.inits
        out: list[Stmt] = []
        for i, loop_value in enumerate(values):
            mapping: dict[str, Expr] = {loop.loop_var.name: Const(loop_value)}
            mapping.update({arg.name: init for arg, init in zip(loop.iter_args, current)})
            copy, _ = clone_fresh(loop.body, mapping, self.copy_namer(i), keep)
            simplified = self.body(copy, subst)
            if loop.iter_args:
                current = yield_values(simplified)
                assert len(current) == len(loop.iter_args), f"{loop.span}: the body does not yield the carries"
            out.extend(strip_yield(simplified))
            self.made += len(simplified)
            if self.made > UNROLL_LIMIT:
                raise LoweringError("PV000", loop.span, f"the `pl.unroll` loop of {trip} iterations unrolls "
                                                        f"to more than {UNROLL_LIMIT} statements; the limit is "
                                                        f"{UNROLL_LIMIT}")
        for rv, value in zip(loop.return_vars, current):
            subst[rv.name] = value
        return tuple(out)


def _fold_own(stmt: Stmt) -> Stmt:
    """*stmt* with literal-only arithmetic, comparisons and boolean operators in its own expressions
    replaced by their value (`0 * 256` -> `0`, `0 == 0` -> `True`)."""
    def step(e: Expr) -> Expr | None:
        if isinstance(e, (BinOp, Compare, UnaryOp, BoolOp)):
            value = evaluate(e)
            if value is not None and not isinstance(value, float):
                return Const(value, span=e.span)
        return None
    return map_stmt_exprs(stmt, step)


def _constant_domain(loop: For) -> range | None:
    """The iteration values of a loop with literal bounds, else None."""
    bounds = (evaluate(loop.start), evaluate(loop.stop), evaluate(loop.step))
    ints = [v for v in bounds if isinstance(v, int) and not isinstance(v, bool)]
    if len(ints) != len(bounds) or ints[2] == 0:
        return None
    start, stop, step = ints
    return range(start, stop, step)


def _unrolled_size(body: tuple[Stmt, ...]) -> int:
    """Statements *body* becomes once its constant UNROLL loops are unrolled (a loop whose bounds are not yet
    literal counts once: its own unrolling is checked when it is reached)."""
    total = 0
    for stmt in body:
        total += 1
        if isinstance(stmt, For):
            trip = _constant_domain(stmt) if stmt.kind is LoopKind.UNROLL else None
            count = trip_count(trip.start, trip.stop, trip.step) if trip is not None else 1
            total += count * _unrolled_size(stmt.body)
        elif isinstance(stmt, If):
            total += _unrolled_size(stmt.then_body) + _unrolled_size(stmt.else_body)
        elif isinstance(stmt, Scope):
            total += _unrolled_size(stmt.body)
    return total


PASS: Final = Pass("simplify", simplify, mirrors="PyPTO 02 UnrollLoops + 05 Simplify")

