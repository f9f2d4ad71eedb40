"""Make each loop carry and each if phi sit on one buffer after reuse (PyPTO YieldFixupMutator).

Innermost construct first:
- a loop whose yield value is not on its init's buffer gets `<value>_mv = tile.move(value)` onto the
  init's buffer before the yield, which then yields the copy; its return var takes the yield's buffer;
- an if whose else-arm value is not on the then-arm value's buffer gets the move in the else arm; its
  return var takes the then-arm value's buffer (the else arm's when the then arm yields no variable).
There is no Acc->Acc move (TARGET_FACTS.md, "Who may read L0C"): where one would be needed,
- with `cannot_reconcile_acc_buffers` (legacy) it raises PyPTO's "cannot reconcile divergent L0C
  accumulator buffers" internal error (PV001 for a phi, PV002 for a carry);
- otherwise (fixed) it first tries to align the value onto the phi's / carry's window
  (`acc_alignment`), and raises PV001 / PV002 naming both windows when that is not provably sound.

With `misses_iter_args` (legacy) PyPTO's exact-`Var` tests are kept: an arm, init or yield that is an
IterArg is skipped — no move, no error, and the return var is patched from the other side only.
UNSOUND: the IterArg blind spot (TARGET_FACTS.md, "The defects"); it leaves a divergent phi or carry in
place, silently. With `compares_buffers_by_base` (legacy) two MemRefs agree when their bases do, as in
PyPTO; otherwise when their windows do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_verify.ir import (
    Assign, Call, Expr, For, Function, If, MemRef, MemSpace, Scope, Stmt, Sym, TileType, Type, Var,
    Yield, var_like, replace,
)
from pypto_verify.lowering._pass_util import Namer
from pypto_verify.lowering.memory.acc_alignment import (
    AlignContext, divergent_carry, divergent_phi, legacy_cannot_reconcile, try_align,
)
from pypto_verify.lowering.pass_base import Behaviours
from pypto_verify.lowering.memory.memrefs import (
    collect_sites, yield_values, infer_env, memref_map, space_of_type, with_memref, with_memrefs,
)


def yield_fixup(fn: Function, behaviours: Behaviours) -> Function:
    """*fn* with every loop carry and if phi on one buffer (or a LoweringError)."""
    fixer = _Fixer(fn, behaviours)
    fixer.visit(fn.body)
    return fixer.result()


@dataclass
class _Move:
    index: int
    source: str
    moved: str
    memref: MemRef
    space: MemSpace


@dataclass
class _Fixer:
    fn: Function
    behaviours: Behaviours
    env: dict[str, Type] = field(init=False)
    mem: dict[str, MemRef] = field(init=False)
    original: dict[str, MemRef] = field(init=False)
    moves: dict[int, list[_Move]] = field(default_factory=dict)
    """id(original For / If) -> the moves to insert before its (else-arm) yield."""

    def __post_init__(self) -> None:
        self.env = infer_env(self.fn)
        self.original = memref_map(self.fn, self.env)
        self.mem = dict(self.original)
        self.ctx = AlignContext(self.fn, collect_sites(self.fn), self.mem)
        self.namer = Namer(self.fn)

    def pick(self, expr: Expr | None) -> Var | None:
        # UNSOUND (legacy): PyPTO's `As<Var>` does not match an IterArg (the IterArg blind spot)
        if self.behaviours.misses_iter_args:
            return expr if type(expr) is Var else None
        return var_like(expr)

    def same(self, a: MemRef, b: MemRef) -> bool:
        # PyPTO compares allocations (bases); the fixed pipeline compares windows (L0C_RULES.md)
        return a.base == b.base if self.behaviours.compares_buffers_by_base else a.window == b.window

    def space(self, name: str) -> MemSpace | None:
        return space_of_type(self.env.get(name))

    # ------------------------------------------------------------------------------------------ traversal

    def visit(self, body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            if isinstance(stmt, For):
                self.visit(stmt.body)
                self.fix_loop(stmt)
            elif isinstance(stmt, If):
                self.visit(stmt.then_body)
                self.visit(stmt.else_body)
                self.fix_branch(stmt)
            elif isinstance(stmt, Scope):
                self.visit(stmt.body)

    def fix_loop(self, stmt: For) -> None:
        yielded = list(yield_values(stmt.body))
        for i, init_expr in enumerate(stmt.inits):
            if i >= len(yielded):
                break
            value, init = self.pick(yielded[i]), self.pick(init_expr)
            if value is None or init is None:
                continue
            vm, im = self.mem.get(value.name), self.mem.get(init.name)
            if vm is None or im is None or self.same(vm, im):
                continue
            if self.space(value.name) is MemSpace.Acc and self.space(init.name) is MemSpace.Acc:
                if self.behaviours.cannot_reconcile_acc_buffers:
                    raise legacy_cannot_reconcile(self.ctx, stmt, i, value.name, init.name)
                flows_to = [stmt.return_vars[i].name] if i < len(stmt.return_vars) else []
                aligned = try_align(self.ctx, value.name, im, stmt, "body", flows_to)
                if aligned is None:
                    raise divergent_carry(self.ctx, stmt, i, init.name, value.name)
                self.mem.update(aligned)
                continue
            moved = self.add_move(stmt, i, value.name, im, self.space(init.name))
            yielded[i] = Var(moved)
        for i, rv in enumerate(stmt.return_vars):
            if i >= len(yielded) or i >= len(stmt.inits) or self.pick(stmt.inits[i]) is None:
                continue
            value = self.pick(yielded[i])
            if value is not None and value.name in self.mem and rv.name in self.mem:
                self.mem[rv.name] = self.mem[value.name]

    def fix_branch(self, stmt: If) -> None:
        then_values, else_values = yield_values(stmt.then_body), yield_values(stmt.else_body)
        for i, rv in enumerate(stmt.return_vars):
            then_var = self.pick(then_values[i]) if i < len(then_values) else None
            else_var = self.pick(else_values[i]) if i < len(else_values) else None
            tm = self.mem.get(then_var.name) if then_var is not None else None
            em = self.mem.get(else_var.name) if else_var is not None else None
            if then_var is not None and tm is not None:
                target, target_space = tm, self.space(then_var.name)
            elif else_var is not None and em is not None:
                target, target_space = em, self.space(else_var.name)
            else:
                continue
            if tm is not None and em is not None and not self.same(em, tm):
                assert then_var is not None and else_var is not None
                if self.space(else_var.name) is MemSpace.Acc and target_space is MemSpace.Acc:
                    if self.behaviours.cannot_reconcile_acc_buffers:
                        raise legacy_cannot_reconcile(self.ctx, stmt, i, else_var.name, then_var.name)
                    aligned = try_align(self.ctx, else_var.name, tm, stmt, "else", [rv.name])
                    if aligned is None:
                        raise divergent_phi(self.ctx, stmt, i, then_var.name, else_var.name)
                    self.mem.update(aligned)
                else:
                    self.add_move(stmt, i, else_var.name, tm, target_space)
            if rv.name in self.mem:
                self.mem[rv.name] = target

    def add_move(self, stmt: Stmt, index: int, source: str, memref: MemRef, space: MemSpace | None) -> str:
        moved = self.namer.fresh(f"{source}_mv")
        assert space is not None
        self.moves.setdefault(id(stmt), []).append(_Move(index, source, moved, memref, space))
        return moved

    # ------------------------------------------------------------------------------------------ rebuild

    def result(self) -> Function:
        fn = replace(self.fn, body=self.insert_moves(self.fn.body)) if self.moves else self.fn
        changes = {n: m for n, m in self.mem.items() if self.original.get(n) != m}
        return with_memrefs(fn, changes)

    def insert_moves(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for stmt in body:
            moves = self.moves.get(id(stmt), [])
            if isinstance(stmt, For):
                stmt = replace(stmt, body=self.with_moves(self.insert_moves(stmt.body), moves))
            elif isinstance(stmt, If):
                stmt = replace(stmt, then_body=self.insert_moves(stmt.then_body),
                               else_body=self.with_moves(self.insert_moves(stmt.else_body), moves))
            elif isinstance(stmt, Scope):
                stmt = replace(stmt, body=self.insert_moves(stmt.body))
            out.append(stmt)
        return tuple(out)

    def with_moves(self, body: tuple[Stmt, ...], moves: list[_Move]) -> tuple[Stmt, ...]:
        if not moves or not body or not isinstance(body[-1], Yield):
            return body
        final = body[-1]
        values = list(final.values)
        assigns = []
        for m in moves:
            source_t = self.env.get(m.source)
            t = replace(source_t, space=m.space) if isinstance(source_t, TileType) else source_t
            call = Call("tile.move", (Var(m.source),), (("target_memory", Sym(f"Mem.{m.space.value}")),),
                        span=final.span)
            assigns.append(Assign(Var(m.moved, span=final.span), call,
                                  with_memref(t, m.memref) if t is not None else None, span=final.span))
            values[m.index] = Var(m.moved)
        return (*body[:-1], *assigns, replace(final, values=tuple(values)))
