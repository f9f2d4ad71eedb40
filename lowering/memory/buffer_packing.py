"""Which buffers may share one allocation: PyPTO MemoryReuse's first-fit-decreasing packer.

Owns the reuse decision (PyPTO IdentifyReuseOpportunities), per memory space: intervals sorted
largest first (ties: earliest definition), each joins the first buffer all of whose members it can
share with, else opens a new one. Two intervals can share when
- their lifetimes do not overlap (touching is fine: an op reads its inputs before it writes), or
  every overlapping pair of their values is in one phi family (mutually exclusive arms of one phi);
- neither one's producer forbids its output from aliasing an operand on the other's buffer
  (`NOT_INPLACE_SAFE` ops, e.g. `tile.move`);
- they are not concurrent pipeline clones: tiles of one pipeline group with stages in different
  residues mod F_g stay apart, F_g = min(stages, capacity // largest tile of the group) — lowered one
  group at a time (largest tile first, then lowest group id) while the space overflows, and when no
  group is left to lower the space is re-packed with the legacy rule (L0 spaces exempt, only load
  buffers kept per stage).
Input: `Lifetimes`, the target's capacities. Output: `reuse_map` (value -> the representative whose
buffer it takes). Used by memory-reuse.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from pypto_verify.ir import Call, MemSpace, TileType, Type, var_like
from pypto_verify.lowering.memory.lifetimes import Interval, Lifetimes
from pypto_verify.lowering.memory.memrefs import ALIGNMENT
from pypto_verify.lowering.memory.retarget import NOT_INPLACE_SAFE, operand_names
from pypto_verify.target import Target

L0_SPACES = frozenset({MemSpace.Left, MemSpace.Right, MemSpace.Acc, MemSpace.Bias})
MAX_SHED_REPACKS = 256
LONG_LIFETIME = 256
"""Program points beyond which a buffer member's lifetime is checked on its own (`_Buffer.long`)."""


def align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def footprint(slots: list[int]) -> int:
    """Bytes a bump allocator needs for buffers of these sizes, in order (PyPTO SpaceFootprint)."""
    cursor = 0
    for slot in slots:
        cursor = align(cursor + slot)
    return cursor


def identify_reuse(lt: Lifetimes, env: dict[str, Type], target: Target) -> dict[str, str]:
    """value -> representative: the buffers *lt*'s intervals are packed into, per space."""
    return _Packer(lt, env, target).run()


