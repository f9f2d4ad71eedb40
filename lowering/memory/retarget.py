"""Plan moving a value onto a target buffer by walking its producer chain (PyPTO TopDownRetargeter).

Owns the retarget planner that materialize-semantic-aliases (the loop-carry push) and legacy
memory-reuse (the accumulator if-phi coalescing) share, and the liveness scan both rely on. Input:
one function with MemRefs; output: a plan `name -> MemRef` applied by `apply_plan`.

A value is retargeted according to how it is defined (the real planner's rules, mirrored):
- an Assign of an in-place op (`matmul_acc`, `assemble`): the input is retargeted, then the output;
- an Assign of a view: declined (a view cannot move without its source);
- an Assign of any other op: declined when the op cannot write the target's space (its
  `target_memory=` or its fixed output space differs), when a not-in-place-safe op would read the
  target buffer, or — unless the caller vouches for it — when the target buffer is read or written
  after the definition before the enclosing loop's end (`target_dead_at`);
- an if's return var: both arms' yields; a loop's return var: the body's yield and the init;
  an iter_arg: its init;
- an identity copy, a parameter or any non-call value: declined — except, when the planner is built
  with `follow_acc_copies` (fixed materialize-semantic-aliases), an identity copy `a = b` of an Acc
  value, which is retargeted like an in-place op (b first, then a): InitMemRef put `a` on `b`'s buffer,
  and no Acc->Acc move exists for yield fixup to repair the carry with later. A static pipeline
  remainder binds the loop's name to its last clone's output this way (`acc__ssa_v2 = acc__l0_c_acc_3`),
  so declining it left an auto-tiled seed chain with an odd L0 block count off its carry's buffer.

Partial plans of a declined chain are kept, as in PyPTO (its RetypeApplier applies every planned
retype, not only the ones a top-level caller accepted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, For, Function, If, MemRef, MemSpace, Stmt, Type, var_like, walk_stmts,
)
from pypto_verify.lowering.memory.memrefs import (
    Site, SiteKind, collect_sites, yield_values, infer_env, memref_map, reads_of, space_of_type,
    with_memrefs, writes_of,
)

NOT_INPLACE_SAFE = frozenset({
    "tile.move", "tile.transpose", "tile.recip", "tile.rsqrt", "tile.row_sum", "tile.row_max",
    "tile.row_min", "tile.mrgsort_format1", "tile.fmod", "tile.fmods",
    # the sort ops, as our IR spells them too (`tile.mrgsort` is both formats): vbitsort / vmrgsort4 read their
    # sources while they write (PyPTO's sort.cpp)
    "tile.sort32", "tile.mrgsort", "tile.mrgsort_format2",
})
"""Ops whose output must not share a buffer with any input (PyPTO `not_inplace_safe`)."""

KWARG_SPACE_OPS = frozenset({ops.CREATE, ops.LOAD, ops.EXTRACT, ops.MOVE})
"""Ops whose output space is their `target_memory=` keyword."""


def natural_space(call: Call) -> MemSpace | None:
    """The space an op can write, when it is fixed by the op (None when the op defers it)."""
    if call.op in ops.MADS:
        return MemSpace.Acc
    if call.op in KWARG_SPACE_OPS or call.op in ops.VIEW_OPS or call.op in (ops.STORE, ops.ASSEMBLE, ops.GATHER_ROW, ops.ALLOC):
        return None
    if call.op.startswith("tile."):
        return MemSpace.Vec
    return None


@dataclass
class Retargeter:
    """The planner over one function (types as the IR states them when it was built)."""

    fn: Function
    follow_acc_copies: bool = False
    """Retarget an identity copy of an Acc value through its source (fixed only; module docstring)."""
    env: dict[str, Type] = field(init=False)
    sites: dict[str, Site] = field(init=False)
    current: dict[str, MemRef] = field(init=False)
    plan: dict[str, MemRef] = field(default_factory=dict)
    visiting: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.env = infer_env(self.fn)
        self.sites = collect_sites(self.fn)
        self.current = memref_map(self.fn, self.env)

    # ------------------------------------------------------------------------------------------ lookups

    def memref(self, name: str) -> MemRef | None:
        """The value's planned MemRef, else the one the IR states."""
        return self.plan.get(name, self.current.get(name))

    def base_of(self, name: str) -> str | None:
        m = self.current.get(name)
        return m.base if m is not None else None

    def space(self, name: str) -> MemSpace | None:
        return space_of_type(self.env.get(name))

    # ------------------------------------------------------------------------------------------ planning

    def try_retarget(self, name: str, target: MemRef, space: MemSpace | None) -> bool:
        """Plan *name* onto *target*; True when it already lives there or a retype was planned."""
        m = self.memref(name)
        if m is not None and m.base == target.base:
            return True
        if name in self.visiting:
            return False
        site = self.sites.get(name)
        if site is None:
            return False
        self.visiting.add(name)
        try:
            if site.kind is SiteKind.ASSIGN:
                return self.retarget_assign(name, site, target, space)
            if site.kind is SiteKind.IF_RETURN:
                return self._retarget_if_return(name, site, target, space)
            if site.kind is SiteKind.FOR_RETURN:
                return self._retarget_for_return(name, site, target, space)
            if site.kind is SiteKind.ITER_ARG:
                return self._retarget_iter_arg(name, site, target, space)
            return False
        finally:
            self.visiting.discard(name)

    def retarget_assign(self, name: str, site: Site, target: MemRef, space: MemSpace | None,
                        check_liveness: bool = True) -> bool:
        assert isinstance(site.stmt, Assign)
        call = site.stmt.value
        if not isinstance(call, Call):
            copied = var_like(call)
            if (not self.follow_acc_copies or copied is None or self.space(name) is not MemSpace.Acc
                    or self.space(copied.name) is not MemSpace.Acc
                    or not self.try_retarget(copied.name, target, space)):
                return False
            self.plan[name] = target
            return True
        source = ops.inplace_input(call)
        if source is not None:
            v = var_like(source)
            if v is None or not self.try_retarget(v.name, target, space):
                return False
            self.plan[name] = target
            return True
        operand = var_like(call.args[0]) if call.args else None
        if ops.is_view(call, self.env.get(operand.name) if operand is not None else None):
            return False  # a view moves with its source (apply_plan), never on its own
        if call.op in KWARG_SPACE_OPS and call.kwarg("target_memory") is not None:
            if ops.target_memory(call) is not space:
                return False
        fixed = natural_space(call)
        if fixed is not None and space is not None and fixed is not space:
            return False
        if call.op in NOT_INPLACE_SAFE and any(self.base_of(n) == target.base for n in operand_names(call)):
            return False
        if check_liveness and not self.target_dead_at(site, target.base):
            return False
        self.plan[name] = target
        return True

    def _retarget_if_return(self, name: str, site: Site, target: MemRef, space: MemSpace | None) -> bool:
        stmt = site.stmt
        assert isinstance(stmt, If)

        def arm(body: tuple[Stmt, ...]) -> bool:
            values = yield_values(body)
            v = var_like(values[site.index]) if site.index < len(values) else None
            return v is not None and self.try_retarget(v.name, target, space)

        then_ok = arm(stmt.then_body)
        else_ok = arm(stmt.else_body) if stmt.else_body else True
        if not (then_ok and else_ok):
            return False
        self.plan[name] = target
        return True

    def _retarget_for_return(self, name: str, site: Site, target: MemRef, space: MemSpace | None) -> bool:
        stmt = site.stmt
        assert isinstance(stmt, For)
        values = yield_values(stmt.body)
        v = var_like(values[site.index]) if site.index < len(values) else None
        if v is None or not self.try_retarget(v.name, target, space):
            return False
        if site.index < len(stmt.iter_args):
            init = var_like(stmt.inits[site.index])
            if init is not None and not self.try_retarget(init.name, target, space):
                return False
            self.plan[stmt.iter_args[site.index].name] = target
        self.plan[name] = target
        return True

    def _retarget_iter_arg(self, name: str, site: Site, target: MemRef, space: MemSpace | None) -> bool:
        stmt = site.stmt
        assert isinstance(stmt, For)
        init = var_like(stmt.inits[site.index])
        if init is None or not self.try_retarget(init.name, target, space):
            return False
        self.plan[name] = target
        return True

    # ------------------------------------------------------------------------------------------ liveness

    def target_dead_at(self, site: Site, base: str, stop_at: Stmt | None = None) -> bool:
        """True when no statement after *site*'s definition reads or writes buffer *base*, scanning each
        enclosing body outward and stopping at the first enclosing loop — or at *stop_at*.

        UNSOUND: PyPTO's IsTargetDeadAtAssign. Stopping at the enclosing loop ignores reads after it
        (the retyped value is consumed by that loop's yield); with *stop_at* = the enclosing `if`
        (legacy coalescing), reads after the `if` by another name than the phi are not seen — the
        post-if-read defect (TARGET_FACTS.md, "The defects").
        """
        for frame in reversed(site.frames):
            for later in frame.body[frame.pos + 1:]:
                if any(self.base_of(n) == base for n in reads_of(later)):
                    return False
                if any(self.base_of(n) == base for n in writes_of(later)):
                    return False
            if stop_at is not None and frame.owner is stop_at:
                return True
            if isinstance(frame.owner, For):
                return True
        return True


