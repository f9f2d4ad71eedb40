"""Z3 obligations over accumulator sites: site extraction, encoding, discharge (PV101-PV105).

API: `prove_module(source, lowered)` extracts the accumulator sites of both modules (`sites.py`),
matches them by the spans of their MADs, poses every obligation of L0C_RULES.md ("Z3 obligations") on
each lowered site (`obligations.py`, encoded by `encode.py`) and decides them (`solver.py`). It returns
one `Outcome` per (site, rule): PROVED, REFUTED with a counterexample in the user's names, or
INCONCLUSIVE with the reason (reported as PV100; never a pass). `source=None` is Form 3 input: the
lowered IR is checked as given, for PV102-PV104 only.

`prove_bounds(module)` poses PV107 (in-bounds, `bounds.py`) on every window the functions of *module*
read or write (the kernels as read: Form 1 / 2 source, or Form 3 as given): one `Outcome` per access.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pypto_verify import ir, rules
from pypto_verify.scalar import truth

from pypto_verify.frontend.shapes import Shapes, dims_text
from pypto_verify.smt import bounds, padding
from pypto_verify.smt.obligations import Obligation, RULE_ORDER, site_obligations
from pypto_verify.smt.sites import AccSite, ContextGuard, Pair, extract_sites, match_sites
from pypto_verify.smt.solver import DEFAULT_TIMEOUT_MS, Answer, Verdict, discharge, discharge_all

__all__ = [
    "Outcome", "Verdict", "Obligation", "AccSite", "Pair", "prove_module", "prove_pairs", "pair_sites",
    "extract_sites", "match_sites", "discharge", "discharge_all", "DEFAULT_TIMEOUT_MS", "prove_bounds", "prove_padding", "prove_windows",
]


@dataclass(frozen=True)
class Outcome:
    """The verdict of one rule on one site."""

    rule: str
    site: str
    verdict: Verdict
    message: str
    span: ir.Span
    counterexample: dict[str, int | str] | None
    reason: str = ""
    """Why the verdict is INCONCLUSIVE (or what a PROVED verdict assumed)."""
    seconds: float = 0.0
    """Solver time spent in this run (0 when every query was a cache hit)."""
    function: str = ""
    name: str = ""
    """The accumulator as the user named it."""

    @property
    def finding_rule(self) -> str:
        """The rule a finding reports: the obligation's, or PV100 when inconclusive."""
        return rules.INCONCLUSIVE.id if self.verdict is Verdict.INCONCLUSIVE else self.rule

    @property
    def is_finding(self) -> bool:
        """Refuted or inconclusive: reported. Proved and conditional are verdicts of the kernel."""
        return self.verdict in (Verdict.REFUTED, Verdict.INCONCLUSIVE)


def pair_sites(source: ir.Module | None, lowered: ir.Module) -> tuple[list[Pair], list[AccSite]]:
    """The lowered sites, each with the source site it came from, and the source sites left unmatched
    whose function the lowered module still has (a kernel the lowering dropped is reported there)."""
    low_sites = extract_sites(lowered)
    if source is None:
        return [Pair(s, None) for s in low_sites], []
    pairs, unmatched = match_sites(extract_sites(source), low_sites)
    seen: dict[str, int] = {}
    unique = []
    for pair in pairs:
        n = seen.get(pair.lowered.id, 0)
        seen[pair.lowered.id] = n + 1
        if n:
            pair = Pair(replace(pair.lowered, id=f"{pair.lowered.id}.{n + 1}"), pair.source)
        unique.append(pair)
    lowered_functions = {fn.name for _, fn in lowered.functions()}
    return unique, [s for s in unmatched if s.function in lowered_functions]


def dead_guard(site: AccSite) -> ContextGuard | None:
    """The enclosing `if` of *site* whose condition the constants decide against it (`if VOCAB_TAIL != 0:`
    with `VOCAB_TAIL` 0): the lowering folds that `if` to its other arm, so the chain never runs. None when
    every guard is undecided or holds."""
    for guard in site.context:
        if isinstance(guard, ContextGuard):
            decided = truth(guard.cond)
            if decided is not None and decided != guard.holds:
                return guard
    return None