@dataclass
class _Packer:
    lt: Lifetimes
    env: dict[str, Type]
    target: Target

    def __post_init__(self) -> None:
        self.reuse_map: dict[str, str] = {}
        self.base_remap: dict[str, str] = {}
        self.forbid = self._forbidden_operands()
        self.force_legacy = False
        self.depth: dict[tuple[MemSpace, int], int] = {}
        self.slot: dict[tuple[MemSpace, int], int] = {}
        self.ordinal: dict[tuple[MemSpace, int], dict[int, int]] = {}
        self.gated: set[MemSpace] = set()
        stages: dict[tuple[MemSpace, int], set[int]] = {}
        for iv in self.lt.intervals:
            for group, stage in iv.membership:
                key = (iv.space, group)
                self.slot[key] = max(self.slot.get(key, 0), iv.size)
                stages.setdefault(key, set()).add(stage)
        for key, slot in self.slot.items():
            cap = self.target.capacity.get(key[0], 0)
            f = 1
            if cap and slot:
                f = max(1, min(len(stages[key]), cap // slot))
                self.gated.add(key[0])
            self.depth[key] = f
            self.ordinal[key] = {s: i for i, s in enumerate(sorted(stages[key]))}

    # ------------------------------------------------------------------------------------------ gates

    def _forbidden_operands(self) -> dict[str, list[str]]:
        rep_of = {n: members[0] for n, members in self.lt.groups.items()}
        out: dict[str, list[str]] = {}
        for name, stmt in self.lt.defs.items():
            call = stmt.value
            if not isinstance(call, Call):
                continue
            forbidden = []
            if call.op in NOT_INPLACE_SAFE:
                forbidden = operand_names(call)
            if call.op == "tile.cast" and call.args and (source := var_like(call.args[0])) is not None:
                src, dst = self.env.get(source.name), self.env.get(name)
                if isinstance(src, TileType) and isinstance(dst, TileType) and dst.dtype.bytes > src.dtype.bytes:
                    forbidden.append(source.name)
            if forbidden:
                out.setdefault(rep_of.get(name, name), []).extend(forbidden)
        return out

    def base_of(self, name: str) -> str | None:
        t = self.env.get(name)
        return t.memref.base if isinstance(t, TileType) and t.memref is not None else None

    def physical_base(self, name: str) -> str | None:
        root = name
        while root in self.reuse_map:
            root = self.reuse_map[root]
        b = self.base_of(root)
        while b is not None and b in self.base_remap and self.base_remap[b] != b:
            b = self.base_remap[b]
        return b

    def members(self, iv: Interval) -> list[str]:
        return self.lt.groups.get(iv.rep, [iv.rep])

    def same_family(self, x: str, y: str) -> bool:
        fx, fy = self.lt.families.get(x), self.lt.families.get(y)
        return bool(fx and fy and fx & fy)

    def var_overlap(self, x: str, y: str) -> bool:
        lx, ly = self.lt.liveness.get(x), self.lt.liveness.get(y)
        if lx is None or ly is None:
            return True
        return not (lx[1] <= ly[0] or ly[1] <= lx[0])

    def overlap_blocks(self, a: Interval, b: Interval) -> bool:
        family_pair = False
        for x in self.members(a):
            for y in self.members(b):
                if self.same_family(x, y):
                    family_pair = True
                elif self.var_overlap(x, y):
                    return True
        return not family_pair

    # ------------------------------------------------------------------------------------------ packing

    def pack(self, order: list[int]) -> list[list[int]]:
        """First fit: each interval joins the first buffer all of whose members it can share with."""
        ivs = self.lt.intervals
        buffers: list[_Buffer] = []
        for idx in order:
            cand = ivs[idx]
            for buf in buffers:
                if self.fits(cand, buf):
                    buf.add(self, idx)
                    break
            else:
                buf = _Buffer()
                buf.add(self, idx)
                buffers.append(buf)
        return [buf.members for buf in buffers]

    def fits(self, cand: Interval, buf: _Buffer) -> bool:
        """Whether *cand* can share *buf* with every member. A member refuses when
        - their lifetimes overlap and `overlap_blocks` says so: those members are found by start, within
          the buffer's longest lifetime, and the long-lived ones are asked apart;
        - they are concurrent pipeline clones (`pipeline_conflict`, on the stage classes the buffer keeps);
        - one's producer must not write over the other's physical buffer (`NOT_INPLACE_SAFE`, a widening
          cast), on the bases the buffer keeps: its members' and their forbidden operands'.
        Packing a long unrolled body stays near linear."""
        ivs = self.lt.intervals
        lo = bisect.bisect_left(buf.starts, cand.start - buf.longest)
        hi = bisect.bisect_left(buf.starts, cand.end)
        if any(ivs[m].end > cand.start and self.overlap_blocks(cand, ivs[m]) for m in buf.by_start[lo:hi]):
            return False
        if any(ivs[m].start < cand.end and ivs[m].end > cand.start and self.overlap_blocks(cand, ivs[m])
               for m in buf.long):
            return False
        if cand.membership and buf.classes and self.pipeline_conflict(cand, buf):
            return False
        if buf.forbidden and self.physical_base(cand.rep) in buf.forbidden:
            return False
        operands = self.forbid.get(cand.rep)
        return not operands or not any(self.physical_base(o) in buf.bases for o in operands)

    def stage_class(self, space: MemSpace, group: int, stage: int) -> int:
        """What tells two clones of one pipeline group apart: the stage's ordinal mod the group's depth
        when the space is gated, else the stage itself."""
        key = (space, group)
        if not self.force_legacy and space in self.gated:
            return self.ordinal.get(key, {}).get(stage, stage) % max(1, self.depth.get(key, 1))
        return stage

    def pipeline_conflict(self, cand: Interval, buf: _Buffer) -> bool:
        """Whether *cand* is a concurrent clone of a member: in one pipeline group, another stage class
        (gated spaces: only F_g of a group's stages are live at once); ungated, other stages conflict only
        when one of the two is a load, and never in an L0 space."""
        gated = not self.force_legacy and cand.space in self.gated
        if not gated and cand.space in L0_SPACES:
            return False
        held = buf.classes if gated or cand.is_load else buf.load_classes
        for group, stage in cand.membership:
            others = held.get(group)
            if others and (len(others) > 1 or self.stage_class(cand.space, group, stage) not in others):
                return True
        return False

    def run(self) -> dict[str, str]:
        ivs = self.lt.intervals
        spaces: dict[MemSpace, list[int]] = {}
        for i, iv in enumerate(ivs):
            spaces.setdefault(iv.space, []).append(i)
        for space, indices in spaces.items():
            order = sorted(indices, key=lambda i: (-ivs[i].size, ivs[i].start, i))
            buffers = self.pack(order)
            cap = self.target.capacity.get(space, 0)
            repacks = 0
            while cap and self._footprint(buffers) > cap:
                repacks += 1
                candidates = [(-align(self.slot[k]), k[1]) for k, f in self.depth.items()
                              if k[0] is space and f > 1] if repacks <= MAX_SHED_REPACKS else []
                if not candidates:
                    self.force_legacy = True
                    buffers = self.pack(order)
                    self.force_legacy = False
                    break
                _, group = min(candidates)
                self.depth[(space, group)] -= 1
                buffers = self.pack(order)
            for buf in buffers:
                rep = ivs[buf[0]].rep
                for m in buf[1:]:
                    cand = ivs[m].rep
                    self.reuse_map[cand] = rep
                    cb, rb = self.base_of(cand), self.physical_base(rep)
                    if cb is not None and rb is not None and cb != rb:
                        self.base_remap[cb] = rb
        return self.reuse_map

    def _footprint(self, buffers: list[list[int]]) -> int:
        return footprint([max(self.lt.intervals[i].size for i in buf) for buf in buffers])


@dataclass
class _Buffer:
    """One buffer being packed: its members in joining order, and the indexes `_Packer.fits` asks."""

    members: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    """The members' starts, sorted; `by_start` holds the members in that order."""
    by_start: list[int] = field(default_factory=list)
    longest: int = 0
    """The longest lifetime (end - start) among the members in `by_start`."""
    long: list[int] = field(default_factory=list)
    """Members living longer than `LONG_LIFETIME` points, asked one by one (one of them in `by_start`
    would widen every query to the whole buffer)."""
    classes: dict[int, set[int]] = field(default_factory=dict)
    """Pipeline group -> the stage classes (`_Packer.stage_class`) of the members in it."""
    load_classes: dict[int, set[int]] = field(default_factory=dict)
    """The same for the members that are loads."""
    forbidden: set[str] = field(default_factory=set)
    """The physical bases of the operands the members' producers must not write over."""
    bases: set[str] = field(default_factory=set)
    """The members' physical bases."""

    def add(self, packer: _Packer, idx: int) -> None:
        iv = packer.lt.intervals[idx]
        self.members.append(idx)
        if iv.end - iv.start > LONG_LIFETIME:
            self.long.append(idx)
        else:
            at = bisect.bisect_right(self.starts, iv.start)
            self.starts.insert(at, iv.start)
            self.by_start.insert(at, idx)
            self.longest = max(self.longest, iv.end - iv.start)
        for group, stage in iv.membership:
            c = packer.stage_class(iv.space, group, stage)
            self.classes.setdefault(group, set()).add(c)
            if iv.is_load:
                self.load_classes.setdefault(group, set()).add(c)
        for operand in packer.forbid.get(iv.rep, ()):
            base = packer.physical_base(operand)
            if base is not None:
                self.forbidden.add(base)
        base = packer.physical_base(iv.rep)
        if base is not None:
            self.bases.add(base)
