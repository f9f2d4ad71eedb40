"""`fix`: rewrite hand-written peels into the predicated `matmul_acc(..., init_cond=...)` form, and prove
each rewrite before making it.

Owns `fix_file(path, options)`: the peels `codemod.find_peels` finds, each rewritten only when the
rewritten file is proved to mean what the original meant:

1. **checked**: the rewritten text (read as the same path, so its sibling modules resolve) goes through
   the chain's read, lower, facts, Datalog and Z3 stages; a kernel it touches must have no finding at all
   (suppressions applied to the rewritten text, so a moved `ignore[...]` that no longer matches is a PV900);
2. **equal to the original**: PV101 (predication ≡ phi) and PV105 (reduction equivalence) pair the
   *original* kernel, as the source side, with the *rewritten* kernel after lowering, as the lowered side —
   `smt.prove_module(original, rewritten_lowered)` — every obligation of the rewritten accumulators
   proved. Z3 pairs the two by the source spans of their MADs (`smt.sites.match_sites`), so the
   rewritten kernel's spans are first mapped back to the original text (`codemod.LineMap`): the predicated
   MAD carries the span of the `matmul_acc` it replaces;
3. **simulated**: the original kernel's PTO and the rewritten kernel's PTO are each simulated against the
   reference of the *original* kernel and both must match.

All rewrites of a file are proved together (one chain run); when that fails, each is proved alone and
only the ones that prove are made (then proved together once more). A rewrite that does not prove is
not made, and its reason is returned. Nothing is written here: `cli/fix_cmd.py` prints the diff or writes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pypto_verify import codemod, frontend, rules
from pypto_verify.census import find_sites
from pypto_verify.codemod import LineMap, Peel
from pypto_verify.findings import Finding
from pypto_verify.ir import Function, Module
from pypto_verify.run.records import Options
from pypto_verify.span import Span

if TYPE_CHECKING:
    from pypto_verify.run.chain import FileWork, KernelWork

PROVING_RULES = (rules.PREDICATION_IS_PHI.id, rules.REDUCTION_EQUIVALENCE.id)


@dataclass(frozen=True)
class Rewrite:
    """One peel and what became of it."""

    peel: Peel
    made: bool
    reason: str = ""
    """Why it was not made (a syntactic reason from `codemod`, or the proof that failed)."""
    proved: tuple[str, ...] = ()
    """What was proved of it: `PV101 proved`, `simulated: match`, ..."""


@dataclass(frozen=True)
class FixResult:
    """A file's peels, and its text before and after the rewrites that were made."""

    path: str
    original: str
    text: str
    rewrites: tuple[Rewrite, ...]

    @property
    def changed(self) -> bool:
        return self.text != self.original


@dataclass(frozen=True)
class _Attempt:
    """One proof of a set of rewrites: per peel the reason it failed (empty: proved) and the evidence."""

    reasons: dict[tuple[int, int], str]
    evidence: dict[tuple[int, int], tuple[str, ...]]

    def ok(self) -> bool:
        return not any(self.reasons.values())


def _key(peel: Peel) -> tuple[int, int]:
    return (peel.line, peel.col)


