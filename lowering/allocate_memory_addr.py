"""Give every on-chip buffer a byte address in its space, and reject a space that overflows.

Mirrors PyPTO 34 AllocateMemoryAddr (TARGET_FACTS.md, "The compiler passes" 7) with its default
allocator policy: per space, the roots still in use are taken in ascending order of their *name*
(a string sort: `mem_mat_10` before `mem_mat_7`, as real-ir 35 shows), each placed at the current
cursor, which then moves past it rounded up to 32 bytes (a bump allocator: MemoryReuse already
decided what shares). A root's size is its largest value's MemRef size; every MemRef on it gets
`offset = address + its offset in the root`. The `tile.alloc` statements are left as they are.
Requires: memory-reuse. Leaves: MemRef offsets that are byte addresses.

Rules: PV008 when the space's footprint exceeds the target's capacity. The id is the one of rule
l0c-capacity; for every other space the message starts with the space's own name (`UB capacity:`,
`L1 capacity:`, `L0A capacity:`, `L0B capacity:`, `BT capacity:`; `L0C capacity:` for Acc). The finding
is reported at the *peak*: the first program point (`lifetimes` numbering, loop extension included)
where the bytes of the space's values live at once are largest — each buffer counted once, with the
extent its live values occupy — and names those values with their own sizes and buffers. When even the
peak fits (the footprint is over only because MemoryReuse left values that are never co-live on
separate buffers) the message says so, gives the footprint and the peak, and is reported at the
buffer whose address range first passes the capacity.
Orchestration functions hold no on-chip buffers and are left alone.

Per InCore scope (`incore_scopes`): PyPTO outlines each InCore scope of an Opaque / Orchestration function
into a function of its own, and allocates each from address 0. Here the scopes stay in one function, so
in a function with InCore scopes each buffer is placed at the lowest address where, in every scope it is
live in (by the `lifetimes` numbering; a buffer holding a tile defined in one scope and read in a later one
is in every scope between), the bytes its values occupy there are free of those of the buffers placed
before it (first fit; two scopes' buffers may share addresses), the buffers in more than one scope first
(largest first: one address serves all their scopes);
and each scope's footprint (a bump allocation of its buffers, in name order, each as large as the values
it holds there) is checked against the capacity on its own. The message of a footprint over capacity
names the scope by a line it holds. A function without InCore scopes (or of kind InCore / AIC / AIV) is
one scope: exactly the allocation above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pypto_verify.ir import (
    Assign, For, Function, FunctionKind, If, MemRef, MemSpace, Module, Span, TileType, Window,
    display_name, map_functions, walk_stmts, replace,
)
from pypto_verify.lowering.incore_scopes import ORCHESTRATION, has_orchestration_level
from pypto_verify.lowering.memory.buffer_packing import align, footprint
from pypto_verify.lowering.memory.lifetimes import analyze
from pypto_verify.lowering.memory.memrefs import Site, collect_sites, infer_env, memref_of_type, with_memrefs
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Note, Pass
from pypto_verify.rules import L0C_CAPACITY

HARDWARE_NAME = {
    MemSpace.Acc: "L0C", MemSpace.Mat: "L1", MemSpace.Left: "L0A", MemSpace.Right: "L0B",
    MemSpace.Vec: "UB", MemSpace.Bias: "BT",
}
"""Capacity text names the hardware buffer (STYLE.md §3: L0C and L1 appear only there)."""


def run(module: Module, options: LowerOptions) -> Module:
    return map_functions(module, lambda fn: allocate_memory_addr(fn, options))


@dataclass(frozen=True, slots=True)
class Placement:
    """One root's place in its space."""

    base: str
    space: MemSpace
    address: int
    size: int
    first: str
    """The first value (program order) living on it, for messages."""
    span: Span


