"""Push each loop carry's buffer onto the values that flow into its yield, so the loop accumulates in
the buffer it carries.

Mirrors PyPTO 32 MaterializeSemanticAliases (TARGET_FACTS.md, "The compiler passes" 5): for every
loop, top-down, each iter_arg's buffer (its init's, or the one an enclosing loop already planned for
it) is the target for the value the body yields; `lowering.memory.retarget` walks that value's producer
chain (through if phis, in-place ops and nested loops) and retypes each producer whose target buffer
is dead at its definition. Fixed only: the planner follows an identity copy of an Acc value (the name a
static pipeline remainder binds to its last clone's output), which PyPTO's planner declines
(`Behaviours.stops_retarget_at_acc_copies`) — the old compiler's "cannot reconcile" error on an
auto-tiled seed with an odd L0 block count (TARGET_FACTS.md, "Observed on the pre-fix compiler").
Requires: init-memref. Leaves: loop-carried producers on their carry's buffer where that was possible;
nothing else changes.
"""

from __future__ import annotations

from typing import Final

from pypto_verify.ir import (
    For, Function, FunctionKind, If, Module, Scope, Stmt, TileType, map_functions, var_like,
)
from pypto_verify.lowering.memory.memrefs import yield_values, space_of_type
from pypto_verify.lowering.pass_base import LowerOptions, Pass
from pypto_verify.lowering.memory.retarget import Retargeter, apply_plan


def run(module: Module, options: LowerOptions) -> Module:
    return map_functions(module, lambda fn: materialize_semantic_aliases(
        fn, follow_acc_copies=not options.behaviours.stops_retarget_at_acc_copies))


def materialize_semantic_aliases(fn: Function, follow_acc_copies: bool = False) -> Function:
    """*fn* with every loop carry's producers retargeted onto the carried buffer where possible."""
    if fn.kind is FunctionKind.ORCHESTRATION:
        return fn
    planner = Retargeter(fn, follow_acc_copies=follow_acc_copies)
    _visit_loops(fn.body, planner)
    return apply_plan(fn, planner.plan)


def _visit_loops(body: tuple[Stmt, ...], planner: Retargeter) -> None:
    for stmt in body:
        if isinstance(stmt, For):
            _propagate(stmt, planner)
            _visit_loops(stmt.body, planner)
        elif isinstance(stmt, If):
            _visit_loops(stmt.then_body, planner)
            _visit_loops(stmt.else_body, planner)
        elif isinstance(stmt, Scope):
            _visit_loops(stmt.body, planner)


def _propagate(loop: For, planner: Retargeter) -> None:
    yielded = yield_values(loop.body)
    for i, arg in enumerate(loop.iter_args):
        if i >= len(yielded):
            break
        if not isinstance(planner.env.get(arg.name), TileType):
            continue
        target = planner.memref(arg.name)  # an enclosing loop's plan for this iter_arg wins
        if target is None:
            continue
        value = var_like(yielded[i])
        if value is None:
            continue
        planner.try_retarget(value.name, target, space_of_type(planner.env.get(arg.name)))


PASS: Final = Pass("materialize-semantic-aliases", run, mirrors="PyPTO 32 MaterializeSemanticAliases")
