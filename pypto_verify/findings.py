"""Findings: the Datalog output relations joined back to names, windows and source lines.

Owns: `Finding` and `Note` (STYLE.md §9), and `datalog_findings(relations, facts)` which turns the rows
of `pv001` ... `pv010` into findings whose messages name both windows (`mem_acc_4[0:16384]`), the values
and the producing ops with their source lines. Input: the engine's output relations and the `FactSet`
(with its side table). Messages are one sentence, lowercase, no full stop; values in backticks.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the records are read on a warm-cache run, which never exports facts
    from pypto_verify.facts import FactSet, KernelTable
from pypto_verify.source import author_window, in_source, spelled_op
from pypto_verify.span import Span, display_name
from pypto_verify import rules
from pypto_verify.rules import RULES, Rule, Severity

Row = tuple


@dataclass(frozen=True, slots=True)
class Note:
    """A secondary location: the producer, the other window, a counterexample."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One reported problem (or, for PV010, one piece of information)."""

    rule: Rule
    span: Span
    message: str
    kernel: str
    """`Program.function`, or the function name for free functions."""
    function: str
    notes: tuple[Note, ...] = ()
    windows: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    producers: tuple[str, ...] = ()
    counterexample: dict | None = None

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    def sort_key(self) -> tuple:
        return (self.span.path, self.span.line, self.span.col, self.rule.id, self.message)

    def to_json(self) -> dict:
        return {
            "rule": self.rule.id, "name": self.rule.name, "severity": self.rule.severity.value,
            "path": self.span.path, "line": self.span.line, "col": self.span.col,
            "kernel": self.kernel, "function": self.function, "message": self.message,
            "windows": list(self.windows), "values": list(self.values), "producers": list(self.producers),
            "counterexample": self.counterexample,
            "notes": [{"path": n.span.path, "line": n.span.line, "col": n.span.col, "message": n.message}
                      for n in self.notes],
        }

    def render(self) -> str:
        """`path:line:col: PV004 clobbered-read: <message>` then indented notes."""
        lines = [f"{self.span}: {self.rule.id} {self.rule.name}: {self.message}"]
        lines += [f"  {n.span}: note: {n.message}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class _Kernel:
    """Indexes over one kernel's facts, for building messages."""

    table: KernelTable
    kernel_name: str
    def_point: dict[int, int] = field(default_factory=dict)
    defined_at: dict[int, int] = field(default_factory=dict)
    """assign point -> the value it defines (a store's result is its destination tensor)"""
    op_at: dict[int, str] = field(default_factory=dict)
    window_of: dict[int, int] = field(default_factory=dict)

    def span(self, p: int) -> Span:
        line, col = self.table.points.get(p, (0, 0))
        return Span(self.table.path, line, col)

    def name(self, v: int) -> str:
        return display_name(self.table.value_name(v))

    def win(self, w: int) -> str:
        """The window as the IR names it (`mem_acc_8[0:4096]`): the JSON `windows`."""
        return self.table.windows.get(w, f"w{w}")

    def bytes(self, w: int) -> str:
        """The window in the author's vocabulary: as the IR names it when the source does (a Form 3 dump
        declares `mem_acc_8`), else the byte range first and the generated buffer name after it
        (`bytes [0, 4096) of mem_acc_8`)."""
        return author_window(self.win(w), self.table.path)

    def op(self, p: int, default: str = "op") -> str:
        """The op at point p as the source spells it (`pl.matmul_acc`; `pl.tile.matmul_acc` in Form 3)."""
        op = self.op_at.get(p)
        return spelled_op(op, self.span(p)) if op is not None else default

    def by(self, p: int) -> str:
        """` by pl.matmul` for the op at point p, nothing when no op defines there (a phi, a loop)."""
        return f" by {self.op(p)}" if p in self.op_at else ""

    def producer(self, p: int) -> str:
        """`tile.matmul (line 37)`."""
        return f"{self.op_at.get(p, 'op')} (line {self.span(p).line})"

    def defined(self, v: int) -> str:
        """`` `acc_t` (line 37) `` or just the name when it has no line."""
        p = self.def_point.get(v)
        line = self.span(p).line if p is not None else 0
        return f"`{self.name(v)}` (line {line})" if line else f"`{self.name(v)}`"


def _index(facts: FactSet, kernel_names: dict[int, str]) -> dict[int, _Kernel]:
    out = {k: _Kernel(t, kernel_names.get(k, t.function)) for k, t in facts.kernels.items()}
    for k, p, v in facts.rows["defines"]:
        out[k].def_point.setdefault(v, p)
        out[k].defined_at.setdefault(p, v)
    for k, p, name in facts.rows["op"]:
        out[k].op_at[p] = name
    for k, v, w in facts.rows["window"]:
        out[k].window_of[v] = w
    return out


class _Grouped:
    """The derived relations, each row reachable by a prefix of its columns: `rows(name, k, p)` is every row
    of `name` whose first columns are `(k, p)`, sorted. Each (relation, prefix length) is grouped once, so
    a builder that looks up the rows related to its own is linear over a run, not quadratic."""

    def __init__(self, relations: dict[str, list[Row]]) -> None:
        self.relations = relations
        self._groups: dict[tuple[str, int], dict[tuple, list[Row]]] = {}

    def rows(self, name: str, *prefix: int) -> list[Row]:
        key = (name, len(prefix))
        groups = self._groups.get(key)
        if groups is None:
            groups = {}
            for row in self.relations.get(name, ()):
                groups.setdefault(tuple(row[:len(prefix)]), []).append(row)
            for members in groups.values():
                members.sort()
            self._groups[key] = groups
        return groups.get(tuple(prefix), [])


def datalog_findings(relations: dict[str, list[Row]], facts: FactSet,
                     kernel_names: dict[int, str] | None = None, info: bool = True) -> list[Finding]:
    """Findings for every row of the rule relations, deduplicated and sorted; the information ones (PV010)
    only when *info* (a report shows none of them: only `explain` asks)."""
    index = _index(facts, kernel_names or {})
    grouped = _Grouped(relations)
    found: dict[tuple, Finding] = {}
    for rule_id, build in _BUILDERS.items():
        if not info and RULES[rule_id].severity is Severity.INFO:
            continue
        relation = RULES[rule_id].relation
        for row in relations.get(relation, ()):
            kern = index[row[0]]
            finding = build(kern, row[1:], grouped)
            if finding is not None:
                found.setdefault((finding.rule.id, finding.span, finding.message), finding)
    return sorted(found.values(), key=Finding.sort_key)


def _finding(rule_id: str, kern: _Kernel, point: int, message: str, **extra) -> Finding:
    return Finding(RULES[rule_id], kern.span(point), message, kern.kernel_name, kern.table.function, **extra)


def _pv001(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    s, rv, arm, v, wv, wrv = row
    arm_name = "then" if arm == 1 else "else"
    p = kern.def_point.get(v, s)
    message = (f"Acc phi `{kern.name(rv)}` is on {kern.bytes(wrv)} but its {arm_name} arm yields {kern.defined(v)} "
               f"on {kern.bytes(wv)}; no Acc->Acc copy exists")
    notes = (Note(kern.span(p), f"`{kern.name(v)}` written here by {kern.op(p, 'its producer')}"),)
    return _finding(rules.DIVERGENT_ACC_PHI.id, kern, s, message, notes=notes, windows=(kern.win(wrv), kern.win(wv)),
                    values=(kern.name(rv), kern.name(v)), producers=_producers_of(kern, rel, s, rv))


def _producers_of(kern: _Kernel, rel: _Grouped, s: int, v: int) -> tuple[str, ...]:
    return tuple(kern.producer(r[2]) for r in rel.rows("reaching_producer", kern.table.kernel, v))


_ROLE = {0: "init", 1: "yield", 2: "return var"}


def _pv002(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    s, ia, wia, v, role, wv = row
    message = (f"loop-carried accumulator `{kern.name(ia)}` is on {kern.bytes(wia)} but its {_ROLE[role]} "
               f"{kern.defined(v)} is on {kern.bytes(wv)}")
    p = kern.def_point.get(v, s)
    # a note at the finding's own line would only repeat it (issue 16, item 11)
    notes = () if kern.span(p).line == kern.span(s).line else (
        Note(kern.span(p), f"`{kern.name(v)}` defined here{kern.by(p)}"),)
    return _finding(rules.DIVERGENT_ACC_CARRY.id, kern, s, message, notes=notes,
                    windows=(kern.win(wia), kern.win(wv)), values=(kern.name(ia), kern.name(v)))


def _pv003(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, a, wa, b, wb = row
    message = (f"`{kern.name(b)}` = {kern.op(p)}({kern.name(a)}, ...) writes {kern.bytes(wb)} but accumulates in "
               f"place over {kern.defined(a)} on {kern.bytes(wa)}")
    return _finding(rules.INPLACE_ALIAS.id, kern, p, message, windows=(kern.win(wa), kern.win(wb)),
                    values=(kern.name(a), kern.name(b)), producers=(kern.producer(p),))


def _pv004(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, v = row
    writers = sorted((r[3], r[4]) for r in rel.rows("pv004_clobber_writer", kern.table.kernel, p, v))
    w = kern.win(kern.window_of.get(v, 0))
    if writers:
        q, t = writers[0]
        message = (f"`{kern.name(v)}` is read from {kern.bytes(kern.window_of.get(v, 0))} after {kern.defined(t)} "
                   f"overwrote it")
        if not in_source(_base(w), kern.table.path):
            message += f" (`{kern.name(v)}` and `{kern.name(t)}` share that buffer)"
        notes: tuple[Note, ...] = (Note(kern.span(q), f"`{kern.name(t)}` written here by {kern.op(q)}"),)
        first = kern.def_point.get(v)
        if first is not None and kern.span(first).line and first != q:
            # the write → overwrite → read path (SARIF codeFlows): where the clobbered value was written
            notes = (Note(kern.span(first), f"`{kern.name(v)}` written here by {kern.op(first)}"), *notes)
        wt = kern.win(kern.window_of.get(t, 0))
        return _finding(rules.CLOBBERED_READ.id, kern, p, message, notes=notes, windows=(w, wt),
                        values=(kern.name(v), kern.name(t)), producers=(kern.producer(q),))
    return _finding(rules.CLOBBERED_READ.id, kern, p,
                    f"`{kern.name(v)}` is read from {kern.bytes(kern.window_of.get(v, 0))} after another value "
                    f"overwrote it",
                    windows=(w,), values=(kern.name(v),))


def _pv005(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, a, wa, b, wb = row
    message = (f"`{kern.name(b)}` copies Acc value `{kern.name(a)}` from {kern.bytes(wa)} to {kern.bytes(wb)}; "
               f"no L0C->L0C path exists")
    return _finding(rules.ACC_TO_ACC_MOVE.id, kern, p, message, windows=(kern.win(wa), kern.win(wb)),
                    values=(kern.name(a), kern.name(b)))


def _pv006(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, v, pos = row
    message = (f"{kern.op(p, 'this statement')} reads Acc value {kern.defined(v)} as operand {pos}; only matmul_acc "
               f"and the FIXPIPE drain read L0C")
    return _finding(rules.ILLEGAL_ACC_READER.id, kern, p, message, windows=(kern.win(kern.window_of.get(v, 0)),),
                    values=(kern.name(v),))


# How each FIXPIPE drain reads its accumulator out, for PV007's message on a drain.
_DRAIN_VERB = {"tile.store": "stored to", "tile.assemble": "assembled into", "tile.move": "moved to",
               "tile.aiv_shard": "sent across the C->V edge as", "tensor.aiv_shard": "sent across the C->V edge as"}


def _pv007(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, v, w = row
    op = kern.op_at.get(p, "tile.matmul_acc")
    if op in _DRAIN_VERB:
        return _pv007_drain(kern, p, v, w, op, rel)
    message = (f"`{kern.name(v)}` = {kern.op(p, op)} accumulates into {kern.bytes(w)} before "
               f"any matmul or init_cond initialised it")
    return _finding(rules.UNINITIALISED_ACCUMULATE.id, kern, p, message, windows=(kern.win(w),), values=(kern.name(v),),
                    producers=(kern.producer(p),))


def _created(kern: _Kernel, c: int) -> str:
    v = kern.defined_at.get(c)
    return f"`{kern.name(v)}`" if v is not None else "the accumulator"


def _pv007_drain(kern: _Kernel, p: int, v: int, w: int, op: str, rel: _Grouped) -> Finding:
    """The drain at p reads the undefined contents of a `tile.create` (e.g. out of a K loop that never ran)."""
    k = kern.table.kernel
    target = kern.defined_at.get(p)
    into = f" `{kern.name(target)}`" if target is not None else ""
    creates = sorted(r[2] for r in rel.rows("reaching_producer", k, v) if kern.op_at.get(r[2]) == "tile.create")
    loops = sorted(r[2] for r in rel.rows("pv007_skipped_loop", k, p))
    spoken = kern.bytes(w)
    spoken = spoken if spoken == kern.win(w) else f"({spoken})"
    message = f"`{kern.name(v)}` is {_DRAIN_VERB[op]}{into} but no MAD initialised its L0C window {spoken}"
    if loops:
        runs = ", ".join(f"line {kern.span(s).line}" for s in loops)
        message += f": the loop at {runs} runs 0 times" if len(loops) == 1 else f": the loops at {runs} run 0 times"
    notes = tuple(Note(kern.span(c), f"{_created(kern, c)} declared here by {kern.op(c, 'tile.create')} "
                                     "(no instruction writes L0C)")
                  for c in creates[:1])
    notes += tuple(Note(kern.span(s), "this loop's bounds are constants and it runs 0 times") for s in loops)
    return _finding(rules.UNINITIALISED_ACCUMULATE.id, kern, p, message, notes=notes, windows=(kern.win(w),),
                    values=(kern.name(v),), producers=tuple(kern.producer(c) for c in creates))


def _pv008(kern: _Kernel, row: Row, rel: _Grouped) -> Finding | None:
    p, n, cap = row
    rows = rel.rows("pv008_l0c_capacity", kern.table.kernel)
    if rows and rows[0][1] != p:
        return None  # one finding per kernel: at the first point over capacity
    message = f"co-live Acc buffers need {n} bytes at this point, L0C has {cap}"
    return _finding(rules.L0C_CAPACITY.id, kern, p, message)


def _pv009(kern: _Kernel, row: Row, rel: _Grouped) -> Finding | None:
    r, w, n = row
    windows = sorted(x[2] for x in rel.rows("pv009_fragmented_chain", kern.table.kernel, r))
    if windows and windows[0] != w:
        return None  # one finding per chain
    p = kern.def_point.get(r, 0)
    names = ", ".join(kern.bytes(x) for x in windows)
    message = f"one accumulator chain (from {kern.defined(r)}) spans {n} Acc windows: {names}"
    return _finding(rules.FRAGMENTED_CHAIN.id, kern, p, message, windows=tuple(kern.win(x) for x in windows),
                    values=(kern.name(r),), notes=_chain_notes(kern, rel, r, p, windows))


def _chain_notes(kern: _Kernel, rel: _Grouped, r: int, p: int, windows: list[int]) -> tuple[Note, ...]:
    """Per window of a fragmented chain, the chain's first value written on it (the finding's own
    window and line excepted): where the chain moves to another buffer."""
    members = [row[1] for row in rel.rows("chain_root", kern.table.kernel) if row[2] == r]
    notes = []
    for w in windows:
        on = sorted((kern.def_point[v], v) for v in members if kern.window_of.get(v) == w and v in kern.def_point)
        if not on or on[0][0] == p or kern.window_of.get(r) == w:
            continue
        q, v = on[0]
        notes.append(Note(kern.span(q), f"`{kern.name(v)}` is on {kern.bytes(w)}, defined here{kern.by(q)}"))
    return tuple(notes)


def _pv010(kern: _Kernel, row: Row, rel: _Grouped) -> Finding | None:
    s, v, w, p, wp = row
    rows = rel.rows("pv010_acc_phi", kern.table.kernel, s, v)
    if rows and rows[0][4] != p:
        return None  # one info finding per phi / carry, listing all producers
    producers = tuple(f"{kern.producer(x[4])} on {kern.win(x[5])}" for x in rows)
    spoken = "; ".join(f"{kern.op(x[4])} (line {kern.span(x[4]).line}) on {kern.bytes(x[5])}" for x in rows)
    message = f"`{kern.name(v)}` on {kern.bytes(w)} is reached by " + spoken
    return _finding(rules.ACC_PHI.id, kern, s, message, windows=(kern.win(w),), values=(kern.name(v),), producers=producers)


def _pv011(kern: _Kernel, row: Row, rel: _Grouped) -> Finding:
    p, v = row
    message = (f"`{kern.name(v)}` = {kern.op(p, 'this statement')} writes the bias table but no matmul_bias reads "
               f"it: the bias is never added to an accumulator")
    return _finding(rules.UNUSED_BIAS.id, kern, p, message, values=(kern.name(v),), producers=(kern.producer(p),))


def _base(window: str) -> str:
    """`mem_acc_8` of `mem_acc_8[0:4096]`."""
    return window.split("[", 1)[0]


_BUILDERS = {
    rules.DIVERGENT_ACC_PHI.id: _pv001, rules.DIVERGENT_ACC_CARRY.id: _pv002, rules.INPLACE_ALIAS.id: _pv003,
    rules.CLOBBERED_READ.id: _pv004, rules.ACC_TO_ACC_MOVE.id: _pv005, rules.ILLEGAL_ACC_READER.id: _pv006,
    rules.UNINITIALISED_ACCUMULATE.id: _pv007, rules.L0C_CAPACITY.id: _pv008, rules.FRAGMENTED_CHAIN.id: _pv009,
    rules.ACC_PHI.id: _pv010, rules.UNUSED_BIAS.id: _pv011,
}


GENERATED = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\[\d+:\d+\]|\bmem_[a-z0-9]+_\d+\b|\(line \d+\)|\blines? \d+\b")
"""What a message holds that moves when unrelated code changes: windows (`mem_acc_8[0:4096]`, offsets
included), the compiler's buffer names (`mem_acc_8`) and line numbers."""


def fingerprint(finding: Finding) -> str:
    """Stable across line moves and unrelated edits: rule, kernel, the producing ops and the message without
    line numbers, windows or the compiler's buffer names (`GENERATED`) (SARIF `partialFingerprints`,
    GitLab's `fingerprint`)."""
    def stable(text: str) -> str:
        return " ".join(GENERATED.sub("", text).split())

    text = "\0".join((finding.rule.id, finding.kernel, ",".join(stable(p) for p in finding.producers),
                      stable(finding.message)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]
