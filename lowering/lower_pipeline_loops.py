"""Replicate each `pl.pipeline(..., stage=F)` body F times; the remainder becomes literal tail clones.

Mirrors PyPTO 28 LowerPipelineLoops. Requires: tiled IR with spaces (after infer-tile-memory-space).
Leaves: no PIPELINE loop (TARGET_FACTS.md, "The compiler passes" 3). Conditions are not simplified.

For a loop `for i in pl.pipeline(start, stop, step, stage=F)` (F > 1, step a literal):
- Static bounds, trip count T, `M = T // F`, `R = T % F`: when M > 0 a main loop
  `pl.range(start, start + M*F*step, F*step)` whose body is F clones of the body, clone j reading the
  loop variable as `i + j*step` and the iter_args as clone j-1's yielded values (the main loop's own
  iter_args for clone 0), the last clone's values yielded; then R clones after the loop with the loop
  variable replaced by the literal `start + M*F*step + j*step` (so `if ko == 0` becomes `if 128 == 0:`
  and survives as a live `if`; literal arithmetic in the clones is folded and literal scalars are
  propagated into their uses, `k0 = 7 * 256` -> `k0 = 1792`, as the frontend reads them), seeded
  by the main loop's return vars (renamed `<rv>_main`) or, when M = 0 (e.g.
  `pl.pipeline(0, 192, 64, stage=4)`: three clones, no loop), by the loop's inits. The loop's
  return vars are then bound to the last clone's values by identity copies (`c = c__l0_c_phi_2`),
  as the real pass does. T = 0 leaves a plain loop that never runs.
- Symbolic start or stop: `unroll_main_end = start + ((trip // F) * (F*step))` with `trip = stop -
  start` (step 1) or `(stop - start + step - 1) // step`, the main loop up to it, then
  `unroll_rem = stop - unroll_main_end` (step 1) or `trip - (trip // F) * F`, and the remainder cascade
  `if unroll_rem == 1: <1 clone> else: if unroll_rem == 2: <2 clones> else: ...` whose arms start from
  the main loop's values and whose innermost else yields them unchanged (R = 0).

Nested pipelines are lowered inner first, so an outer user pipeline whose body holds auto-tiled inner
pipelines (real-ir/tensor_proj) replicates the already-lowered inner loops. The first clone emitted
keeps the body's names; every other clone defines fresh ones (`name_1`, `name_2`, ...; tensors the
body rebinds keep their name). `stage=1` pipelines become plain loops. All loops the pass makes print as
`pl.range` (the real printer shows `pl.pipeline(..., stage=1)` until CanonicalizeIOOrder).

Like the real pass, every tile produced by a call in clone j of replicated region g (one region per
main loop, per static tail and per cascade arm, numbered in order) is tagged
`attrs={"pipeline_membership": "g:j"}` (appended with `;` inside nested regions), except cube
accumulators (`tile.matmul*` results), which the serialized cube never double-buffers.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.scalar import trip_count
from pypto_verify.ir import (
    Assign, BinOp, Call, Compare, Const, DType, DictExpr, Expr, For, Function, If, LoopKind, Module,
    ScalarType, Stmt, TensorType, TileType, Type, Var, Yield, map_stmts, walk_stmts, replace,
)

from pypto_verify.lowering._pass_util import (
    Namer, clone_fresh, yield_values, infer_env, map_kernel_functions, offset_index, propagate_literals,
    strip_yield,
)
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass
from pypto_verify.lowering.simplify import UNROLL_LIMIT

MEMBERSHIP = "pipeline_membership"


def lower_pipeline_loops(module: Module, options: LowerOptions) -> Module:
    """Replace every pipelined loop by its replicated main loop and remainder."""
    return map_kernel_functions(module, _lower_function)


def _lower_function(fn: Function) -> Function:
    if not any(isinstance(s, For) and s.kind is LoopKind.PIPELINE for s in walk_stmts(fn.body)):
        return fn
    lowerer = _Lowerer(fn)
    return replace(fn, body=propagate_literals(lowerer.body(fn.body)))


def static_trip_count(start: int, stop: int, step: int) -> int:
    """Iterations of `range(start, stop, step)`."""
    return trip_count(start, stop, step)


class _Lowerer:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.namer = Namer(fn)
        self.env: dict[str, Type] = infer_env(fn)
        self.groups = 0

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return map_stmts(body, lambda stmt: self.loop(stmt) if isinstance(stmt, For) else None)

    # ------------------------------------------------------------------ one loop

    def loop(self, loop: For) -> tuple[Stmt, ...]:
        """*loop*, whose body `map_stmts` has lowered already, replicated when it is a pipeline."""
        inner = loop.body
        stages = loop.stage or 1
        if loop.kind is not LoopKind.PIPELINE:
            return (replace(loop, body=inner),)
        plain = replace(loop, body=inner, kind=LoopKind.RANGE, stage=None)
        if stages <= 1:
            return (plain,)
        step = ops.const_int(loop.step)
        if step is None or step == 0:
            raise LoweringError("PV000", loop.span, f"pipelined loop over `{loop.loop_var.name}` needs a literal, "
                                                    "non-zero step to be replicated")
        start, stop = ops.const_int(loop.start), ops.const_int(loop.stop)
        if start is not None and stop is not None:
            main_iters, rem = divmod(static_trip_count(start, stop, step), stages)
            _check_size(loop, stages, (stages if main_iters else 0) + rem, inner)
            return self.static(loop, inner, stages, start, stop, step)
        _check_size(loop, stages, stages * (stages + 1) // 2, inner)  # the main body and the remainder cascade
        if step < 0:
            raise LoweringError("PV000", loop.span, f"pipelined loop over `{loop.loop_var.name}` has symbolic "
                                                    "bounds and a negative step")
        return self.dynamic(loop, inner, stages, step)

    def rv_types(self, loop: For) -> tuple[Type | None, ...]:
        return tuple(rt if rt is not None else self.env.get(rv.name)
                     for rv, rt in zip(loop.return_vars, loop.return_types))

    def fresh_vars(self, loop: For, suffix: str) -> tuple[Var, ...]:
        return tuple(replace(rv, name=self.namer.fresh(rv.name + suffix)) for rv in loop.return_vars)

    def static(self, loop: For, inner: tuple[Stmt, ...], stages: int, start: int, stop: int,
               step: int) -> tuple[Stmt, ...]:
        trip = static_trip_count(start, stop, step)
        if trip == 0:
            return (replace(loop, body=inner, kind=LoopKind.RANGE, stage=None),)
        main_iters, rem = divmod(trip, stages)
        out: list[Stmt] = []
        main_rvs = self.fresh_vars(loop, "_main") if rem else loop.return_vars
        if main_iters:
            stop_main = Const(start + main_iters * stages * step)
            out.append(self.main_loop(loop, inner, stages, step, stop_main, main_rvs))
        if rem:
            base = start + main_iters * stages * step
            seeds = main_rvs if main_iters else loop.inits
            stmts, finals = self.replicate(loop, inner, rem, step, Const(base), tuple(seeds),
                                           keep_names=not main_iters)
            out.extend(stmts)
            out.extend(self.bind(loop, finals))
        return tuple(out)

    def bind(self, loop: For, finals: tuple[Expr, ...]) -> list[Stmt]:
        """Identity copies binding the loop's return vars to the tail's last values."""
        return [Assign(rv, value, t, span=loop.span)
                for rv, value, t in zip(loop.return_vars, finals, self.rv_types(loop))]

    def main_loop(self, loop: For, inner: tuple[Stmt, ...], stages: int, step: int, stop: Expr,
                  return_vars: tuple[Var, ...]) -> For:
        stmts, finals = self.replicate(loop, inner, stages, step, loop.loop_var, loop.iter_args, keep_names=True)
        body = (*stmts, Yield(finals, span=loop.span)) if loop.iter_args else stmts
        return replace(loop, stop=stop, step=Const(stages * step), body=tuple(body), return_vars=return_vars,
                       kind=LoopKind.RANGE, stage=None)

    def replicate(self, loop: For, inner: tuple[Stmt, ...], count: int, step: int, base: Expr,
                  seeds: tuple[Expr, ...], keep_names: bool) -> tuple[list[Stmt], tuple[Expr, ...]]:
        """*count* clones of *inner* at `base + j*step`, threading the carries from *seeds*; one
        pipeline group. Returns the clones (without yields) and the last clone's yielded values."""
        group = self.groups
        self.groups += 1
        keep = _tensor_defs(inner)
        out: list[Stmt] = []
        current = seeds
        for j in range(count):
            mapping: dict[str, Expr] = {loop.loop_var.name: offset_index(base, j * step)}
            mapping.update({arg.name: value for arg, value in zip(loop.iter_args, current)})
            new_name = (lambda n: n) if (j == 0 and keep_names) else (lambda n: self.namer.fresh(_stem(n)))
            cloned, _ = clone_fresh(inner, mapping, new_name, keep)
            if loop.iter_args:
                current = yield_values(cloned)
                assert len(current) == len(loop.iter_args), f"{loop.span}: the body does not yield its carries"
            out.extend(_tagged(strip_yield(cloned), group, j))
        return out, current

    def dynamic(self, loop: For, inner: tuple[Stmt, ...], stages: int, step: int) -> tuple[Stmt, ...]:
        span = loop.span
        index = ScalarType(DType.INDEX)
        extent = loop.stop if ops.const_int(loop.start) == 0 else BinOp("-", loop.stop, loop.start)
        trip = extent if step == 1 else BinOp("//", BinOp("+", extent, Const(step - 1)), Const(step))
        main_iters = BinOp("//", trip, Const(stages))
        main_end = Var(self.namer.fresh("unroll_main_end"), span=span)
        end_value = BinOp("*", main_iters, Const(stages * step))
        if ops.const_int(loop.start) != 0:
            end_value = BinOp("+", loop.start, end_value)
        out: list[Stmt] = [Assign(main_end, end_value, index, span=span)]
        main_rvs = self.fresh_vars(loop, "_main")
        out.append(self.main_loop(loop, inner, stages, step, main_end, main_rvs))
        rem = Var(self.namer.fresh("unroll_rem"), span=span)
        rem_value = (BinOp("-", loop.stop, main_end) if step == 1
                     else BinOp("-", trip, BinOp("*", main_iters, Const(stages))))
        out.append(Assign(rem, rem_value, index, span=span))
        types = self.rv_types(loop)
        cascade: If | None = None
        cascade_rvs: tuple[Var, ...] = ()
        for k in range(stages - 1, 0, -1):
            stmts, finals = self.replicate(loop, inner, k, step, main_end, main_rvs, keep_names=False)
            then_body = (*stmts, Yield(finals, span=span)) if loop.iter_args else tuple(stmts)
            if cascade is None:
                else_body: tuple[Stmt, ...] = (Yield(main_rvs, span=span),) if loop.iter_args else ()
            else:
                else_body = (cascade, Yield(cascade_rvs, span=span)) if loop.iter_args else (cascade,)
            rvs = loop.return_vars if k == 1 else self.fresh_vars(loop, f"_rem{k}")
            cascade = If(Compare("==", rem, Const(k)), tuple(then_body), else_body, rvs,
                         types if len(rvs) == 1 else tuple(None for _ in rvs), span=span)
            cascade_rvs = rvs
        assert cascade is not None, "dynamic() is called with stages >= 2, so the cascade has an arm"
        out.append(cascade)
        return tuple(out)