def allocate_memory_addr(fn: Function, options: LowerOptions) -> Function:
    """*fn* with byte addresses as MemRef offsets; LoweringError PV008 when a space overflows."""
    if fn.kind is FunctionKind.ORCHESTRATION:
        return fn
    env = infer_env(fn)
    sites = collect_sites(fn)
    members: dict[str, list[tuple[str, MemRef]]] = {}
    spaces: dict[str, MemSpace] = {}
    for name in _program_order(fn):
        t = env.get(name)
        if not isinstance(t, TileType) or t.memref is None or t.space in (None, MemSpace.DDR):
            continue
        members.setdefault(t.memref.base, []).append((name, t.memref))
        spaces[t.memref.base] = t.space
    scopes = _scopes(fn, env, spaces, options) if has_orchestration_level(fn) else None
    changes: dict[str, MemRef] = {}
    for space in sorted(set(spaces.values()), key=lambda s: s.value):
        placements: list[Placement] = []
        bases = sorted(b for b, s in spaces.items() if s is space)
        if scopes is not None:  # the buffers crossing scopes first, largest first (first fit decreasing:
            # one address serves all their scopes), then each scope's own in name order
            largest = {b: max(max(m.size for _, m in members[b]), *scopes[b].values()) for b in bases}
            bases.sort(key=lambda b: (len(scopes[b]) == 1, -largest[b] if len(scopes[b]) > 1 else 0))
        for base in bases:
            size = max(m.size for _, m in members[base])
            first = members[base][0][0]
            site = sites.get(first)
            span = site.span if site is not None and site.span is not None else fn.span
            # a bump allocator over all the buffers in a function of one region; in an outlined one the
            # lowest address where the bytes this buffer's values occupy in each of its scopes are free
            address = (align(max((p.address + p.size for p in placements), default=0)) if scopes is None
                       else _first_fit(base, size, placements, scopes))
            placements.append(Placement(base, space, address, size, first, span))
            for name, m in members[base]:
                changes[name] = MemRef(m.base, address + m.offset, m.size, m.slots, m.slot, m.quoted)
        capacity = options.target.capacity.get(space, 0)
        if not capacity:
            continue
        if scopes is None:
            needed = align(max(p.address + p.size for p in placements))
            if needed > capacity:
                raise _overflow(fn, env, placements, needed, capacity, options, None)
            continue
        # each outlined InCore function places its own buffers from address 0 (PyPTO 34 per function),
        # each as large as the values it holds there
        for region in sorted({r for p in placements for r in scopes[p.base]}):
            mine = sorted((replace(p, size=scopes[p.base][region] or p.size) for p in placements
                           if region in scopes[p.base]), key=lambda p: p.base)
            needed = footprint([p.size for p in mine])
            if needed > capacity:
                raise _overflow(fn, env, mine, needed, capacity, options, region)
    return with_memrefs(fn, {n: m for n, m in changes.items() if memref_of_type(env[n]) != m}, env)


def _first_fit(base: str, size: int, placed: list[Placement], scopes: dict[str, dict[int, int]]) -> int:
    """The lowest aligned address for *base* (of *size* bytes) where, in each InCore scope it is live in, the
    bytes its values occupy there overlap none of the bytes the *placed* buffers' values occupy in that scope
    (buffers of different scopes are never live together, so they may share addresses)."""
    busy = [(p.address, p.address + (scopes[p.base][r] or p.size), r)
            for p in placed for r in scopes[p.base].keys() & scopes[base].keys()]
    need = {r: scopes[base][r] or size for r in scopes[base]}

    def free(at: int) -> bool:
        return all(at + need[r] <= lo or hi <= at for lo, hi, r in busy)

    return next(at for at in sorted({0, *(align(hi) for _, hi, _ in busy)}) if free(at))


def _program_order(fn: Function) -> list[str]:
    names = [p.name for p in fn.params]
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign):
            names.append(stmt.target.name)
        elif isinstance(stmt, (For, If)):
            names.extend(v.name for v in stmt.return_vars)
    return names


@dataclass(frozen=True, slots=True)
class _Peak:
    """The program point where a space's co-live bytes are largest, and the values live there."""

    span: Span
    bytes: int
    live: tuple[tuple[str, MemRef], ...]
    """(value, its MemRef) in program order."""
    lines: dict[str, tuple[int, int]]
    """value -> (line of its definition, line of its last use)."""


def _peak(fn: Function, env: dict, space: MemSpace, misses_iter_args: bool, region: int | None) -> _Peak | None:
    """The first point of *fn* (of its InCore scope *region*, when given) where the values of *space*
    live at once occupy the most bytes."""
    lifetimes = analyze(fn, misses_iter_args)
    values = []
    for name, (start, end) in lifetimes.liveness.items():
        t = env.get(name)
        if isinstance(t, TileType) and t.space is space and t.memref is not None:
            values.append((name, start, end, t.memref))
    if not values:
        return None
    best: tuple[int, int, list[tuple[str, MemRef]]] | None = None
    if region is None:
        points = sorted({start for _, start, _, _ in values})  # a maximum is reached at a definition
    else:  # or where the scope opens, with the values that cross into it
        points = [p for p, r in enumerate(lifetimes.regions) if r == region]
    for point in points:
        live = [(n, m) for n, s, e, m in values if s <= point <= e]
        extent: dict[str, int] = {}
        for _, m in live:
            extent[m.base] = max(extent.get(m.base, 0), m.offset + m.size)
        total = sum(extent.values())
        if best is None or total > best[1]:
            best = (point, total, live)
    if best is None:
        return None
    point, total, live = best
    spans = lifetimes.spans
    span = spans[point] if point < len(spans) else fn.span

    def line(at: int) -> int:
        return spans[min(at, len(spans) - 1)].line if spans else 0

    lines = {n: (line(lifetimes.liveness[n][0]), line(lifetimes.liveness[n][1])) for n, _ in live}
    return _Peak(span, total, tuple(live), lines)


