"""Legacy only: PyPTO's accumulator if-phi coalescing, with both of its unsound behaviours.

Mirrors TopDownRetargeter::CoalesceAccumulatorIfPhis of PyPTO's MemoryReuse (step 3.75, before yield
fixup; hw-native-sys/pypto#1924, still in the August 2026 snapshot). For every `if` with return vars,
outermost first, and every return slot whose two arm values are
- one an *in-place accumulator*: an Assign of an in-place op (`matmul_acc`) whose output's MemRef
  base equals its input's, read from the types as they are before any coalescing, and
- the other a *seed*: an Assign of a call lexically inside its arm, on another Acc buffer,
the seed is retargeted onto the accumulator's buffer, provided the accumulator buffer is neither read
nor written after the seed *up to the end of the seed's arm*. Liveness is not checked further.

UNSOUND (TARGET_FACTS.md, "The defects"):
- the scan stops at the `if`: a read of the old accumulator after the `if` by another name than the
  phi now reads the seed (shape B, post-if read);
- every phi is resolved against pre-coalesce types in one pass, so in a chain of literal tail clones
  each phi's accumulator is its own input's *pre-coalesce* buffer: the seeds move, the phis follow
  them in yield fixup, and each `matmul_acc` is left on a buffer its (moved) input is not on (shape C,
  fragmented chain: one L0C buffer per block).
A seed that cannot be retargeted once the preconditions hold is the real pass's internal error:
raised here as PV001.
"""

from __future__ import annotations

from pypto_verify import ops
from pypto_verify.ir import Call, For, Function, If, MemSpace, Scope, Stmt, display_name, var_like
from pypto_verify.lowering.memory.memrefs import yield_values, space_of_type
from pypto_verify.lowering.pass_base import LoweringError, Note
from pypto_verify.lowering.memory.retarget import Retargeter, apply_plan
from pypto_verify.rules import DIVERGENT_ACC_PHI
from pypto_verify.source import author_window, spelled_op


def coalesce_acc_if_phis(fn: Function) -> Function:
    """*fn* with every seed of a seed/accumulate Acc phi moved onto the accumulator's buffer."""
    planner = Retargeter(fn)
    _visit(fn.body, planner)
    return apply_plan(fn, planner.plan)


def _visit(body: tuple[Stmt, ...], planner: Retargeter) -> None:
    for stmt in body:
        if isinstance(stmt, For):
            _visit(stmt.body, planner)
        elif isinstance(stmt, If):
            _coalesce(stmt, planner)
            _visit(stmt.then_body, planner)
            _visit(stmt.else_body, planner)
        elif isinstance(stmt, Scope):
            _visit(stmt.body, planner)


def is_inplace_accumulator(name: str, planner: Retargeter) -> bool:
    """An Assign of an in-place op whose output already shares its input's buffer (mad_acc's %dst)."""
    site = planner.sites.get(name)
    assign = site.assign if site is not None else None
    if assign is None:
        return False
    call = assign.value
    if not isinstance(call, Call):
        return False
    source = var_like(ops.inplace_input(call))
    if source is None:
        return False
    out, inp = planner.current.get(name), planner.current.get(source.name)
    return out is not None and inp is not None and out.base == inp.base


def _coalesce(stmt: If, planner: Retargeter) -> None:
    if not stmt.else_body or not stmt.return_vars:
        return
    then_values, else_values = yield_values(stmt.then_body), yield_values(stmt.else_body)
    for i in range(len(stmt.return_vars)):
        if i >= len(then_values) or i >= len(else_values):
            continue
        then_var, else_var = var_like(then_values[i]), var_like(else_values[i])
        if then_var is None or else_var is None:
            continue
        then_acc = is_inplace_accumulator(then_var.name, planner)
        else_acc = is_inplace_accumulator(else_var.name, planner)
        if then_acc == else_acc:
            continue
        acc, seed = (then_var.name, else_var.name) if then_acc else (else_var.name, then_var.name)
        acc_m, seed_m = planner.current.get(acc), planner.current.get(seed)
        if acc_m is None or seed_m is None or space_of_type(planner.env.get(acc)) is not MemSpace.Acc:
            continue
        if acc_m.base == seed_m.base:
            continue
        site = planner.sites.get(seed)
        seed_assign = site.assign if site is not None else None
        if site is None or seed_assign is None or not isinstance(seed_call := seed_assign.value, Call):
            continue
        if not site.inside(stmt):
            continue
        if not planner.target_dead_at(site, acc_m.base, stop_at=stmt):
            continue
        if not planner.retarget_assign(seed, site, acc_m, MemSpace.Acc, check_liveness=False):
            raise LoweringError(
                DIVERGENT_ACC_PHI.id, seed_assign.span,
                f"legacy MemoryReuse cannot coalesce the L0C accumulator across phi "
                f"`{display_name(stmt.return_vars[i].name)}`: seed `{display_name(seed)}` on "
                f"{author_window(str(seed_m.window), seed_assign.span.path)} refused the retarget onto "
                f"{author_window(str(acc_m.window), seed_assign.span.path)}, which would need an Acc->Acc move",
                windows=(seed_m.window, acc_m.window), values=(display_name(seed), display_name(acc)),
                notes=(Note(seed_assign.span, f"`{display_name(seed)}` written here by {spelled_op(seed_call.op, seed_assign.span)}"),))