def _check_size(loop: For, stages: int, clones: int, inner: tuple[Stmt, ...]) -> None:
    """PV000 when *clones* copies of *inner* exceed the unroll limit (simplify.UNROLL_LIMIT), before any is made."""
    size = clones * sum(1 for _ in walk_stmts(inner))
    if size > UNROLL_LIMIT:
        raise LoweringError("PV000", loop.span, f"the `pl.pipeline` loop with stage={stages} replicates its body to "
                                                f"{size} statements; the limit is {UNROLL_LIMIT}")


def _stem(name: str) -> str:
    """*name* without a clone suffix `_<n>`, so the next clone of `a_1` is `a_2`, not `a_1_1`."""
    head, sep, tail = name.rpartition("_")
    return head if sep and tail.isdigit() and head and not head.endswith("_") else name


def _tensor_defs(body: tuple[Stmt, ...]) -> frozenset[str]:
    """Names *body* assigns as tensors (GM rebindings such as `y = tile.store(c, [0, 0], y)`)."""
    names = set()
    for stmt in walk_stmts(body):
        if isinstance(stmt, Assign) and (isinstance(stmt.type, TensorType) or (
                stmt.type is None and isinstance(stmt.value, Call) and stmt.value.op == ops.STORE)):
            names.add(stmt.target.name)
    return frozenset(names)


