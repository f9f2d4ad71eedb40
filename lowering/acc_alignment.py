"""Fixed only: align a divergent Acc phi arm or loop carry onto one window when that is provably
harmless, and otherwise say why it cannot be lowered (PV001 / PV002).

No Acc->Acc copy exists (TARGET_FACTS.md, "Who may read L0C"), so the only way to reconcile an Acc
phi or carry whose values sit on two windows is to *retype* one value's producers onto the other
window. The fixed pipeline never coalesces a seed onto an accumulator (the legacy heuristic); it only
moves a value onto the phi's own window (the then-arm's, where InitMemRef put the phi) or onto the
carry's window (the init's), and only when all of these hold — decided conservatively:
- the value is produced by a chain lying inside the arm (loop body): Assigns linked by in-place
  inputs back to a fresh Acc producer (`matmul`, `matmul_bias`, `create`), every link the same size
  as the target window — so no value defined outside the arm moves;
- each link is read only by the next link, the last one only by the arm's yield — so no reader of a
  moved value sees it on another window than before;
- on every path from the chain's first write to the end of the function, the target window is
  neither read nor written by any value other than the chain, the phi / carry itself and what flows
  from it (in-place outputs, identity copies, later phis and carries fed by it): for an enclosing
  loop the whole body counts (the next iteration is on the path); the other arm of the same `if` is
  not on the path;
- the phi's value does not reach an enclosing loop's yield (that carry is the loop's to align).
Input: the yield-fixup state (current MemRefs). Output: the changes, or None.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Eval, For, Function, If, MemRef, Return, Scope, Span, Stmt, Window, Yield, display_name,
    var_like, walk_exprs, walk_stmts,
)
from pypto_verify.lowering.memrefs import Site, SiteKind, final_yield_values, reads_of, writes_of
from pypto_verify.lowering.pass_base import LoweringError, Note
from pypto_verify.rules import DIVERGENT_ACC_CARRY, DIVERGENT_ACC_PHI


@dataclass
class AlignContext:
    """What the aligner reads: the function, its sites and the MemRefs as yield fixup has them now."""

    fn: Function
    sites: dict[str, Site]
    mem: dict[str, MemRef]

    def window(self, name: str) -> Window | None:
        m = self.mem.get(name)
        return m.window if m is not None else None


def try_align(ctx: AlignContext, value: str, target: MemRef, owner: Stmt, arm: str,
              flows_from: list[str]) -> dict[str, MemRef] | None:
    """The retypes that put *value* (yielded by *owner*'s *arm*) on *target*, or None when unsound.

    *flows_from* are the values the aligned value becomes (the phi's return var, or the loop's return
    var): their readers, and the readers of what flows from them, may read the target window.
    """
    chain = _chain(ctx, value, owner, arm)
    if chain is None or any(ctx.mem[n].size != target.size for n in chain):
        return None
    if not _only_chain_readers(ctx, chain, owner, arm):
        return None
    downstream = _flows_forward(ctx.fn, set(flows_from))
    if isinstance(owner, If) and _reaches_enclosing_yield(ctx, owner, downstream):
        return None
    allowed = set(chain) | downstream
    if isinstance(owner, If):
        allowed |= _defined_in(owner.else_body if arm == "then" else owner.then_body)
    root_site = ctx.sites[chain[-1]]
    if not _path_clear(ctx, root_site, target.window, allowed, owner):
        return None
    return {n: target for n in chain}


def _chain(ctx: AlignContext, value: str, owner: Stmt, arm: str) -> list[str] | None:
    """*value* and its in-place inputs back to a fresh Acc producer, all inside *owner*'s *arm*."""
    chain: list[str] = []
    name = value
    while True:
        site = ctx.sites.get(name)
        if site is None or site.kind is not SiteKind.ASSIGN or site.arm_of(owner) != arm:
            return None
        call = site.stmt.value  # type: ignore[union-attr]
        if not isinstance(call, Call) or name in chain:
            return None
        chain.append(name)
        source = ops.inplace_input(call)
        if source is None:
            fresh = call.op in (ops.MATMUL, ops.MATMUL_BIAS) or (
                call.op == ops.CREATE and ops.target_memory(call) is not None)
            return chain if fresh else None
        v = var_like(source)
        if v is None:
            return None
        name = v.name


def _own_reads(stmt: Stmt) -> list[str]:
    if isinstance(stmt, (Assign, Eval)):
        exprs = (stmt.value,)
    elif isinstance(stmt, (Yield, Return)):
        exprs = stmt.values
    elif isinstance(stmt, For):
        exprs = (stmt.start, stmt.stop, stmt.step, *stmt.inits)
    elif isinstance(stmt, If):
        exprs = (stmt.cond,)
    elif isinstance(stmt, Scope):
        exprs = (stmt.call,)
    else:
        exprs = ()
    return [e.name for x in exprs for e in walk_exprs(x) if var_like(e) is not None]  # type: ignore[union-attr]


def _only_chain_readers(ctx: AlignContext, chain: list[str], owner: Stmt, arm: str) -> bool:
    body = owner.then_body if isinstance(owner, If) and arm == "then" else (
        owner.else_body if isinstance(owner, If) else owner.body)  # type: ignore[union-attr]
    final = body[-1] if body and isinstance(body[-1], Yield) else None
    successor = {chain[i + 1]: chain[i] for i in range(len(chain) - 1)}
    members = set(chain)
    for stmt in walk_stmts(ctx.fn.body):
        for name in _own_reads(stmt):
            if name not in members:
                continue
            if stmt is final and name == chain[0]:
                continue
            if isinstance(stmt, Assign) and successor.get(name) == stmt.target.name:
                continue
            return False
    return True


def _flows_forward(fn: Function, start: set[str]) -> set[str]:
    """*start* and every value that takes over its buffer: in-place outputs, identity copies, phis and
    loop carries fed by it (no loop back edge)."""
    out = set(start)
    changed = True
    while changed:
        changed = False
        for stmt in walk_stmts(fn.body):
            new: list[str] = []
            if isinstance(stmt, Assign):
                source = ops.inplace_input(stmt.value) if isinstance(stmt.value, Call) else stmt.value
                v = var_like(source)
                if v is not None and v.name in out:
                    new.append(stmt.target.name)
            elif isinstance(stmt, If):
                for values in (final_yield_values(stmt.then_body), final_yield_values(stmt.else_body)):
                    for i, e in enumerate(values):
                        if (v := var_like(e)) is not None and v.name in out and i < len(stmt.return_vars):
                            new.append(stmt.return_vars[i].name)
            elif isinstance(stmt, For):
                for i, e in enumerate(stmt.inits):
                    if (v := var_like(e)) is not None and v.name in out:
                        new += [stmt.iter_args[i].name] + ([stmt.return_vars[i].name] if i < len(stmt.return_vars) else [])
                for i, e in enumerate(final_yield_values(stmt.body)):
                    if (v := var_like(e)) is not None and v.name in out and i < len(stmt.return_vars):
                        new.append(stmt.return_vars[i].name)
            for n in new:
                if n not in out:
                    out.add(n)
                    changed = True
    return out


def _reaches_enclosing_yield(ctx: AlignContext, owner: If, downstream: set[str]) -> bool:
    for stmt in walk_stmts(ctx.fn.body):
        if isinstance(stmt, For) and any(f.owner is stmt for f in _frames_of(ctx, owner)):
            if any((v := var_like(e)) is not None and v.name in downstream for e in final_yield_values(stmt.body)):
                return True
    return False


def _frames_of(ctx: AlignContext, stmt: Stmt):
    for site in ctx.sites.values():
        if site.stmt is stmt and site.kind in (SiteKind.IF_RETURN, SiteKind.FOR_RETURN):
            return site.frames
    return ()


def _defined_in(body: tuple[Stmt, ...]) -> set[str]:
    return {s.target.name for s in walk_stmts(body) if isinstance(s, Assign)}


def _touches(ctx: AlignContext, stmt: Stmt, target: Window, allowed: set[str]) -> bool:
    for name in (*reads_of(stmt), *writes_of(stmt)):
        if name in allowed:
            continue
        w = ctx.window(name)
        if w is not None and w.overlaps(target):
            return True
    return False


def _path_clear(ctx: AlignContext, root: Site, target: Window, allowed: set[str], owner: Stmt) -> bool:
    for frame in reversed(root.frames):
        for later in frame.body[frame.pos + 1:]:
            if _touches(ctx, later, target, allowed):
                return False
        if isinstance(frame.owner, For):
            # the next iteration is on the path: the part of the body before this point too. In the
            # loop whose carry is aligned, the iter_arg read there *is* the aligned value.
            before = allowed | {a.name for a in frame.owner.iter_args} if frame.owner is owner else allowed
            for earlier in frame.body[:frame.pos]:
                if _touches(ctx, earlier, target, before):
                    return False
    return True


# ---------------------------------------------------------------------------------------------- findings


def _describe(ctx: AlignContext, name: str) -> tuple[str, Span | None, str]:
    """(`what` text, span, producing op) for an arm value: `seed` / `accumulate` / how it is defined."""
    site = ctx.sites.get(name)
    shown = display_name(name)
    if site is None:
        return f"`{shown}`", None, "?"
    if site.kind is SiteKind.ASSIGN and isinstance(site.stmt.value, Call):  # type: ignore[union-attr]
        call = site.stmt.value  # type: ignore[union-attr]
        role = "accumulate" if ops.inplace_input(call) is not None else "seed"
        span = site.stmt.span  # type: ignore[union-attr]
        return f"{role} `{shown}` line {span.line}", span, call.op
    kind = {SiteKind.ITER_ARG: "iter_arg", SiteKind.FOR_RETURN: "loop result", SiteKind.IF_RETURN: "phi",
            SiteKind.PARAM: "parameter", SiteKind.ASSIGN: "copy"}[site.kind]
    span = site.stmt.span if site.stmt is not None else None
    return f"{kind} `{shown}`" + (f" line {span.line}" if span is not None and span.line else ""), span, kind


def divergent_phi(ctx: AlignContext, stmt: If, index: int, then_value: str, else_value: str) -> LoweringError:
    """PV001 for an Acc phi whose arms sit on two windows and cannot be aligned."""
    rv = stmt.return_vars[index]
    tw, ew = ctx.window(then_value), ctx.window(else_value)
    parts, notes = [], []
    for value, w in ((then_value, tw), (else_value, ew)):
        text, span, op = _describe(ctx, value)
        parts.append(text)
        if span is not None:
            notes.append(Note(span, f"`{display_name(value)}` ({op}) is on {w}"))
    hint = ("predicate the seed with init_cond" if any(p.startswith(("seed", "accumulate")) for p in parts)
            else "make both arms produce the value on one buffer")
    span = rv.span if rv.span.line else stmt.span
    return LoweringError(
        DIVERGENT_ACC_PHI.id, span,
        f"divergent L0C accumulator: phi `{display_name(rv.name)}` arms on {tw} and {ew} "
        f"({parts[0]}, {parts[1]}); no Acc->Acc copy exists — {hint}",
        windows=tuple(w for w in (tw, ew) if w is not None),
        values=(display_name(rv.name), display_name(then_value), display_name(else_value)), notes=tuple(notes))


def divergent_carry(ctx: AlignContext, stmt: For, index: int, init: str, yielded: str) -> LoweringError:
    """PV002 for an Acc loop carry whose init and yield sit on two windows and cannot be aligned."""
    iw, yw = ctx.window(init), ctx.window(yielded)
    text, span, op = _describe(ctx, yielded)
    notes = [Note(span, f"`{display_name(yielded)}` ({op}) is on {yw}")] if span is not None else []
    init_site = ctx.sites.get(init)
    if init_site is not None and init_site.kind is SiteKind.ASSIGN:
        notes.append(Note(init_site.stmt.span, f"`{display_name(init)}` (the init) is on {iw}"))  # type: ignore[union-attr]
    name = stmt.iter_args[index].name if index < len(stmt.iter_args) else init
    return LoweringError(
        DIVERGENT_ACC_CARRY.id, stmt.span,
        f"divergent L0C accumulator carry: loop `{display_name(stmt.loop_var.name)}` carries "
        f"`{display_name(name)}` on {iw} but yields {text} on {yw}; no Acc->Acc copy exists",
        windows=tuple(w for w in (iw, yw) if w is not None),
        values=(display_name(name), display_name(init), display_name(yielded)), notes=tuple(notes))


def legacy_cannot_reconcile(ctx: AlignContext, stmt: Stmt, index: int, source: str, target: str) -> LoweringError:
    """PyPTO's internal error when yield fixup would need an Acc->Acc move (legacy mode)."""
    sw, tw = ctx.window(source), ctx.window(target)
    if isinstance(stmt, If):
        rule, what = DIVERGENT_ACC_PHI.id, f"phi `{display_name(stmt.return_vars[index].name)}`"
        span = stmt.return_vars[index].span if stmt.return_vars[index].span.line else stmt.span
    else:
        assert isinstance(stmt, For)
        rule, what = DIVERGENT_ACC_CARRY.id, f"loop `{display_name(stmt.loop_var.name)}` carry"
        span = stmt.span
    notes = []
    for value, w in ((source, sw), (target, tw)):
        site = ctx.sites.get(value)
        if site is not None and site.stmt is not None:
            notes.append(Note(site.stmt.span, f"`{display_name(value)}` is on {w}"))
    return LoweringError(
        rule, span,
        f"legacy MemoryReuse cannot reconcile divergent L0C accumulator buffers: {what} needs "
        f"`{display_name(source)}` on {sw} moved to {tw}; no Acc->Acc copy exists",
        windows=tuple(w for w in (sw, tw) if w is not None),
        values=(display_name(source), display_name(target)), notes=tuple(notes))