def operand_names(call: Call) -> list[str]:
    """The values *call* reads: its operands, a keyword one too (`tmp=`, which PyPTO's IR holds as an argument)."""
    return [v.name for a in (*call.args, *(value for _, value in call.kwargs)) if (v := var_like(a)) is not None]


def apply_plan(fn: Function, plan: dict[str, MemRef]) -> Function:
    """*fn* with the planned retypes applied (PyPTO RetypeApplier), views re-anchored on a moved input.

    Iter_args are not retyped (they live where their init lives); a view whose buffer was its input's
    follows its input when the input moved (FollowRetargetedViewInput).
    """
    if not plan:
        return fn
    env = infer_env(fn)
    before = memref_map(fn, env)
    iter_args = {a.name for s in walk_stmts(fn.body) if isinstance(s, For) for a in s.iter_args}
    changes = {n: m for n, m in plan.items() if n in env and n not in iter_args}
    after = dict(before)
    after.update(changes)
    for stmt in (s for s in walk_stmts(fn.body) if isinstance(s, Assign)):
        call = stmt.value
        if not isinstance(call, Call) or not call.args:
            continue
        source = var_like(call.args[0])
        if source is None or not ops.is_view(call, env.get(source.name)):
            continue
        name = stmt.target.name
        if source is None or name in changes or source.name not in changes:
            continue
        old_in, old_out, new_in = before.get(source.name), before.get(name), after.get(source.name)
        if old_in is None or old_out is None or new_in is None:
            continue
        if old_out.base == old_in.base and new_in.base != old_in.base:
            changes[name] = new_in
            after[name] = new_in
    return with_memrefs(fn, changes, env)