def prove_module(source: ir.Module | None, lowered: ir.Module, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 cache: bool = True, dump_smt: Path | None = None) -> list[Outcome]:
    """Every obligation of every accumulator site of *lowered* (matched with *source*), decided."""
    pairs, unmatched = pair_sites(source, lowered)
    return prove_pairs(pairs, unmatched, has_source=source is not None, timeout_ms=timeout_ms, cache=cache,
                       dump_smt=dump_smt)


def prove_pairs(pairs: list[Pair], unmatched: Sequence[AccSite] = (), *, has_source: bool,
                timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
                dump_smt: Path | None = None) -> list[Outcome]:
    """`prove_module` on sites already paired."""
    outcomes: list[Outcome] = []
    for pair in pairs:
        obligations = site_obligations(pair.lowered, pair.source, has_source=has_source)
        by_rule: dict[str, list[tuple[Obligation, Answer]]] = {}
        answers = discharge_all(obligations, timeout_ms=timeout_ms, cache=cache, dump_smt=dump_smt)
        for ob, answer in zip(obligations, answers):
            by_rule.setdefault(ob.rule.id, []).append((ob, answer))
        for rule in RULE_ORDER:
            if rule.id in by_rule:
                outcomes.append(_outcome(pair.lowered, rule.id, by_rule[rule.id]))
    for site in unmatched:
        if dead_guard(site) is not None:
            continue  # the lowering removes it: a chain that never runs is not a chain to prove (`sites` says so)
        for rule in (rules.PREDICATION_IS_PHI, rules.REDUCTION_EQUIVALENCE):
            reason = f"no lowered chain carries the spans of `{site.name}`'s MADs"
            outcomes.append(Outcome(rule.id, site.id, Verdict.INCONCLUSIVE, reason, site.span, None, reason,
                                    0.0, site.function, site.name))
    return outcomes


def prove_windows(module: ir.Module, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
                  dump_smt: Path | None = None) -> list[Outcome]:
    """PV107 (`prove_bounds`) then PV108 (`prove_padding`) on *module*, each function's valid regions
    (`Shapes`) worked out once for both."""
    worked: dict[int, Shapes] = {}

    def shapes(fn: ir.Function) -> Shapes:
        if id(fn) not in worked:  # *module* holds every function for the whole call: ids stay theirs
            worked[id(fn)] = Shapes(fn)
        return worked[id(fn)]

    options: dict[str, Any] = {"timeout_ms": timeout_ms, "cache": cache, "dump_smt": dump_smt, "shapes": shapes}
    return [*prove_bounds(module, **options), *prove_padding(module, **options)]


def prove_bounds(module: ir.Module, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
                 dump_smt: Path | None = None, shapes: Callable[[ir.Function], Shapes] = Shapes) -> list[Outcome]:
    """PV107 on every window the functions of *module* read or write, decided: one `Outcome` per access
    (site `<function>:bounds:<line>:<col>`), REFUTED with the window it leaves and the loop variables,
    or INCONCLUSIVE with the reason (a value known only at run time, an unmodelled expression)."""
    outcomes: list[Outcome] = []
    for _, fn in module.functions():
        posed = bounds.function_obligations(fn, shapes(fn))
        if not posed:
            continue
        answers = _discharge_each([ob for _, ob in posed], timeout_ms=timeout_ms, cache=cache, dump_smt=dump_smt)
        for (access, ob), answer in _worst_of_each(posed, answers):
            if answer.verdict is Verdict.REFUTED:
                message, counterexample, span = ob.explain(answer.values)
                outcomes.append(Outcome(ob.rule.id, ob.site, Verdict.REFUTED, message, span or ob.span,
                                        counterexample, "", answer.seconds, fn.name, access.tensor))
            elif answer.verdict in (Verdict.INCONCLUSIVE, Verdict.CONDITIONAL):
                reason = answer.reason or "inconclusive"
                if answer.verdict is Verdict.CONDITIONAL:
                    message = f"`{access.text}` {access.verb} inside `{access.tensor}` only for some run-time values: {reason.split(': ', 1)[-1]}"
                else:
                    message = f"`{access.text}` {access.verb} a window of `{access.tensor}` not shown in bounds: {reason}"
                outcomes.append(Outcome(ob.rule.id, ob.site, answer.verdict, message, ob.span, None, reason,
                                        answer.seconds, fn.name, access.tensor))
            else:
                outcomes.append(Outcome(ob.rule.id, ob.site, Verdict.PROVED, ob.proved, ob.span, None,
                                        "; ".join(ob.approximations), answer.seconds, fn.name, access.tensor))
    return outcomes