def _overflow(fn: Function, env: dict, placements: list[Placement], needed: int, capacity: int,
              options: LowerOptions, region: int | None) -> LoweringError:
    space = placements[0].space
    hw = HARDWARE_NAME.get(space, space.value)
    target = options.target.name
    address = {p.base: p.address for p in placements}
    peak = _peak(fn, env, space, options.behaviours.misses_iter_args, region)
    if peak is not None and peak.bytes > capacity:
        by_base: dict[str, list[tuple[str, MemRef]]] = {}
        for name, m in peak.live:
            by_base.setdefault(m.base, []).append((name, m))
        listed = ", ".join(
            " + ".join(f"`{display_name(n)}` ({m.size} bytes)" for n, m in members) + f" on {base}"
            for base, members in by_base.items())
        return LoweringError(
            L0C_CAPACITY.id, peak.span,
            f"{hw} capacity: the {space.value} tiles live at line {peak.span.line} need {peak.bytes} bytes, "
            f"{target} has {capacity}: {listed}",
            # a window is a range of its buffer, as in every other finding and its notes (issue 16, item 11);
            # where the buffer sits in the space is the notes' "at address"
            windows=tuple(Window(m.base, m.offset, m.size) for _, m in peak.live),
            values=tuple(display_name(n) for n, _ in peak.live),
            notes=tuple(_live_note(sites, n, m, peak, hw, address.get(m.base, 0))
                        for sites in [collect_sites(fn)] for n, m in peak.live))
    listed = ", ".join(f"`{display_name(p.first)}` {p.base} ({p.size})" for p in placements)
    # the first buffer whose end passes the capacity is where the space runs out
    culprit = next((p for p in placements if p.address + p.size > capacity), placements[-1])
    at_most = (f"; at most {peak.bytes} bytes are live at once (line {peak.span.line}), but values that are "
               "never co-live were left on separate buffers") if peak is not None else ""
    return LoweringError(
        L0C_CAPACITY.id, culprit.span,
        f"{hw} capacity: the {space.value} buffers{_of_scope(fn, region, options)} need {needed} bytes, {target} "
        f"has {capacity}{at_most}: "
        f"{listed}",
        windows=tuple(Window(p.base, 0, p.size) for p in placements),
        values=tuple(display_name(p.first) for p in placements),
        notes=tuple(Note(p.span, f"`{display_name(p.first)}` {Window(p.base, 0, p.size)} ({p.size} bytes) at "
                                 f"{hw} address {p.address}")
                    for p in placements))


def _scopes(fn: Function, env: dict, spaces: dict[str, MemSpace], options: LowerOptions) -> dict[str, dict[int, int]]:
    """Each buffer of *fn* -> the InCore scopes (`incore_scopes` regions) in which one of its values is
    live -> the bytes of the buffer those values occupy there. A value defined in one scope and read in
    a later one is live in both and in every scope between (in PyPTO it goes through GM; here it stays
    on chip, so it must not share bytes with any of them); the orchestration level counts only for a
    value defined there. A buffer the lifetimes do not track is whole in every region."""
    lifetimes = analyze(fn, options.behaviours.misses_iter_args)
    regions = lifetimes.regions
    found: dict[str, dict[int, int]] = {}
    for name, (start, end) in lifetimes.liveness.items():
        t = env.get(name)
        if not (isinstance(t, TileType) and t.memref is not None and t.memref.base in spaces):
            continue
        live = set(regions[start:end + 1])
        if regions[start] != ORCHESTRATION:
            live.discard(ORCHESTRATION)
        extents = found.setdefault(t.memref.base, {})
        for region in live or {regions[start]}:
            extents[region] = max(extents.get(region, 0), t.memref.offset + t.memref.size)
    every = set(regions) | {ORCHESTRATION}
    return {base: found.get(base, dict.fromkeys(every, 0)) for base in spaces}


def _of_scope(fn: Function, region: int | None, options: LowerOptions) -> str:
    """` of the InCore scope at line L` for a region of an outlined function, else nothing."""
    if region is None:
        return ""
    if region == ORCHESTRATION:
        return " at orchestration level"
    lifetimes = analyze(fn, options.behaviours.misses_iter_args)
    first = lifetimes.regions.index(region)
    return f" of the InCore scope holding line {lifetimes.spans[first].line}"


def _live_note(sites: dict[str, Site], name: str, m: MemRef, peak: _Peak, hw: str, address: int) -> Note:
    site = sites.get(name)
    span = site.span if site is not None and site.span is not None else peak.span
    defined, last = peak.lines[name]
    return Note(span, f"`{display_name(name)}` {Window(m.base, m.offset, m.size)} ({m.size} bytes at {hw} address "
                      f"{address + m.offset}), live from line {defined} to line {last}")


PASS: Final = Pass("allocate-memory-addr", run, mirrors="PyPTO 34 AllocateMemoryAddr")