def fix_file(path: str, options: Options) -> FixResult:
    """Every peel of the file at *path*, each rewritten where that is proved (module docstring)."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        peels = codemod.find_peels(text)
    except SyntaxError as error:
        raise ValueError(f"{path}: does not parse: {error}") from None
    candidates = [p for p in peels if p.rewritable]
    if not candidates:
        return FixResult(path, text, text, tuple(Rewrite(p, False, p.reason) for p in peels))
    original = _Original(path, options)
    attempt = _prove(path, text, candidates, original, options)
    if attempt.ok():
        chosen = candidates
    else:
        singles = {_key(p): _prove(path, text, [p], original, options) for p in candidates}
        chosen = [p for p in candidates if singles[_key(p)].ok()]
        together = _prove(path, text, chosen, original, options) if len(chosen) > 1 else None
        if together is not None and not together.ok():
            chosen = _greedy(path, text, chosen, original, options)
        reasons = {k: v for a in singles.values() for k, v in a.reasons.items() if v}
        attempt = _Attempt({**reasons, **{_key(p): "" for p in chosen}},
                           {k: v for a in singles.values() for k, v in a.evidence.items()})
    made = {_key(p) for p in chosen}
    new_text, _ = codemod.apply(text, chosen)
    rewrites = []
    for peel in peels:
        if not peel.rewritable:
            rewrites.append(Rewrite(peel, False, peel.reason))
        elif _key(peel) in made:
            rewrites.append(Rewrite(peel, True, proved=attempt.evidence.get(_key(peel), ())))
        else:
            rewrites.append(Rewrite(peel, False, attempt.reasons.get(_key(peel)) or "not proved together with the others"))
    return FixResult(path, text, new_text, tuple(rewrites))


def _greedy(path: str, text: str, chosen: list[Peel], original: _Original, options: Options) -> list[Peel]:
    """The rewrites that each proved alone, added one at a time while the set still proves."""
    kept: list[Peel] = []
    for peel in chosen:
        if _prove(path, text, [*kept, peel], original, options).ok():
            kept.append(peel)
    return kept


# ---------------------------------------------------------------------------------------------- the original


class _Original:
    """The original file read and lowered once (the source side of every proof), and its simulations."""

    def __init__(self, path: str, options: Options) -> None:
        from pypto_verify.run.chain import lower_stage, read_stage

        self.work = lower_stage(read_stage(path), options)
        self.options = options
        self._sims: dict[str, str] = {}

    def kernel(self, function: str) -> KernelWork | None:
        return next((k for k in self.work.kernels if k.function == function), None)

    def simulated(self, function: str) -> str:
        """`match`, or what else the original kernel's own simulation gave."""
        if function not in self._sims:
            from pypto_verify.dynamic import simulate_kernel

            k = self.kernel(function)
            if k is None or k.lowered is None:
                self._sims[function] = "the original kernel does not lower"
            else:
                outcome = simulate_kernel(k.read, k.lowered, seed=self.options.seed, target=self.options.target)
                self._sims[function] = "match" if outcome.status == "match" else f"{outcome.status}: " \
                                                                                 f"{outcome.reason or outcome.message}"
        return self._sims[function]


# ---------------------------------------------------------------------------------------------- one proof


def _prove(path: str, text: str, chosen: list[Peel], original: _Original, options: Options) -> _Attempt:
    """Steps 1-3 of the module docstring for the rewrites *chosen*, applied together."""
    new_text, lines = codemod.apply(text, chosen)
    functions = list(dict.fromkeys(p.function for p in chosen))
    reasons: dict[tuple[int, int], str] = {}
    evidence: dict[tuple[int, int], list[str]] = {_key(p): [] for p in chosen}

    def fail(peels: list[Peel], why: str) -> None:
        for p in peels:
            reasons.setdefault(_key(p), why)

    work = _checked(path, new_text, options)
    # 1. checked: no finding on a kernel it touches (an input error anywhere: the file does not read)
    found = _findings(work, new_text)
    broken = [f for f in found if f.rule.id == rules.INPUT_ERROR.id]
    if broken:
        fail(chosen, f"the rewritten file does not read: {_at(broken[0], lines)}")
    for fn in functions:
        mine = [f for f in found if f.function == fn]
        if mine:
            fail([p for p in chosen if p.function == fn],
                 f"the rewritten kernel has {len(mine)} finding(s), the first {_at(mine[0], lines)}")
    for p in chosen:
        if _key(p) not in reasons:
            evidence[_key(p)].append("checked: no findings")
    # 2. PV101 and PV105: the original kernel as the source, the rewritten one lowered
    pending = [p for p in chosen if _key(p) not in reasons]
    if pending:
        _equal(path, work, original, pending, lines, options, fail, evidence)
    # 3. both simulations against the original's reference
    for p in [p for p in chosen if _key(p) not in reasons]:
        own = original.simulated(p.function)
        if own != "match":
            fail([p], f"the original kernel's simulation gave {own}")
            continue
        outcome = _simulate_rewritten(work, original, p.function, options)
        if outcome != "match":
            fail([p], f"the rewritten kernel's simulation against the original's reference gave {outcome}")
            continue
        evidence[_key(p)].append("simulated: the original and the rewritten PTO both match the original's reference")
    return _Attempt({_key(p): reasons.get(_key(p), "") for p in chosen},
                    {k: tuple(v) for k, v in evidence.items()})


def _checked(path: str, text: str, options: Options) -> FileWork:
    """The chain's read (of *text*, as *path*), lower, facts, Datalog and Z3 stages."""
    from pypto_verify.run.chain import (FileWork, KernelWork, datalog_stage, facts_stage, kernel_name, lower_stage,
                                        prove_stage)

    parsed = frontend.read_source(text, path)
    errors = tuple(Finding(rules.INPUT_ERROR, e.span, e.message, "", "") for e in parsed.errors)
    kernels = tuple(KernelWork(kernel_name(program, fn), fn.name, fn, program, frontend.is_lowered(fn))
                    for program, fn in frontend.kernels(parsed.module))
    work = FileWork(path, parsed.module, "input-error" if errors else "ok", tuple(find_sites(parsed.module)),
                    kernels, errors)
    work = facts_stage(lower_stage(work, options), options)
    (work,) = datalog_stage([work], options)
    return prove_stage(work, options) if options.smt else work