def prove_padding(module: ir.Module, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
                  dump_smt: Path | None = None, shapes: Callable[[ir.Function], Shapes] = Shapes) -> list[Outcome]:
    """PV108 on every op of *module*'s functions that may take an operand's unfilled padding into a value it
    writes out (`padding.py`): REFUTED with the padded rows or columns read, CONDITIONAL when that rests on
    run-time values, INCONCLUSIVE with the reason, PROVED when the padding is never read."""
    outcomes: list[Outcome] = []
    for _, fn in module.functions():
        posed = padding.function_obligations(fn, shapes(fn))
        if not posed:
            continue
        answers = _discharge_each([ob for _, ob in posed], timeout_ms=timeout_ms, cache=cache, dump_smt=dump_smt)
        # a write whose valid region is not tracked and whose padding may not be empty: is it empty for some
        # run-time values at those iterations (then CONDITIONAL on it), or never (INCONCLUSIVE stays)?
        open_ = [i for i, ((read, ob), a) in enumerate(zip(posed, answers))
                 if read.approximations and ob.conditions and a.verdict is Verdict.INCONCLUSIVE and a.values]
        empties = dict(zip(open_, _discharge_each([padding.emptiable(posed[i][0], posed[i][1], answers[i].values)
                                                   for i in open_], timeout_ms=timeout_ms, cache=cache,
                                                  dump_smt=dump_smt))) if open_ else {}
        for i, ((read, ob), answer) in enumerate(zip(posed, answers)):
            empty = empties.get(i)
            if empty is not None and empty.verdict is Verdict.CONDITIONAL:
                message = (f"`{read.op_text}` writes no unfilled padding of `{read.operand}` (shape "
                           f"{dims_text(read.dims)}, valid {dims_text(read.valid)}) only when it has none, "
                           f"{padding.empty_condition(read)} (where it has some, {read.approximations[0]}), for "
                           f"some run-time values: {empty.reason.split(': ', 1)[-1]}")
                outcomes.append(Outcome(ob.rule.id, ob.site, Verdict.CONDITIONAL, message, ob.span, None,
                                        empty.reason, answer.seconds + empty.seconds, fn.name, read.operand))
                continue
            if answer.verdict is Verdict.PROVED:
                outcomes.append(Outcome(ob.rule.id, ob.site, Verdict.PROVED, ob.proved, ob.span, None,
                                        "; ".join(ob.approximations), answer.seconds, fn.name, read.operand))
                continue
            message, counterexample, span = ob.explain(answer.values) if answer.values else (ob.proved, None, None)
            reason = answer.reason or ""
            if answer.verdict is Verdict.CONDITIONAL:
                message = f"{message}, for some run-time values: {reason.split(': ', 1)[-1]}"
            elif answer.verdict is Verdict.INCONCLUSIVE:
                verb = "write" if read.approximations else "read"
                message = (f"`{read.op_text}` may {verb} the unfilled padding of `{read.operand}` (shape "
                           f"{dims_text(read.dims)}, valid {dims_text(read.valid)}): {reason or 'inconclusive'}")
            outcomes.append(Outcome(ob.rule.id, ob.site, answer.verdict, message, span or ob.span,
                                    counterexample if answer.verdict is Verdict.REFUTED else None, reason,
                                    answer.seconds, fn.name, read.operand))
    return outcomes


