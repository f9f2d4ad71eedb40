"""Fixed only: align a divergent Acc phi arm or loop carry onto one window when that is provably
harmless, and otherwise say why it cannot be lowered (PV001 / PV002).

No Acc->Acc copy exists (TARGET_FACTS.md, "Who may read L0C"), so the only way to reconcile an Acc
phi or carry whose values sit on two windows is to *retype* one value's producers onto the other
window. The fixed pipeline moves the else arm's value onto the phi's own window (the then arm's,
where InitMemRef put the phi and with it every consumer of the phi), or a loop's yield value onto the
carry's window (the init's) — `try_align`, only when all of these hold, decided conservatively:
- the value's producer chain is its *only* producer chain: Assigns linked by in-place inputs, through
  the loops of the arm (a loop result is its body's yield, an iter_arg its init), back to a fresh Acc
  producer (`matmul`, `matmul_bias`, `create`) inside the arm — or a `tile.create` before it (an
  undefined buffer that emits nothing); every link the same size as the target window;
- each link is read only by the next link, the value only by the arm's yield — so no reader of a
  moved value sees it on another window than before;
- on every path from the chain's root to the end of the function, the target window is neither read
  nor written by any value other than the chain, the phi / carry itself and what flows from it
  (in-place outputs, identity copies, later phis and carries fed by it), and the other arm of the same
  `if` (not on the path); an enclosing loop's whole body counts (its next iteration is on the path);
- an enclosing loop the phi's value reaches through its yield carries it on the target window already
  (then what its next iteration makes of the iter_arg before the `if` consumes or replaces this value,
  and its init is the next instance of it).
Input: the yield-fixup state (current MemRefs). Output: the changes, or None.

It moves a then-arm seed onto the else arm's accumulator window (`align_seed_onto_chain`, what legacy
coalescing did without a liveness proof) only when the seed's chain is as above and every value on
that window is dead at the seed on the seed's path: nothing outside the seed's chain, the phi and what
flows from it reads or writes the window after the seed (to the end of the function, the other arms
not on the path); a loop of the seed's chain touches it only through those; a loop enclosing the `if`
does not carry the phi and reads no value on the window that is live across its back edge (defined
outside it, or its iter_arg). The seed's own window holds only what moves. MemoryReuse runs this
before its packing (`pre_align_acc_phis`), for functions with a remainder cascade
`if main_end == start: seed else: matmul_acc(main)`. Shape B (the old accumulator read after the `if`)
fails the first condition and stays PV001.

Findings: PV001 is reported at the `if` (every form). Its advice names the cause when the seed cannot
take the other arm's window because that arm's value, or the value it accumulates into in place on the
same window, is still read after the `if` (shape B: "`acc_1` is still read after the if (line 46), so
the seed cannot take its buffer; drain or copy it before re-seeding"); otherwise it is the generic
"predicate the seed with init_cond" (a seed / accumulate phi) or "make both arms produce the value on
one buffer".
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, For, Function, If, MemRef, MemSpace, Scope, Span, Stmt, Window, Yield,
    display_name, stmt_exprs, var_like, walk_exprs, walk_stmts,
)
from pypto_verify.lowering._pass_util import stmt_span
from pypto_verify.lowering.memory.memrefs import (
    Site, SiteKind, collect_sites, yield_values, infer_env, memref_map, reads_of, space_of_type, writes_of,
)
from pypto_verify.lowering.pass_base import LoweringError, Note
from pypto_verify.rules import DIVERGENT_ACC_CARRY, DIVERGENT_ACC_PHI
from pypto_verify.source import author_window, spelled_op


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
    if chain is None:
        return None
    members = [n for n in chain.links if n in ctx.mem]
    if any(ctx.mem[n].size != target.size for n in members):
        return None
    if not _only_chain_readers(ctx, chain):
        return None
    downstream = _flows_forward(ctx.fn, set(flows_from))
    carries = _carried_by(ctx, owner, downstream, target)
    if carries is None:
        return None
    allowed = set(chain.links) | downstream
    if isinstance(owner, If):
        allowed |= _defined_in(owner.else_body if arm == "then" else owner.then_body)
    if isinstance(owner, For):
        carries = carries | {owner}
    # a carrying loop's init starts the carried value: its (re)definition, reached only around an
    # enclosing loop's back edge, is the next instance of this same value
    allowed |= {v.name for loop in carries for e in loop.inits if (v := var_like(e)) is not None}
    if not _path_clear(ctx, ctx.sites[chain.root], target.window, allowed, carries):
        return None
    return {n: target for n in chain.retyped}


@dataclass
class _Chain:
    """The producers an arm value comes from, and who may read each of them."""

    links: list[str]
    """Every value of the chain (Assign targets, loop results and iter_args), value first."""
    retyped: list[str]
    """The ones whose definition carries a MemRef (iter_args follow their init)."""
    reader: dict[str, Stmt]
    """link -> the one statement allowed to read it (the next link's definition, or the arm's yield)."""
    root: str


def _chain(ctx: AlignContext, value: str, owner: Stmt, arm: str) -> _Chain | None:
    """*value* and its in-place inputs back to a fresh Acc producer, inside *owner*'s *arm*: through
    in-place ops and loops of the arm (a loop result is its body's yield; an iter_arg its init). The
    root may lie before the arm only when it is a `tile.create` (an undefined buffer, no instruction)."""
    body = _arm_body(owner, arm)
    if not body or not isinstance(body[-1], Yield):
        return None
    chain = _Chain([], [], {}, value)
    name: str = value
    reader: Stmt = body[-1]
    while True:
        site = ctx.sites.get(name)
        if site is None or name in chain.reader:
            return None
        inside = site.arm_of(owner) == arm
        chain.links.append(name)
        chain.reader[name] = reader
        if site.kind is SiteKind.FOR_RETURN and inside:
            loop = site.stmt
            assert isinstance(loop, For)
            chain.retyped.append(name)
            yielded = yield_values(loop.body)
            v = var_like(yielded[site.index]) if site.index < len(yielded) else None
            if v is None:
                return None
            name, reader = v.name, loop.body[-1]
            continue
        if site.kind is SiteKind.ITER_ARG and inside:
            loop = site.stmt
            assert isinstance(loop, For)
            v = var_like(loop.inits[site.index])
            if v is None:
                return None
            name, reader = v.name, loop
            continue
        assign = site.assign
        if assign is not None and inside and (copied := var_like(assign.value)) is not None:
            # an identity copy `a = b` (the name a pipeline remainder binds to its last clone's output)
            # shares b's buffer: both move together, like an in-place op's input and output
            chain.retyped.append(name)
            name, reader = copied.name, assign
            continue
        if assign is None or not isinstance(assign.value, Call):
            return None
        call = assign.value
        chain.retyped.append(name)
        source = ops.inplace_input(call)
        if source is None:
            fresh = call.op in (ops.MATMUL, ops.MATMUL_BIAS) or (
                call.op == ops.CREATE and ops.target_memory(call) is not None)
            outside_ok = call.op == ops.CREATE
            if not fresh or not (inside or outside_ok):
                return None
            chain.root = name
            return chain
        if not inside:
            return None
        v = var_like(source)
        if v is None:
            return None
        name, reader = v.name, assign


def _arm_body(owner: Stmt, arm: str) -> tuple[Stmt, ...]:
    if isinstance(owner, If):
        return owner.then_body if arm == "then" else owner.else_body
    if isinstance(owner, For):
        return owner.body
    return ()


def _own_reads(stmt: Stmt) -> list[str]:
    return [v.name for x in stmt_exprs(stmt) for e in walk_exprs(x) if (v := var_like(e)) is not None]


def _only_chain_readers(ctx: AlignContext, chain: _Chain) -> bool:
    """No statement but a link's allowed reader reads it, so no other reader sees it moved."""
    for stmt in walk_stmts(ctx.fn.body):
        for name in _own_reads(stmt):
            if name in chain.reader and chain.reader[name] is not stmt:
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
                for values in (yield_values(stmt.then_body), yield_values(stmt.else_body)):
                    for i, e in enumerate(values):
                        if (v := var_like(e)) is not None and v.name in out and i < len(stmt.return_vars):
                            new.append(stmt.return_vars[i].name)
            elif isinstance(stmt, For):
                for i, e in enumerate(stmt.inits):
                    if (v := var_like(e)) is not None and v.name in out:
                        new += [stmt.iter_args[i].name] + ([stmt.return_vars[i].name] if i < len(stmt.return_vars) else [])
                for i, e in enumerate(yield_values(stmt.body)):
                    if (v := var_like(e)) is not None and v.name in out and i < len(stmt.return_vars):
                        new.append(stmt.return_vars[i].name)
            for n in new:
                if n not in out:
                    out.add(n)
                    changed = True
    return out


def _carried_by(ctx: AlignContext, owner: Stmt, downstream: set[str], target: MemRef) -> set[For] | None:
    """The enclosing loops whose carry the aligned value reaches; None when one of them does not
    carry it on the target window (that carry is not this alignment's to make)."""
    loops: set[For] = set()
    for frame in _frames_of(ctx, owner):
        loop = frame.owner
        if not isinstance(loop, For):
            continue
        for i, e in enumerate(yield_values(loop.body)):
            v = var_like(e)
            if v is None or v.name not in downstream or i >= len(loop.inits):
                continue
            init = var_like(loop.inits[i])
            if init is None or ctx.window(init.name) != target.window:
                return None
            loops.add(loop)
    return loops


def _frames_of(ctx: AlignContext, stmt: Stmt):
    for site in ctx.sites.values():
        if site.stmt is stmt and site.kind in (SiteKind.IF_RETURN, SiteKind.FOR_RETURN, SiteKind.ITER_ARG):
            return site.frames
    return ()


def _defined_in(body: tuple[Stmt, ...]) -> set[str]:
    """Every value *body* defines: Assign targets and nested loops' and ifs' return vars."""
    names: set[str] = set()
    for s in walk_stmts(body):
        if isinstance(s, Assign):
            names.add(s.target.name)
        elif isinstance(s, (For, If)):
            names |= {v.name for v in s.return_vars}
    return names


def _touches(ctx: AlignContext, stmt: Stmt, target: Window, allowed: set[str]) -> bool:
    for name in (*reads_of(stmt), *writes_of(stmt)):
        if name in allowed:
            continue
        w = ctx.window(name)
        if w is not None and w.overlaps(target):
            return True
    return False


def _carry_class(ctx: AlignContext, loop: For) -> set[str]:
    """The values one iteration of *loop* makes of its carried value: the iter_args, what flows from
    them, and the producers in the arms of the phis they reach (which consume or replace it)."""
    values = _flows_forward(ctx.fn, {a.name for a in loop.iter_args})
    for stmt in walk_stmts(loop.body):
        if isinstance(stmt, If) and any(rv.name in values for rv in stmt.return_vars):
            values |= _defined_in(stmt.then_body) | _defined_in(stmt.else_body)
    return values


def _path_clear(ctx: AlignContext, root: Site, target: Window, allowed: set[str], carries: set[For]) -> bool:
    """No value outside *allowed* touches *target* on a path from *root*'s definition: the rest of each
    enclosing body, outward; for an enclosing loop the whole body (the next iteration). In a loop whose
    carry is the aligned value (*carries*), what the next iteration makes of the carried value before
    this point (`_carry_class`) consumes it or replaces it."""
    for frame in reversed(root.frames):
        for later in frame.body[frame.pos + 1:]:
            if _touches(ctx, later, target, allowed):
                return False
        if isinstance(frame.owner, For):
            before = allowed | _carry_class(ctx, frame.owner) if frame.owner in carries else allowed
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
    if (assign := site.assign) is not None and isinstance(call := assign.value, Call):
        role = "accumulate" if ops.inplace_input(call) is not None else "seed"
        return f"{role} `{shown}` line {assign.span.line}", assign.span, call.op
    kind = {SiteKind.ITER_ARG: "iter_arg", SiteKind.FOR_RETURN: "loop result", SiteKind.IF_RETURN: "phi",
            SiteKind.PARAM: "parameter", SiteKind.ASSIGN: "copy"}[site.kind]
    span = site.span
    return f"{kind} `{shown}`" + (f" line {span.line}" if span is not None and span.line else ""), span, kind


def _spoken(window: object, span: Span) -> str:
    """A window as the author of *span*'s file knows it (`bytes [0, 4096) of mem_acc_8` when the buffer
    is the lowering's; as written in a Form 3 dump)."""
    return author_window(str(window), span.path)


def divergent_phi(ctx: AlignContext, stmt: If, index: int, then_value: str, else_value: str) -> LoweringError:
    """PV001 for an Acc phi whose arms sit on two windows and cannot be aligned."""
    rv = stmt.return_vars[index]
    tw, ew = ctx.window(then_value), ctx.window(else_value)
    parts, notes = [], []
    for value, w in ((then_value, tw), (else_value, ew)):
        text, span, op = _describe(ctx, value)
        parts.append(text)
        if span is not None:
            notes.append(Note(span, f"`{display_name(value)}` ({spelled_op(op, span)}) is on {_spoken(w, span)}"))
    hint = ("predicate the seed with init_cond" if any(p.startswith(("seed", "accumulate")) for p in parts)
            else "make both arms produce the value on one buffer")
    # shape B (TARGET_FACTS.md, "post-if read"): the seed may not take the other arm's buffer because
    # that value is still read after the if; predicating would clobber it just the same
    for value, other, text in ((else_value, parts[0], parts[1]), (then_value, parts[1], parts[0])):
        if not other.startswith("seed") or text.startswith("seed"):
            continue
        found = _read_after(ctx, stmt, _same_window_chain(ctx, value))
        if found is not None:
            read, read_name = found
            shown = display_name(read_name)
            hint = (f"`{shown}` is still read after the if (line {read.line}), so the seed cannot take its "
                    f"buffer; drain or copy it before re-seeding")
            notes.append(Note(read, f"`{shown}` is read here, after the if"))
            break
    # fixed mode reports a divergent phi at its `if` (Form 1, 2 and 3 alike)
    span = stmt.span if stmt.span.line else rv.span
    return LoweringError(
        DIVERGENT_ACC_PHI.id, span,
        f"divergent L0C accumulator: phi `{display_name(rv.name)}` arms on {_spoken(tw, span)} and "
        f"{_spoken(ew, span)} "
        f"({parts[0]}, {parts[1]}); no Acc->Acc copy exists — {hint}",
        windows=tuple(w for w in (tw, ew) if w is not None),
        values=(display_name(rv.name), display_name(then_value), display_name(else_value)), notes=tuple(notes))


def _same_window_chain(ctx: AlignContext, value: str) -> list[str]:
    """*value* and the in-place inputs it accumulates into, back while they share its window (the
    values whose buffer a seed would have to take)."""
    names, window = [value], ctx.window(value)
    while True:
        site = ctx.sites.get(names[-1])
        assign = site.assign if site is not None else None
        if assign is None or not isinstance(assign.value, Call):
            return names
        source = var_like(ops.inplace_input(assign.value))
        if source is None or source.name in names or ctx.window(source.name) != window:
            return names
        names.append(source.name)


def _read_after(ctx: AlignContext, stmt: If, names: list[str]) -> tuple[Span, str] | None:
    """(span, name) of the first statement after *stmt* (the rest of each enclosing body, outward)
    that reads one of *names* itself — not through the phi — or None."""
    for frame in reversed(_frames_of(ctx, stmt)):
        for later in frame.body[frame.pos + 1:]:
            for s in walk_stmts((later,)):
                read = next((n for n in _own_reads(s) if n in names), None)
                if read is not None:
                    return stmt_span(s), read
    return None


def divergent_carry(ctx: AlignContext, stmt: For, index: int, init: str, yielded: str) -> LoweringError:
    """PV002 for an Acc loop carry whose init and yield sit on two windows and cannot be aligned."""
    iw, yw = ctx.window(init), ctx.window(yielded)
    text, span, op = _describe(ctx, yielded)
    notes = ([Note(span, f"`{display_name(yielded)}` ({spelled_op(op, span)}) is on {_spoken(yw, span)}")]
             if span is not None else [])
    init_site = ctx.sites.get(init)
    if init_site is not None and (init_assign := init_site.assign) is not None:
        notes.append(Note(init_assign.span, f"`{display_name(init)}` (the init) is on {_spoken(iw, init_assign.span)}"))
    name = stmt.iter_args[index].name if index < len(stmt.iter_args) else init
    return LoweringError(
        DIVERGENT_ACC_CARRY.id, stmt.span,
        f"divergent L0C accumulator carry: loop `{display_name(stmt.loop_var.name)}` carries "
        f"`{display_name(name)}` on {_spoken(iw, stmt.span)} but yields {text} on {_spoken(yw, stmt.span)}; "
        f"no Acc->Acc copy exists",
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
        if site is not None and (site_span := site.span) is not None:
            notes.append(Note(site_span, f"`{display_name(value)}` is on {_spoken(w, site_span)}"))
    return LoweringError(
        rule, span,
        f"legacy MemoryReuse cannot reconcile divergent L0C accumulator buffers: {what} needs "
        f"`{display_name(source)}` on {_spoken(sw, span)} moved to {_spoken(tw, span)}; no Acc->Acc copy exists",
        windows=tuple(w for w in (sw, tw) if w is not None),
        values=(display_name(source), display_name(target)), notes=tuple(notes))


# ---------------------------------------------------------------------------------------------- seeds onto chains


def align_seed_onto_chain(ctx: AlignContext, stmt: If, index: int) -> dict[str, MemRef] | None:
    """The retypes that put the then arm's *seed* chain, the phi and what inherited the phi's window
    onto the else arm's (accumulate) window, or None when that is not provably sound.

    The shape: `if c: f = matmul(...) else: x = matmul_acc(prev, ...)` where `prev` (and with it `x`)
    lives on the accumulator chain's window W and the seed `f` on a fresh window D (InitMemRef put
    the phi on D, the then arm's). Moving the seed onto W overwrites W on the seed's path, so it is
    done only when every value W holds there is dead (`_dead_on_seed_path`); shape B (the old
    accumulator read after the `if` by another name) is refused."""
    then_values, else_values = yield_values(stmt.then_body), yield_values(stmt.else_body)
    if index >= len(then_values) or index >= len(else_values) or index >= len(stmt.return_vars):
        return None
    seed, acc = var_like(then_values[index]), var_like(else_values[index])
    if seed is None or acc is None:
        return None
    target, old = ctx.mem.get(acc.name), ctx.mem.get(seed.name)
    if target is None or old is None or target.window == old.window:
        return None
    chain = _chain(ctx, seed.name, stmt, "then")
    if chain is None or not _only_chain_readers(ctx, chain):
        return None
    rv = stmt.return_vars[index].name
    downstream = _flows_forward(ctx.fn, {rv})
    moved = set(chain.links) | {n for n in downstream if ctx.window(n) == old.window}
    if any(ctx.mem[n].size != target.size for n in moved if n in ctx.mem):
        return None
    # the seed's window holds nothing but what moves (its chain, the phi and what took the phi's window)
    if any(m.window.overlaps(old.window) and n not in moved for n, m in ctx.mem.items()):
        return None
    allowed = set(chain.links) | downstream
    if not _dead_on_seed_path(ctx, ctx.sites[chain.root], stmt, target.window, allowed, downstream):
        return None
    return {n: target for n in moved}


def _dead_on_seed_path(ctx: AlignContext, root: Site, stmt: If, target: Window, allowed: set[str],
                       downstream: set[str]) -> bool:
    """Every value on *target* other than *allowed* is dead at *root*'s definition on the seed's path:
    - after the root, to the end of the function (the rest of each enclosing body, outward — the
      other arm of each enclosing `if` is not on the path), no statement reads or writes *target*
      through a value outside *allowed*;
    - a loop the chain lies in (between *stmt* and the root) touches *target* only through *allowed*
      anywhere in its body (its next iteration is on the path, the chain is live across it);
    - a loop enclosing *stmt* does not carry the phi (its carries are MaterializeSemanticAliases'),
      and nothing in its body reads a value on *target* that is live across its back edge: one
      defined outside the loop, or one of its iter_args (every other value on *target* is defined
      anew in the next iteration, after the seed's value is dead)."""
    depth = next((i for i, f in enumerate(root.frames) if f.owner is stmt), -1)
    for i in range(len(root.frames) - 1, -1, -1):
        frame = root.frames[i]
        for later in frame.body[frame.pos + 1:]:
            if _touches(ctx, later, target, allowed):
                return False
        loop = frame.owner
        if not isinstance(loop, For):
            continue
        if depth >= 0 and i > depth:  # a loop of the seed's chain, inside the arm
            if any(_touches(ctx, s, target, allowed) for s in loop.body):
                return False
            continue
        if any((v := var_like(e)) is not None and v.name in downstream for e in yield_values(loop.body)):
            return False
        for s in loop.body:
            for name in reads_of(s):
                if name in allowed:
                    continue
                w = ctx.window(name)
                site = ctx.sites.get(name)
                if w is not None and w.overlaps(target) and (site is None or not site.inside(loop)):
                    return False
    return True


def pre_align_acc_phis(fn: Function) -> dict[str, MemRef]:
    """Fixed only, before MemoryReuse's packing: the MemRef changes that align every divergent Acc if
    phi of *fn*, when at least one of them needs its seed moved onto the accumulate arm's chain
    (`align_seed_onto_chain`); empty otherwise (yield fixup aligns the rest as before).

    Ifs are taken in yield fixup's order (arms first, then the `if`, in program order); each phi is
    aligned the way yield fixup would (the else arm onto the phi's window, `try_align`), else by the
    seed move; each check sees the windows the earlier alignments chose. A phi neither can align is
    left for yield fixup to report (PV001)."""
    env = infer_env(fn)
    ctx = AlignContext(fn, collect_sites(fn), memref_map(fn, env))
    changes: dict[str, MemRef] = {}
    seeded = [False]

    def visit(body: tuple[Stmt, ...]) -> None:
        for s in body:
            if isinstance(s, For):
                visit(s.body)
            elif isinstance(s, Scope):
                visit(s.body)
            elif isinstance(s, If):
                visit(s.then_body)
                visit(s.else_body)
                align(s)

    def align(s: If) -> None:
        then_values, else_values = yield_values(s.then_body), yield_values(s.else_body)
        for i, rv in enumerate(s.return_vars):
            if i >= len(then_values) or i >= len(else_values):
                continue
            tv, ev = var_like(then_values[i]), var_like(else_values[i])
            if tv is None or ev is None or rv.name not in ctx.mem:
                continue
            tm, em = ctx.mem.get(tv.name), ctx.mem.get(ev.name)
            if tm is None or em is None or tm.window == em.window:
                continue
            if not all(space_of_type(env.get(n)) is MemSpace.Acc for n in (tv.name, ev.name, rv.name)):
                continue
            aligned = try_align(ctx, ev.name, tm, s, "else", [rv.name])
            if aligned is None:
                aligned = align_seed_onto_chain(ctx, s, i)
                seeded[0] = seeded[0] or aligned is not None
            if aligned is not None:
                ctx.mem.update(aligned)
                changes.update(aligned)

    visit(fn.body)
    return changes if seeded[0] else {}

