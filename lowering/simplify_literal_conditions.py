"""Fold the literal conditions pipeline lowering leaves: tail clones' `if 256 == 0:` and
`init_cond=(256 == 0)`.

Mirrors the literal part of PyPTO's Simplify as the fixed pipeline runs it after 28 LowerPipelineLoops
and before InitMemRef (the old compiler folded these only after its memory passes, so the legacy
pipeline leaves this pass out and its memory passes see the live tail `if`s). Requires: IR after
lower-pipeline-loops, no MemRefs. Leaves: no `if` whose condition evaluates to a literal, no
`tile.matmul_acc` whose `init_cond` evaluates to false.

- `if c:` with `c` literal (evaluates with no names): replaced by the taken arm without its final
  yield; the if's return vars stand for that arm's yielded values (substituted into the rest of the
  function, so no copy is introduced).
- `init_cond=P` of `tile.matmul_acc` (keyword or 4th positional) that evaluates to false: removed (the
  MAD always accumulates); one that evaluates to true is kept as the literal `init_cond=True` (the MAD
  always initialises; it stays an in-place `matmul_acc` on its accumulator's buffer and codegen picks
  `pto.tmatmul` for a literal true predicate, TARGET_FACTS.md PTO codegen). A predicate that is not
  literal (`ko + 64 == 0`, `P and ko == 0` with P symbolic) is kept, with its literal parts folded
  (`P and 0 == 0` -> `P`); a partly literal `P and 256 == 0` evaluates to false and is removed. An `if`
  condition that is not literal gets the same partial folding.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.ir import Assign, Call, Const, Eval, Expr, For, Function, If, Module, Scope, Stmt, replace
from pypto_verify.scalar import truth

from pypto_verify.lowering._pass_util import (
    yield_values, fold_condition, map_kernel_functions, strip_yield, subst_stmt_own,
)
from pypto_verify.lowering.pass_base import LowerOptions, Pass


def simplify_literal_conditions(module: Module, options: LowerOptions) -> Module:
    """Fold literal `if`s and literal `init_cond`s in every function."""
    return map_kernel_functions(module, _simplify_function)


def _simplify_function(fn: Function) -> Function:
    return replace(fn, body=_body(fn.body, {}))


def _body(body: tuple[Stmt, ...], subst: dict[str, Expr]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for stmt in body:
        stmt = subst_stmt_own(stmt, subst)
        if isinstance(stmt, If):
            taken = truth(stmt.cond)
            if taken is None:
                out.append(replace(stmt, cond=fold_condition(stmt.cond), then_body=_body(stmt.then_body, subst),
                                   else_body=_body(stmt.else_body, subst)))
                continue
            arm = _body(stmt.then_body if taken else stmt.else_body, subst)
            values = yield_values(arm)
            assert len(values) == len(stmt.return_vars), f"{stmt.span}: the taken arm does not yield the phis"
            subst.update({rv.name: value for rv, value in zip(stmt.return_vars, values)})
            out.extend(strip_yield(arm))
        elif isinstance(stmt, For):
            out.append(replace(stmt, body=_body(stmt.body, subst)))
        elif isinstance(stmt, Scope):
            out.append(replace(stmt, body=_body(stmt.body, subst)))
        elif isinstance(stmt, (Assign, Eval)) and isinstance(stmt.value, Call) and stmt.value.op == ops.MATMUL_ACC:
            out.append(replace(stmt, value=_fold_init_cond(stmt.value)))
        else:
            out.append(stmt)
    return tuple(out)


def _fold_init_cond(call: Call) -> Call:
    """A `matmul_acc` without a false literal `init_cond`, and with a true one written `True`."""
    keyword = call.kwarg("init_cond")
    predicate = keyword if keyword is not None else (call.args[3] if len(call.args) > 3 else None)
    if predicate is None:
        return call
    taken = truth(predicate)
    if taken is None:
        folded = fold_condition(predicate)
        if folded == predicate:
            return call
        if keyword is not None:
            return call.with_kwarg("init_cond", folded)
        return replace(call, args=call.args[:3] + (folded,) + call.args[4:])
    if keyword is not None:
        return call.with_kwarg("init_cond", Const(True) if taken else None)
    args = call.args[:3] + ((Const(True),) if taken else ()) + call.args[4:]
    return replace(call, args=args)


PASS: Final = Pass("simplify-literal-conditions", simplify_literal_conditions,
                   mirrors="PyPTO 05 Simplify (literal conditions, fixed pipeline)")
