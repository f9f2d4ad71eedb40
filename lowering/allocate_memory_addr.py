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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pypto_verify.ir import (
    Assign, For, Function, FunctionKind, If, MemRef, MemSpace, Module, Span, TileType, Window,
    display_name, map_functions, walk_stmts,
)
from pypto_verify.lowering.memory.buffer_packing import align
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
    changes: dict[str, MemRef] = {}
    for space in sorted(set(spaces.values()), key=lambda s: s.value):
        placements = []
        cursor = 0
        for base in sorted(b for b, s in spaces.items() if s is space):
            size = max(m.size for _, m in members[base])
            first = members[base][0][0]
            site = sites.get(first)
            span = site.span if site is not None and site.span is not None else fn.span
            placements.append(Placement(base, space, cursor, size, first, span))
            for name, m in members[base]:
                changes[name] = MemRef(m.base, cursor + m.offset, m.size, m.slots, m.slot, m.quoted)
            cursor = align(cursor + size)
        capacity = options.target.capacity.get(space, 0)
        if capacity and cursor > capacity:
            raise _overflow(fn, env, placements, cursor, capacity, options)
    return with_memrefs(fn, {n: m for n, m in changes.items() if memref_of_type(env[n]) != m}, env)


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


def _peak(fn: Function, env: dict, space: MemSpace, misses_iter_args: bool) -> _Peak | None:
    """The first point of *fn* where the values of *space* live at once occupy the most bytes."""
    lifetimes = analyze(fn, misses_iter_args)
    values = []
    for name, (start, end) in lifetimes.liveness.items():
        t = env.get(name)
        if isinstance(t, TileType) and t.space is space and t.memref is not None:
            values.append((name, start, end, t.memref))
    if not values:
        return None
    best: tuple[int, int, list[tuple[str, MemRef]]] | None = None
    for point in sorted({start for _, start, _, _ in values}):  # a maximum is reached at a definition
        live = [(n, m) for n, s, e, m in values if s <= point <= e]
        extent: dict[str, int] = {}
        for _, m in live:
            extent[m.base] = max(extent.get(m.base, 0), m.offset + m.size)
        total = sum(extent.values())
        if best is None or total > best[1]:
            best = (point, total, live)
    assert best is not None
    point, total, live = best
    spans = lifetimes.spans
    span = spans[point] if point < len(spans) else fn.span

    def line(at: int) -> int:
        return spans[min(at, len(spans) - 1)].line if spans else 0

    lines = {n: (line(lifetimes.liveness[n][0]), line(lifetimes.liveness[n][1])) for n, _ in live}
    return _Peak(span, total, tuple(live), lines)


def _overflow(fn: Function, env: dict, placements: list[Placement], needed: int, capacity: int,
              options: LowerOptions) -> LoweringError:
    space = placements[0].space
    hw = HARDWARE_NAME.get(space, space.value)
    target = options.target.name
    address = {p.base: p.address for p in placements}
    peak = _peak(fn, env, space, options.behaviours.misses_iter_args)
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
        f"{hw} capacity: the {space.value} buffers need {needed} bytes, {target} has {capacity}{at_most}: "
        f"{listed}",
        windows=tuple(Window(p.base, 0, p.size) for p in placements),
        values=tuple(display_name(p.first) for p in placements),
        notes=tuple(Note(p.span, f"`{display_name(p.first)}` {Window(p.base, 0, p.size)} ({p.size} bytes) at "
                                 f"{hw} address {p.address}")
                    for p in placements))


def _live_note(sites: dict[str, Site], name: str, m: MemRef, peak: _Peak, hw: str, address: int) -> Note:
    site = sites.get(name)
    span = site.span if site is not None and site.span is not None else peak.span
    defined, last = peak.lines[name]
    return Note(span, f"`{display_name(name)}` {Window(m.base, m.offset, m.size)} ({m.size} bytes at {hw} address "
                      f"{address + m.offset}), live from line {defined} to line {last}")


PASS: Final = Pass("allocate-memory-addr", run, mirrors="PyPTO 34 AllocateMemoryAddr")