_SEVERITY = {Verdict.REFUTED: 3, Verdict.INCONCLUSIVE: 2, Verdict.CONDITIONAL: 1, Verdict.PROVED: 0}


def _worst_of_each(posed: list[tuple[bounds.Access, Obligation]],
                   answers: list[Answer]) -> list[tuple[tuple[bounds.Access, Obligation], Answer]]:
    """One answer per access: of the obligations posed on one access (`bounds.function_obligations`), the
    worst (refuted, inconclusive, conditional, proved; the later of equals). An access of a run-time
    shaped parameter proved for every extent passed is still conditional on the rank it was taken to have
    (a lower-rank `pl.slice` of a tensor is a reinterpreting view, not a rectangle of it)."""
    out: list[tuple[tuple[bounds.Access, Obligation], Answer]] = []
    for pair, answer in zip(posed, answers):
        if out and out[-1][0][0] is pair[0]:
            if _SEVERITY[answer.verdict] >= _SEVERITY[out[-1][1].verdict]:
                out[-1] = (pair, answer)
            continue
        out.append((pair, answer))
    for i, ((access, ob), answer) in enumerate(out):
        rank = bounds.runtime_rank(access)
        if answer.verdict is Verdict.PROVED and rank is not None:
            reason = (f"depends on run-time values: the tensor passed for the bare `pl.Tensor` `{access.tensor}` is "
                      f"{rank}-D (the rank of its windows)")
            out[i] = ((access, ob), replace(answer, verdict=Verdict.CONDITIONAL, reason=reason))
    return out


def _discharge_each(obligations: list[Obligation], **options: Any) -> list[Answer]:
    """`discharge_all` on the obligations of one function; when the batch cannot be posed (a query our
    encoding got wrong), each on its own, and one that still cannot is INCONCLUSIVE with the error, so one
    bad window never costs the file's other verdicts (it stays visible as PV100)."""
    try:
        return discharge_all(obligations, **options)
    except Exception:  # noqa: BLE001 - retried one by one below, where the failing query is named
        pass
    answers = []
    for ob in obligations:
        try:
            answers.append(discharge(ob, **options))
        except Exception as error:  # noqa: BLE001 - reported as the obligation's reason, never a pass
            answers.append(Answer(Verdict.INCONCLUSIVE,
                                  reason=f"pypto-verify could not pose the query ({type(error).__name__}: {error})"))
    return answers


def _outcome(site: AccSite, rule: str, results: list[tuple[Obligation, Answer]]) -> Outcome:
    """One outcome per rule: refuted if any part is, else inconclusive if any part is, else conditional if
    any part is, else proved."""
    seconds = sum(a.seconds for _, a in results)
    for ob, answer in results:
        if answer.verdict is Verdict.REFUTED:
            message, counterexample, span = ob.explain(answer.values)
            return Outcome(rule, site.id, Verdict.REFUTED, message, span or site.span, counterexample, "",
                           seconds, site.function, site.name)
    inconclusive = [(ob, a) for ob, a in results if a.verdict is Verdict.INCONCLUSIVE]
    if inconclusive:
        reasons = []
        for ob, answer in inconclusive:
            reason = answer.reason or "inconclusive"
            reasons.append(f"{ob.case}: {reason}" if ob.case else reason)
        message = "; ".join(dict.fromkeys(reasons))
        return Outcome(rule, site.id, Verdict.INCONCLUSIVE, message, site.span, None, message, seconds,
                       site.function, site.name)
    conditional = [(ob, a) for ob, a in results if a.verdict is Verdict.CONDITIONAL]
    if conditional:
        message = "; ".join(dict.fromkeys(a.reason for _, a in conditional))
        return Outcome(rule, site.id, Verdict.CONDITIONAL, message, site.span, None, message, seconds,
                       site.function, site.name)
    message = "; ".join(ob.proved for ob, _ in results if ob.proved)
    assumed = "; ".join(dict.fromkeys(a for ob, _ in results for a in ob.approximations))
    return Outcome(rule, site.id, Verdict.PROVED, message, site.span, None, assumed, seconds, site.function,
                   site.name)