def _tagged(body: tuple[Stmt, ...], group: int, stage: int) -> tuple[Stmt, ...]:
    """*body* with every tile-producing call in it tagged `(group, stage)` (cube results excepted)."""
    def tag(stmt: Stmt) -> tuple[Stmt, ...] | None:
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and _is_tile_def(stmt):
            return (replace(stmt, value=_with_membership(stmt.value, f"{group}:{stage}")),)
        return None
    return map_stmts(body, tag)


def _is_tile_def(stmt: Assign) -> bool:
    call = stmt.value
    assert isinstance(call, Call), "_tagged checks the value is a call first"
    if call.op.startswith("tile.matmul"):
        return False  # LowerPipelineLoops: cube accumulators are not tagged
    if isinstance(stmt.type, TileType):
        return True
    return stmt.type is None and call.op.startswith("tile.") and call.op not in (ops.STORE, ops.ALLOC)


def _with_membership(call: Call, pair: str) -> Call:
    attrs = call.kwarg("attrs")
    items = list(attrs.items) if isinstance(attrs, DictExpr) else []
    for i, (key, value) in enumerate(items):
        if key == MEMBERSHIP and isinstance(value, Const) and isinstance(value.value, str):
            items[i] = (key, Const(f"{value.value};{pair}"))
            break
    else:
        items.append((MEMBERSHIP, Const(pair)))
    return call.with_kwarg("attrs", DictExpr(tuple(items)))


PASS: Final = Pass("lower-pipeline-loops", lower_pipeline_loops, mirrors="PyPTO 28 LowerPipelineLoops")