def _findings(work: FileWork, text: str) -> list[Finding]:
    from pypto_verify.run.inputs import apply_suppressions

    return [f for f in apply_suppressions(work.path, text, list(work.findings))
            if f.severity is not rules.Severity.INFO]


def _at(finding: Finding, lines: LineMap) -> str:
    """A finding of the rewritten text, located in the original's lines."""
    line, _ = lines.origin(finding.span.line, finding.span.col)
    message = re.sub(r"\bline (\d+)", lambda m: f"line {lines.origin(int(m.group(1)), 1)[0]}", finding.message)
    return f"at line {line}: {finding.rule.id} {finding.rule.name}: {message}"


def _equal(path: str, work: FileWork, original: _Original, pending: list[Peel], lines: LineMap, options: Options,
           fail: Callable[[list[Peel], str], None], evidence: dict[tuple[int, int], list[str]]) -> None:
    """PV101 and PV105 of the rewritten accumulators, the original kernel as the source side."""
    from pypto_verify import smt

    functions = list(dict.fromkeys(p.function for p in pending))
    source, lowered = [], []
    for fn in functions:
        old = original.kernel(fn)
        new = next((k for k in work.kernels if k.function == fn), None)
        if old is None or new is None or new.lowered is None:
            fail([p for p in pending if p.function == fn], "the rewritten kernel does not lower")
            continue
        source.append(replace(old.program, functions=(old.read,)))
        lowered.append(replace(new.program, functions=(remap(new.lowered, lines),)))
    if not source:
        return
    outcomes = smt.prove_module(Module(path, tuple(source)), Module(path, tuple(lowered)),
                                timeout_ms=options.timeout_ms, cache=options.cache)
    for p in pending:
        for target in p.targets:
            mine = [o for o in outcomes if o.function == p.function and o.rule in PROVING_RULES
                    and _named(o.name, target)]
            missing = [r for r in PROVING_RULES if not any(o.rule == r for o in mine)]
            if missing:
                fail([p], f"no {'/'.join(missing)} obligation pairs the rewritten `{target}` with the original "
                          "(no source chain shares a MAD span with it)")
                continue
            bad = [o for o in mine if o.verdict.name != "PROVED"]
            if bad:
                o = bad[0]
                fail([p], f"{o.rule} {rules.RULES[o.rule].name} is {o.verdict.name.lower()} for `{target}`: {o.message}")
                continue
            evidence[_key(p)].append(f"`{target}`: " + ", ".join(f"{o.rule} proved" for o in mine))


def _named(name: str, target: str) -> bool:
    from pypto_verify.span import display_name

    return display_name(name) == target or name == target


def _simulate_rewritten(work: FileWork, original: _Original, function: str, options: Options) -> str:
    from pypto_verify.dynamic import simulate_kernel

    old = original.kernel(function)
    new = next((k for k in work.kernels if k.function == function), None)
    if old is None or new is None or new.lowered is None:
        return "no lowered kernel"
    outcome = simulate_kernel(old.read, new.lowered, seed=options.seed, target=options.target)
    return "match" if outcome.status == "match" else f"{outcome.status}: {outcome.reason or outcome.message}"


# ---------------------------------------------------------------------------------------------- spans


def remap(fn: Function, lines: LineMap) -> Function:
    """*fn* (read from a rewritten text) with every span moved to where it was in the original text."""
    memo: dict[int, Any] = {}

    def span(s: Span) -> Span:
        if s.line <= 0:
            return s
        line, col = lines.origin(s.line, s.col)
        return Span(s.path, line, col)

    def walk(value: Any) -> Any:
        key = id(value)
        if key in memo:
            return memo[key]
        if isinstance(value, Span):
            out: Any = span(value)
        elif isinstance(value, tuple):
            items = tuple(walk(v) for v in value)
            out = value if all(a is b for a, b in zip(items, value)) else items
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                old = getattr(value, f.name)
                new = walk(old)
                if new is not old:
                    changes[f.name] = new
            out = replace(value, **changes) if changes else value
        else:
            out = value
        memo[key] = out
        return out

    result = walk(fn)
    assert isinstance(result, Function)
    return result
