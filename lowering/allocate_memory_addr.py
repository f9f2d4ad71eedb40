"""Give every on-chip buffer a byte address in its space, and reject a space that overflows.

Mirrors PyPTO 34 AllocateMemoryAddr (TARGET_FACTS.md, "The compiler passes" 7) with its default
allocator policy: per space, the roots still in use are taken in ascending order of their *name*
(a string sort: `mem_mat_10` before `mem_mat_7`, as real-ir 35 shows), each placed at the current
cursor, which then moves past it rounded up to 32 bytes (a bump allocator: MemoryReuse already
decided what shares). A root's size is its largest value's MemRef size; every MemRef on it gets
`offset = address + its offset in the root`. The `tile.alloc` statements are left as they are.
Requires: memory-reuse. Leaves: MemRef offsets that are byte addresses.

Rules: PV008 (l0c-capacity) when the space's footprint exceeds the target's capacity — for every
space, the message naming the space (L0C, L1, L0A, L0B, UB, BT), the bytes needed and available,
and the buffers (all of them are co-live as far as the allocator is concerned).
Orchestration functions hold no on-chip buffers and are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pypto_verify.ir import (
    Assign, For, Function, FunctionKind, If, MemRef, MemSpace, Module, Span, TileType, Window,
    display_name, map_functions, walk_stmts,
)
from pypto_verify.lowering.buffer_packing import align
from pypto_verify.lowering.memrefs import collect_sites, infer_env, with_memrefs
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
        spaces[t.memref.base] = t.space  # type: ignore[assignment]
    changes: dict[str, MemRef] = {}
    for space in sorted(set(spaces.values()), key=lambda s: s.value):
        placements = []
        cursor = 0
        for base in sorted(b for b, s in spaces.items() if s is space):
            size = max(m.size for _, m in members[base])
            first = members[base][0][0]
            site = sites.get(first)
            span = site.stmt.span if site is not None and site.stmt is not None else fn.span
            placements.append(Placement(base, space, cursor, size, first, span))
            for name, m in members[base]:
                changes[name] = MemRef(m.base, cursor + m.offset, m.size, m.slots, m.slot, m.quoted)
            cursor = align(cursor + size)
        capacity = options.target.capacity.get(space, 0)
        if capacity and cursor > capacity:
            raise _overflow(placements, cursor, capacity, options.target.name)
    return with_memrefs(fn, {n: m for n, m in changes.items() if env[n].memref != m}, env)  # type: ignore[union-attr]


def _program_order(fn: Function) -> list[str]:
    names = [p.name for p in fn.params]
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign):
            names.append(stmt.target.name)
        elif isinstance(stmt, (For, If)):
            names.extend(v.name for v in stmt.return_vars)
    return names


def _overflow(placements: list[Placement], needed: int, capacity: int, target: str) -> LoweringError:
    space = placements[0].space
    hw = HARDWARE_NAME.get(space, space.value)
    listed = ", ".join(f"`{display_name(p.first)}` {p.base} ({p.size})" for p in placements)
    # the first buffer whose end passes the capacity is where the space runs out
    culprit = next((p for p in placements if p.address + p.size > capacity), placements[-1])
    return LoweringError(
        L0C_CAPACITY.id, culprit.span,
        f"{hw} capacity: co-live {space.value} tiles need {needed} bytes, {target} has {capacity}: {listed}",
        windows=tuple(Window(p.base, p.address, p.size) for p in placements),
        values=tuple(display_name(p.first) for p in placements),
        notes=tuple(Note(p.span, f"`{display_name(p.first)}` {p.base} ({p.size} bytes) at {p.address}")
                    for p in placements))


PASS: Final = Pass("allocate-memory-addr", run, mirrors="PyPTO 34 AllocateMemoryAddr")
