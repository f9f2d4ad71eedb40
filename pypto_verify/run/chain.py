"""The chain: every stage of a run, in ARCHITECTURE.md's order, behind `check_files` (the files the result
cache missed, `spine.run`) and `run_work` (a command's slice).

Per file, in a worker pool: read (frontend, PV000, the idiom-site census) → lower (one kernel at a time;
Form 3 as given) → export facts. Then the Datalog rules over the facts of every file (`Engine`: one
engine run per batch of `ENGINE_BATCH` kernels). Then, per file in the pool again: the Z3 obligations, and
PTO emission + simulation against the reference — both **only for the kernels with no error finding so
far** (a kernel the rules flag is never proved or simulated: its
verdict is already known). Then suppressions and verdicts, and the frozen `RunResult`.

Every command is this chain cut to the stages it needs (`stages=`): `parse` and `sites` read; `facts`
reads, lowers and exports; `explain` adds the Datalog run; `prove` reads, lowers and proves; `emit` and
`sim` read, lower and simulate; `check` runs it all. The intermediate `FileWork` records carry the IR
between stages and never leave `run/` except to the command that asked for that slice.

Overlap: with a worker pool, the Z3 obligations of every kernel the per-file stages did not flag are
proved by the worker that read and lowered its file, before the Datalog run (`front_and_prove`: the IR never
travels to be proved), and then `after_rules` drops what was proved of a kernel the rules flagged, so the
report is the one the sequential chain gives, only sooner. The engine does not wait for the whole chunk: it
runs over a share of the files at a time as the workers send them back (`_FusedChunk`, `ENGINE_SHARE`), while
the workers go on with the rest, and the pool is handed the largest files first (`_largest_first`). A run of
one file has no pool: with more than one core, a forked child of the process proves it while the engine runs.
Emission and simulation, the costlier half, start for each file once the rules have seen it (with a pool: as
soon as its share's engine run ends), and only for the kernels with no error finding.

Chunks: the chain takes the files `CHUNK` at a time through all of this and hands each chunk's records out
before it starts the next (`check_files`), so a run holds one chunk's IR and facts, never the whole run's.

One broken file never stops the run: its input errors are PV000 findings, a crash of ours on one kernel
is a PV999 finding on that kernel, and every other file goes on.
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pypto_verify import frontend, rules
from pypto_verify.census import find_sites
from pypto_verify.facts import FactSet, export_facts
from pypto_verify.findings import Finding, Note, datalog_findings
from pypto_verify.ir import Function, Module, Program, Span
from pypto_verify.rules import RULES, Severity
from pypto_verify.source import referenced_outside
from pypto_verify.run.collector import fewer_collections
from pypto_verify.run.inputs import apply_suppressions, collect_files
from pypto_verify.idiom import IdiomSite
from pypto_verify.run.records import ALL_STAGES, DEADLINE, FileResult, KernelResult, Options, Stage

if TYPE_CHECKING:
    from pypto_verify.dynamic import SimOutcome


# ---------------------------------------------------------------------------------------------- work records


@dataclass(frozen=True)
class KernelWork:
    """One kernel on its way through the chain."""

    name: str
    """`Program.function`, or the function name for free functions (as findings name kernels)."""
    function: str
    read: Function
    """The kernel as read."""
    program: Program
    form3: bool
    """The input is already lowered (Form 3): lowered as given, nothing to compare it with."""
    lowered: Function | None = None
    """The kernel after the pass pipeline (None until LOWER, or when lowering dropped it)."""
    obligations: tuple[tuple[str, int], ...] = ()
    conditions: tuple[str, ...] = ()
    """The conditional outcomes (PROVE): what must hold of the run-time inputs."""
    simulation: SimOutcome | None = None
    """The dynamic check's outcome (SIMULATE); None when it did not run."""

    @property
    def sim(self) -> str:
        return self.simulation.status if self.simulation is not None else "skipped"

    @property
    def sim_reason(self) -> str:
        outcome = self.simulation
        return "" if outcome is None else outcome.reason or outcome.message

    @property
    def source(self) -> Function | None:
        """The source kernel; None when the input is Form 3 (already lowered: nothing to compare with)."""
        return None if self.form3 else self.read


@dataclass(frozen=True)
class FileWork:
    """One file on its way through the chain: what each stage added."""

    path: str
    module: Module
    """The file as read (every function that parsed)."""
    status: str = "ok"
    sites: tuple[IdiomSite, ...] = ()
    kernels: tuple[KernelWork, ...] = ()
    findings: tuple[Finding, ...] = ()
    warnings: tuple[Note, ...] = ()
    """The frontend's warnings (an op made opaque, a runtime scalar made symbolic), for `parse`."""
    info: tuple[Finding, ...] = ()
    """Information the Datalog rules derive (PV010 accumulator phis, for `explain`): `datalog_stage` fills it,
    the chain of `check` (`check_files`) does not."""
    facts: FactSet | None = None
    """The facts of this file's lowered kernels, kernel ids counting from 1 (FACTS)."""
    outcomes: tuple[Any, ...] = ()
    """Every `smt.Outcome` of the file's proved kernels (PROVE), for `prove`."""
    text: str | None = None
    """The source when it was given rather than read from *path* (`check - --stdin-filename F`)."""
    seconds: tuple[tuple[str, float], ...] = ()
    """Wall time of each per-file stage this file went through (`read`, `lower`, `facts`, `prove`,
    `simulate`), in order, for `check -v`."""
    lean: bool = False
    """The record came back from a worker without its IR (`_lean`): each function is a husk (name, kind,
    decorator, span; no parameters, no body), enough for the Datalog run and `finish`, and no stage that reads
    IR may run on it."""

    def failed(self) -> set[str]:
        """The functions with an error finding so far."""
        return {f.function for f in self.findings if f.severity is Severity.ERROR}

    def lowered(self) -> list[KernelWork]:
        return [k for k in self.kernels if k.lowered is not None]


def _add(work: FileWork, *found: Finding) -> FileWork:
    return replace(work, findings=(*work.findings, *found))


def _internal(fn: Function, kernel: str, stage: str, error: BaseException) -> Finding:
    """A crash of ours on one kernel, as a PV999 finding naming the stage and the exception."""
    message = f"{stage} failed on `{fn.name}`: {type(error).__name__}: {error}{_where(error)}"
    return Finding(rules.INTERNAL_ERROR, fn.span, message, kernel, fn.name)


def _where(error: BaseException) -> str:
    """` at module.py:line` of the innermost frame of *error*'s traceback."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "" if tb is None else f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"


def kernel_name(program: Program, fn: Function) -> str:
    """How findings and reports name a kernel: `Program.function`, or the function's name."""
    return f"{program.name}.{fn.name}" if program.name else fn.name


# ---------------------------------------------------------------------------------------------- per-file stages


def read_stage(path: str, max_file_size: int = Options.max_file_size, text: str | None = None,
               modules: Mapping[Path, str] | None = None) -> FileWork:
    """READ: the frontend, its input errors (PV000) and the census of idiom sites; *text* is the source when
    it was given (stdin) instead of read from *path*, *modules* the texts of imported modules read instead of
    their files (a size constant rewritten, `run/shrink.py`)."""
    parsed = (frontend.read_file(path, max_file_size) if text is None
              else frontend.read_source(text, path, max_file_size, modules))
    findings = tuple(Finding(rules.INPUT_ERROR, e.span, e.message, "", "") for e in parsed.errors)
    kernels = tuple(KernelWork(kernel_name(program, fn), fn.name, fn, program, frontend.is_lowered(fn))
                    for program, fn in frontend.kernels(parsed.module))
    return FileWork(path, parsed.module, "input-error" if parsed.errors else "ok",
                    tuple(find_sites(parsed.module)), kernels, findings,
                    warnings=tuple(Note(w.span, w.message) for w in parsed.warnings), text=text)


def lowering_finding(error: Any, kernel: str, function: str) -> Finding:
    """A `LoweringError` (or an input error the lowering found) as the finding `check` reports."""
    rule = RULES.get(error.rule, rules.INPUT_ERROR)
    notes = tuple(Note(n.span, n.message) for n in getattr(error, "notes", ()))
    return Finding(rule, error.span, error.message, kernel, function, notes=notes,
                   windows=tuple(str(w) for w in getattr(error, "windows", ())),
                   values=tuple(getattr(error, "values", ())))


def lower_stage(work: FileWork, options: Options) -> FileWork:
    """LOWER: each kernel through the pass pipeline of `options.mode`, on its own (a crash of ours is
    that kernel's PV999); lowering errors are findings of the kernel they name."""
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.target import get_target

    lower_options = LowerOptions(mode=options.mode, target=get_target(options.target))
    names = {k.function: k.name for k in work.kernels}
    kernels: list[KernelWork] = []
    found: list[Finding] = []
    for kernel in work.kernels:
        fn = kernel.read
        single = Module(work.module.path, (replace(kernel.program, functions=(fn,)),))
        try:
            result = lower(single, lower_options)
        except Exception as error:  # our bug: report it on this kernel, keep checking the rest
            found.append(_internal(fn, kernel.name, "lowering", error))
            kernels.append(kernel)
            continue
        unreached = _unreached(fn, work.path)
        for lowering_error in result.errors:
            fn_name = getattr(lowering_error, "function", fn.name)
            finding = lowering_finding(lowering_error, names.get(fn_name, fn_name), fn_name)
            found.append(replace(finding, message=finding.message + unreached) if unreached else finding)
        kernels.append(replace(kernel, lowered=find_lowered(fn.name, result.module)))
    return replace(work, kernels=tuple(kernels), findings=(*work.findings, *found))


def _unreached(fn: Function, path: str) -> str:
    """What a finding of *fn* adds when no kernel entry reaches it: an inline function (`@pl.jit.inline`)
    runs only where it is called, and nothing in its file calls it (a user decides whether it matters:
    another file may import it). Empty otherwise."""
    if fn.decorator not in ("jit.inline", "inline") or referenced_outside(fn.name, path):
        return ""
    return (f"; `{fn.name}` is not reached from any kernel entry: it is an inline function that nothing "
            "in this file calls (it runs only where another file calls it)")


def find_lowered(name: str, lowered: Module) -> Function | None:
    """The lowered function of source kernel *name*: the same name, else the one outlined from it
    (`name_<scope>`) when there is exactly one."""
    functions = {fn.name: fn for _, fn in lowered.functions()}
    if name in functions:
        return functions[name]
    outlined = [fn for key, fn in functions.items() if key.startswith(name + "_")]
    return outlined[0] if len(outlined) == 1 else None


def facts_stage(work: FileWork, options: Options) -> FileWork:
    """FACTS: the Datalog input relations of the file's lowered kernels (ids from 1, merged later)."""
    from pypto_verify.target import get_target

    lowered = work.lowered()
    if not lowered:
        return work
    target = get_target(options.target)
    try:
        facts = export_facts([(work.path, k.lowered) for k in lowered if k.lowered is not None], target)
    except Exception:  # our bug on some kernel: that kernel is PV999 and left out, the others exported
        crashed: list[Finding] = []
        for kernel in lowered:
            if kernel.lowered is None:
                continue
            try:
                export_facts([(work.path, kernel.lowered)], target)
            except Exception as error:
                crashed.append(_internal(kernel.read, kernel.name, "fact export", error))
        if not crashed:
            raise
        names = {f.function for f in crashed}
        kernels = tuple(replace(k, lowered=None) if k.function in names else k for k in work.kernels)
        work = replace(work, kernels=kernels, findings=(*work.findings, *crashed))
        return facts_stage(work, options) if work.lowered() else work
    wide = _wide_kernels(facts)
    if not wide:
        return replace(work, facts=facts)
    # Both engines compute in 32-bit integers: a kernel whose facts hold a number past them is undecided,
    # and is left out of the run's one fact database (the other kernels are checked as usual).
    names = {lowered[k - 1].function for k in wide}
    found = [Finding(rules.INCONCLUSIVE, k.read.span,
                     f"`{k.function}`'s facts hold a number past the Datalog engines' 32-bit integers (a window or "
                     f"an offset of more than 2**31 bytes); its L0C rules are undecided", k.name, k.function)
             for k in lowered if k.function in names]
    kernels = tuple(replace(k, lowered=None) if k.function in names else k for k in work.kernels)
    work = replace(work, kernels=kernels, findings=(*work.findings, *found))
    return facts_stage(work, options) if work.lowered() else work


_INT32 = (-2 ** 31, 2 ** 31 - 1)


def _wide_kernels(facts: FactSet) -> set[int]:
    """The kernel ids (the first column of every relation) of rows holding an integer outside 32 bits."""
    low, high = _INT32

    def in_range(column: tuple) -> bool:
        # a relation's columns hold one type each (schema.dl), so a column is bounded by its min and max
        # at C speed; a column mixing types (min raises) has its rows looked at one by one
        try:
            least, most = min(column), max(column)
        except TypeError:
            return False
        return not isinstance(least, int) or low <= least and most <= high

    wide: set[int] = set()
    for rows in facts.rows.values():
        if not all(in_range(column) for column in zip(*rows)):
            wide.update(row[0] for row in rows if any(isinstance(v, int) and not low <= v <= high for v in row))
    return wide


def front(path: str, options: Options, stages: tuple[Stage, ...],
          sources: Mapping[str, str] | None = None) -> FileWork:
    """The per-file stages (run in a worker): read, then lower and export facts as *stages* ask, each under
    the guard, all within one `--timeout`. *sources* holds the text of a file given on stdin."""
    text = (sources or {}).get(path)
    steps: list[tuple[str, Callable[[FileWork], FileWork]]] = [
        ("reading", lambda _: read_stage(path, options.max_file_size, text))]
    if Stage.LOWER in stages:
        steps.append(("lowering", lambda w: lower_stage(w, options)))
    if Stage.FACTS in stages or Stage.DATALOG in stages:
        steps.append(("fact export", lambda w: facts_stage(w, options)))
    return guarded(FileWork(path, Module(path, ())), steps, options)


# ---------------------------------------------------------------------------------------------- the guard


_SHORT = {"reading": "read", "lowering": "lower", "fact export": "facts", "the Z3 obligations": "prove",
          "emission and simulation": "simulate"}
"""The stage names `check -v` lists a file's wall times under."""


class DeadlineExceeded(BaseException):
    """Raised by the alarm when a file's stages run past `--timeout` (a BaseException: no `except Exception` of a
    stage swallows it)."""


def guarded(work: FileWork, steps: list[tuple[str, Callable[[FileWork], FileWork]]], options: Options) -> FileWork:
    """*steps* in order on *work*, under the one guard every per-file and per-kernel step runs in.

    An input problem (`InputError`, input nested past the recursion limit) is a PV000 of the file; any other
    exception of ours is a PV999 on each kernel of the file (on the file when it has none), naming the stage,
    and the later steps still run on what there is. Past `options.timeout` seconds for all the steps together,
    or past `options.max_memory` bytes, the file's kernels are PV100 naming the stage, and the rest is skipped.
    """
    from pypto_verify.diagnostics import InputError

    with _memory_cap(options.max_memory):
        stop = time.monotonic() + options.timeout
        for stage, step in steps:
            left = stop - time.monotonic()
            try:
                if left <= 0:
                    raise DeadlineExceeded
                started = time.perf_counter()
                with _alarm(left):
                    work = step(work)
                work = replace(work, seconds=(*work.seconds, (_SHORT.get(stage, stage), time.perf_counter() - started)))
            except DeadlineExceeded:
                return _add(work, *_undecided(work, f"{stage} did not finish within the {options.timeout:g} s "
                                                    f"deadline {DEADLINE}"))
            except MemoryError:
                cap = f"the {options.max_memory} byte cap (--max-memory)" if options.max_memory else "memory"
                return _add(work, *_undecided(work, f"{stage} ran out of memory ({cap})"))
            except InputError as error:
                work = replace(_add(work, Finding(rules.INPUT_ERROR, error.span, error.message, "", "")),
                               status="input-error")
            except RecursionError:
                # an input nested deeper than the checker's recursion limit is that file's PV000
                work = replace(_add(work, Finding(
                    rules.INPUT_ERROR, Span(work.path, 1, 1),
                    f"kernel too deeply nested; the checker's recursion limit was reached in {stage}", "", "")),
                    status="input-error")
            except Exception as error:  # our bug: this file's kernels are reported, the run goes on
                work = _add(work, *_crashed(work, stage, error))
    return work


def _undecided(work: FileWork, why: str) -> list[Finding]:
    """PV100 on every kernel of *work* not already failing (on the file when it has none)."""
    failed = work.failed()
    found = [Finding(rules.INCONCLUSIVE, k.read.span, f"`{k.function}` is undecided: {why}", k.name, k.function)
             for k in work.kernels if k.function not in failed]
    if not work.kernels:
        found.append(Finding(rules.INCONCLUSIVE, Span(work.path, 1, 1), f"the file is undecided: {why}", "", ""))
    return found


def _crashed(work: FileWork, stage: str, error: BaseException) -> list[Finding]:
    """PV999 on every kernel of *work* (on the file when it has none) for a crash of ours in *stage*."""
    if work.kernels:
        return [_internal(k.read, k.name, stage, error) for k in work.kernels]
    return [Finding(rules.INTERNAL_ERROR, Span(work.path, 1, 1),
                    f"{stage} failed on this file: {type(error).__name__}: {error}{_where(error)}", "", "")]


def _on_alarm(signum: int, frame: Any) -> None:
    raise DeadlineExceeded


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """`DeadlineExceeded` raised in this thread after *seconds* (SIGALRM: the main thread of a worker, or
    of the process with --jobs 1); no deadline where signals cannot be had (another thread, Windows)."""
    import signal
    import threading

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _memory_cap(limit: int) -> Iterator[None]:
    """The process's address space capped at *limit* bytes (RLIMIT_AS, soft) while the block runs, so an
    allocation past it is a `MemoryError` of the stage, not the OOM killer ending the run; 0: no cap."""
    try:
        import resource
    except ImportError:  # not POSIX
        yield
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (OSError, ValueError):
        yield
        return
    lower = limit > 0 and (soft == resource.RLIM_INFINITY or soft > limit) and \
        (hard == resource.RLIM_INFINITY or hard >= limit)
    if lower:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        except (OSError, ValueError):
            lower = False
    try:
        yield
    finally:
        if lower:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ---------------------------------------------------------------------------------------------- the Datalog run


def merge_facts(parts: Iterable[FactSet]) -> tuple[FactSet, dict[int, tuple[int, int]]]:
    """One fact database from per-file ones (kernel ids renumbered in order, every relation's first
    column is its kernel), and the run-wide id of each (part, local id)."""
    merged = FactSet()
    where: dict[int, tuple[int, int]] = {}
    offset = 0
    for index, part in enumerate(parts):
        for name, rows in part.rows.items():
            merged.rows[name].update(rows if offset == 0 else ((row[0] + offset, *row[1:]) for row in rows))
        for k, table in part.kernels.items():
            merged.kernels[k + offset] = replace(table, kernel=k + offset)
            where[k + offset] = (index, k)
        offset += max(part.kernels, default=0)
    return merged, where


def datalog_relations(facts: FactSet, engine: str, timeout: float = 120.0) -> dict[str, list[tuple]]:
    """Run the rules (`datalog/main.dl`) once over *facts*; an invariant violated is our bug."""
    import importlib.resources

    from pypto_verify.engines.api import run_rows

    program = Path(str(importlib.resources.files("pypto_verify.datalog") / "main.dl"))
    # the side table is ours (findings.py), not the engine's
    relations = run_rows(program, facts.rows, engine=engine, timeout=timeout)
    bad = sorted(name for name, rows in relations.items() if name.startswith("assert_") and rows)
    if bad:
        raise AssertionError(f"Datalog invariants violated (a bug in pypto-verify): {bad}")
    return relations


ENGINE_BATCH = 256
"""Kernels per engine run (files are never split): the engine's memory is bounded by a batch, not by the run,
and the rules relate no two kernels, so a batch's results are those of one run over every file. Past a
hundred kernels a run's fixed cost (the engine's start, the program) is a few per cent of it."""


def engine_batches(works: list[FileWork], limit: int | None = None) -> list[list[FileWork]]:
    """*works* in order, cut into runs of consecutive files with at most *limit* (`ENGINE_BATCH`) lowered
    kernels each (a file with more is a run of its own); a file with no facts joins whichever run it falls in."""
    limit = limit or ENGINE_BATCH
    batches: list[list[FileWork]] = [[]]
    count = 0
    for work in works:
        size = len(work.facts.kernels) if work.facts is not None else 0
        if count and count + size > limit:
            batches.append([])
            count = 0
        batches[-1].append(work)
        count += size
    return batches


def _datalog_once(works: list[FileWork], options: Options, info: bool) -> list[FileWork]:
    with_facts = [w for w in works if w.facts is not None]
    facts, where = merge_facts(w.facts for w in with_facts if w.facts is not None)
    names = {k: with_facts[i].lowered()[local - 1].name for k, (i, local) in where.items()}
    relations = datalog_relations(facts, options.engine, options.engine_timeout)
    by_path: dict[str, list[Finding]] = {}
    for finding in datalog_findings(relations, facts, names, info):
        by_path.setdefault(finding.span.path, []).append(finding)
    out = []
    for work in works:
        mine = by_path.get(work.path, [])
        errors = tuple(f for f in mine if f.rule.id != rules.ACC_PHI.id)
        phis = tuple(f for f in mine if f.rule.id == rules.ACC_PHI.id)
        out.append(replace(work, findings=(*work.findings, *errors), info=(*work.info, *phis)))
    return out


def datalog_stage(works: list[FileWork], options: Options) -> list[FileWork]:
    """DATALOG: the engine runs over every file's facts (`Engine`); findings go back to their files, and the
    information the rules derive (PV010) to `FileWork.info`."""
    return Engine(options, info=True).run(works)


class Engine:
    """The Datalog runs of one chain: each batch of files (`engine_batches`) in one engine run.

    When a run fails, each file of its batch is run on its own, so one file costs only its own kernels. A file
    the engine does not finish within `--engine-timeout` is inconclusive (PV100, with the limit: a result
    like any other, cached under its options, so the next run is instant); any other engine failure is our
    bug (PV999, never cached). The rest are checked as usual. An engine that does not finish even on no
    facts is found once per chain (`broken`), so it costs the run two time-outs, never two per batch.
    """

    def __init__(self, options: Options, info: bool) -> None:
        self.options = options
        self.info = info
        """Whether the information findings (PV010) are built too (`FileWork.info`): only `explain` shows them."""
        self.broken: str | None = None

    def run(self, works: list[FileWork]) -> list[FileWork]:
        out: list[FileWork] = []
        for batch in engine_batches(works):
            out.extend(self._batch(batch) if any(w.facts is not None for w in batch) else batch)
        return out

    def _batch(self, works: list[FileWork]) -> list[FileWork]:
        from pypto_verify.engines.souffle_lang import EngineError, EngineTimeout

        options = self.options
        if self.broken is None:
            try:
                return _datalog_once(works, options, self.info)
            except Exception as batch_error:  # an engine failure or our bug: each file is tried alone
                if isinstance(batch_error, EngineTimeout):
                    self.broken = _engine_hangs(options)
        out = []
        for work in works:
            if work.facts is None:
                out.append(work)
                continue
            if self.broken is not None:
                # the engine does not finish even on no facts: no file's retry could finish either
                out.append(_add(work, *(Finding(
                    rules.INCONCLUSIVE, k.lowered.span,
                    f"the Datalog rules were not run on this file: {self.broken}; `{k.function}`'s L0C rules are "
                    f"undecided {DEADLINE}", k.name, k.function)
                    for k in work.lowered() if k.lowered is not None)))
                continue
            try:
                out.extend(_datalog_once([work], options, self.info))
            except EngineTimeout as error:
                out.append(_add(work, *(Finding(
                    rules.INCONCLUSIVE, k.lowered.span,
                    f"the Datalog rules did not finish on this file ({error}); `{k.function}`'s L0C rules are "
                    f"undecided (raise --engine-timeout)", k.name, k.function)
                    for k in work.lowered() if k.lowered is not None)))
            except Exception as error:  # EngineError, or our bug: this file's kernels, never the run
                what = str(error) if isinstance(error, EngineError) else f"{type(error).__name__}: {error}{_where(error)}"
                out.append(_add(work, *(Finding(
                    rules.INTERNAL_ERROR, k.lowered.span,
                    f"the Datalog rules failed on this file ({what}); `{k.function}` is not verified",
                    k.name, k.function) for k in work.lowered() if k.lowered is not None)))
        return out


def _engine_hangs(options: Options) -> str | None:
    """After a batch ran out of time: why the engine cannot finish at all (it does not finish on no facts
    within `--engine-timeout`, at least 1 s), else None (the facts were heavy: each file is tried alone)."""
    from pypto_verify.engines.souffle_lang import EngineError, EngineTimeout

    limit = max(options.engine_timeout, 1.0)
    try:
        datalog_relations(FactSet(), options.engine, limit)
    except EngineTimeout as error:
        return f"the engine does not finish even on no facts ({error})"
    except EngineError as error:
        return f"the engine fails even on no facts ({error})"
    return None


# ---------------------------------------------------------------------------------------------- per-kernel stages


def _dump_dir(options: Options) -> Path | None:
    return Path(options.dump_smt) if options.dump_smt else None


def _module(path: str, kernels: list[KernelWork], lowered: bool) -> Module:
    """A module of *kernels*, as read or as lowered, each in its own program."""
    functions = [(k.program, k.lowered if lowered else k.read) for k in kernels]
    return Module(path, tuple(replace(p, functions=(fn,)) for p, fn in functions if fn is not None))


def prove_stage(work: FileWork, options: Options) -> FileWork:
    """PROVE: the Z3 obligations of every lowered kernel with no error finding so far."""
    from pypto_verify import smt

    _no_ir(work, "PROVE")
    failed = work.failed()
    ready = [k for k in work.lowered() if k.function not in failed]
    if not ready:
        return work

    def obligations(kernels: list[KernelWork]) -> list[Any]:
        source = [k for k in kernels if k.source is not None]
        given = [k for k in kernels if k.source is None]
        outcomes = []
        if source:
            outcomes += smt.prove_module(_module(work.path, source, False), _module(work.path, source, True),
                                         timeout_ms=options.timeout_ms, cache=options.cache,
                                         dump_smt=_dump_dir(options))
        if given:
            outcomes += smt.prove_module(None, _module(work.path, given, True), timeout_ms=options.timeout_ms,
                                         cache=options.cache, dump_smt=_dump_dir(options))
        # PV107 and PV108 on the kernels as read (Form 3: as given): windows in bounds, no padding written out
        outcomes += smt.prove_windows(_module(work.path, kernels, False), timeout_ms=options.timeout_ms,
                                      cache=options.cache, dump_smt=_dump_dir(options))
        return outcomes

    found: list[Finding] = []
    try:
        outcomes = obligations(ready)
    except Exception:  # our bug on some kernel: each is proved alone, so it costs only the kernel it is about
        outcomes = []
        for kernel in ready:
            try:
                outcomes += obligations([kernel])
            except Exception as error:
                found.append(_internal(kernel.read, kernel.name, "the Z3 obligations", error))
    counts: dict[str, dict[str, int]] = {}
    conditions: dict[str, list[str]] = {}
    unbounded: dict[str, list[Any]] = {}
    for outcome in outcomes:
        verdict = outcome.verdict.name.lower()
        mine = counts.setdefault(outcome.function, {})
        mine[verdict] = mine.get(verdict, 0) + 1
        if outcome.verdict.name == "CONDITIONAL":
            conditions.setdefault(outcome.function, []).append(f"{outcome.rule} line {outcome.span.line}: "
                                                               f"{outcome.message}")
            continue
        if not outcome.is_finding:
            continue
        if outcome.verdict.name == "INCONCLUSIVE" and outcome.rule == rules.IN_BOUNDS.id:
            unbounded.setdefault(outcome.function, []).append(outcome)  # one PV100 per kernel, below
            continue
        message = outcome.message
        if outcome.verdict.name != "REFUTED" and outcome.reason and outcome.reason not in message:
            message = f"{message} ({outcome.reason})"
        found.append(Finding(RULES[outcome.finding_rule], outcome.span, message, _kernel_of(work, outcome.function),
                             outcome.function, counterexample=outcome.counterexample))
    for function, open_windows in unbounded.items():
        first = open_windows[0]
        reasons = "; ".join(dict.fromkeys(o.reason for o in open_windows))
        count = f"{len(open_windows)} GM windows" if len(open_windows) > 1 else "a GM window"
        notes = tuple(Note(o.span, o.message) for o in open_windows[1:])
        found.append(Finding(rules.INCONCLUSIVE, first.span,
                             f"{count} of `{function}` cannot be shown in bounds (PV107), the first here: "
                             f"{first.message}" + (f"; all for: {reasons}" if len(open_windows) > 1 else ""),
                             _kernel_of(work, function), function, notes=notes))
    kernels = tuple(replace(k, obligations=tuple(counts.get(k.function, {}).items()),
                            conditions=tuple(dict.fromkeys(conditions.get(k.function, ()))))
                    for k in work.kernels)
    return replace(work, kernels=kernels, findings=(*work.findings, *found), outcomes=tuple(outcomes))


def _kernel_of(work: FileWork, function: str) -> str:
    return next((k.name for k in work.kernels if k.function == function), function)


def simulate_stage(work: FileWork, options: Options) -> FileWork:
    """SIMULATE: emit and simulate every kernel with no error finding so far, against its source's
    reference (PV201, PV202)."""
    from pypto_verify.dynamic import SimOutcome, simulate_kernel

    def skipped(reason: str) -> SimOutcome:
        return SimOutcome("skipped", reason, reason=reason)

    _no_ir(work, "SIMULATE")
    failed = work.failed()
    kernels: list[KernelWork] = []
    found: list[Finding] = []
    callees = _file_callees(work, options)
    for kernel in work.kernels:
        if kernel.function in failed or kernel.lowered is None:
            kernels.append(replace(kernel, simulation=skipped("the kernel has error findings")))
            continue
        if kernel.source is None:
            kernels.append(replace(kernel, simulation=skipped("Form 3 input: no source to compare with")))
            continue
        try:
            never = _emits_at_no_size(kernel, options, callees)
            if never is not None:
                kernels.append(replace(kernel, simulation=never))
                continue
            source, lowered, shrunk = _sizes_to_simulate(work, kernel, options)
            outcome = simulate_kernel(source, lowered, seed=options.seed, target=options.target,
                                      sizes=dict(options.sim_bind), callees=_shrunk_callees(work, shrunk, callees,
                                                                                             options))
            outcome = _at_sizes(outcome, shrunk)
        except MemoryError:  # a limit (--max-memory), not a finding: the static verdict stands
            kernels.append(replace(kernel, simulation=skipped("the simulation ran out of memory (--max-memory)")))
            continue
        except Exception as error:  # our bug: the kernel is reported, the run goes on
            found.append(_internal(kernel.source, kernel.name, "emission or simulation", error))
            kernels.append(replace(kernel, simulation=skipped(f"internal error: {type(error).__name__}")))
            continue
        kernels.append(replace(kernel, simulation=outcome))
        if outcome.status == "mismatch":
            found.append(Finding(RULES[outcome.rule], outcome.span or kernel.source.span, outcome.message,
                                 kernel.name, kernel.function))
    return replace(work, kernels=tuple(kernels), findings=(*work.findings, *found))


def _file_callees(work: FileWork, options: Options) -> Mapping[str, Any]:
    """What the calls of *work*'s kernels name, spliced into their simulation (`run/callees.py`); none when the
    file's kernels call nothing (no module is read then)."""
    from pypto_verify.run.callees import file_callees

    calls = any(op.startswith(("call.", "extern.")) for k in work.kernels if k.source is not None
                for op in _ops(k.source))
    return file_callees(work, options) if calls else {}


def _shrunk_callees(work: FileWork, shrunk: Any, callees: Mapping[str, Any], options: Options) -> Mapping[str, Any]:
    """*callees*, or for a kernel simulated with its size constants shrunk, the file's callees read at those
    values too (a callee of the file takes the shrunk sizes the kernel passes it)."""
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.shrink import Shrunk

    if not callees or not isinstance(shrunk, Shrunk) or not shrunk.file_text:
        return callees
    modules = dict(shrunk.modules)
    read = read_stage(work.path, options.max_file_size, text=shrunk.file_text, modules=modules)
    found = file_callees(lower_stage(read, options), options, modules)
    # the file read again has had no rules run: a callee keeps the findings it has at the real sizes
    found.update({op: why for op, why in callees.items() if isinstance(why, str) and op in found})
    return found


def _ops(fn: Function) -> Iterator[str]:
    from pypto_verify.ir import Call, stmt_exprs, walk_exprs, walk_stmts

    for stmt in walk_stmts(fn.body):
        for top in stmt_exprs(stmt):
            yield from (e.op for e in walk_exprs(top) if isinstance(e, Call))


def _emits_at_no_size(kernel: KernelWork, options: Options, callees: Mapping[str, Any]) -> SimOutcome | None:
    """Skipped, with the emitter's reason, for a kernel too large to simulate at its real sizes (one to shrink,
    `run/shrink.py`) whose PTO the subset cannot express at them: a shrink keeps the lowering but for loop stops and
    GM extents (`sizes.plan_difference`), so no size gives it a form — a call that is not spliced, an op the subset
    lacks — and none is tried (a shrink of a model's whole layer lowers it again, a minute and more). None for
    every other kernel: one of `pl.dynamic` sizes or launched by its caller is emitted only at its samples."""
    from pypto_verify.callees import block_launched
    from pypto_verify.dynamic import SimOutcome
    from pypto_verify.emit.pto import EmitError, NeedsScalars, emit_function
    from pypto_verify.sizes import SIM_BUDGET_ELEMENTS, dynamic_names, input_elements

    source, lowered = kernel.source, kernel.lowered
    assert source is not None and lowered is not None
    if input_elements(source) <= SIM_BUDGET_ELEMENTS or dynamic_names(source) or block_launched(source, callees):
        return None
    try:
        emit_function(lowered, options.target, callees=callees)
    except NeedsScalars:
        return None
    except EmitError as error:
        reason = f"emit: {error.message}"
        return SimOutcome("skipped", reason, None, reason)
    return None


def _sizes_to_simulate(work: FileWork, kernel: KernelWork, options: Options) -> tuple[Function, Function, Any]:
    """The kernel to simulate: as read and lowered, or, when its inputs exceed the simulation budget, with its
    size constants shrunk where the lowering allows it (`run/shrink.py`); then the `Shrunk` record, or why
    it was not shrunk (None: within the budget)."""
    from pypto_verify.run.shrink import Shrunk, shrink_kernel
    from pypto_verify.sizes import SIM_BUDGET_ELEMENTS, input_elements

    source, lowered = kernel.source, kernel.lowered
    assert source is not None and lowered is not None
    if input_elements(source) <= SIM_BUDGET_ELEMENTS:
        return source, lowered, None
    text = work.text if work.text is not None else _file_text(work.path, options.max_file_size)
    if text is None:
        return source, lowered, "the file cannot be read again"
    callees = _file_callees(work, options)
    found = shrink_kernel(text, source, lowered,
                          lambda shrunk, modules: _relowered(work, kernel, options, shrunk, modules, callees),
                          path=Path(work.path), max_file_size=options.max_file_size)
    if isinstance(found, Shrunk):
        return found.source, found.lowered, found
    return source, lowered, found


def _at_sizes(outcome: SimOutcome, shrunk: Any) -> SimOutcome:
    """*outcome* saying which sizes it was simulated at: the shrunk ones, or the real ones with why not."""
    from pypto_verify.run.shrink import Shrunk, shrunk_outcome

    if isinstance(shrunk, Shrunk):
        return shrunk_outcome(outcome, shrunk)
    if shrunk is None or outcome.status == "skipped" and not outcome.reason.startswith("the kernel's tensors"):
        return outcome
    if outcome.status == "skipped":
        reason = f"{outcome.reason}; not shrunk: {shrunk}"
        return replace(outcome, message=reason, reason=reason)
    if outcome.message == "match":
        return replace(outcome, message=f"match at the real sizes (not shrunk: {shrunk})")
    return replace(outcome, message=f"{outcome.message} (at the real sizes: not shrunk: {shrunk})")


def _file_text(path: str, max_file_size: int) -> str | None:
    from pypto_verify.diagnostics import UnreadableSource, read_source_bytes

    try:
        return read_source_bytes(path, max_file_size).decode("utf-8-sig")
    except (UnreadableSource, UnicodeDecodeError):
        return None


def _relowered(work: FileWork, kernel: KernelWork, options: Options, text: str,
               modules: Mapping[Path, str], callees: Mapping[str, Any] | None = None
               ) -> tuple[Function, Function] | tuple[Function, Function, tuple[Any, ...]] | str:
    """*kernel* read from *text* (the file with a constant rewritten, or the imported *modules* at the texts
    given) and lowered, or why it cannot be: an input error the file did not have, a lowering error, the
    kernel gone, a function it calls (*callees*, at the real sizes) read or lowered other than but for trip
    counts and GM extents (the simulation splices it in at those sizes too); with callees, the loops of theirs
    whose stops differ come third (the shrink checks their kinds of iteration with the kernel's)."""
    read = read_stage(work.path, options.max_file_size, text=text, modules=modules)
    before = {(f.span.line, f.message) for f in work.findings if f.rule is rules.INPUT_ERROR}
    new = [f for f in read.findings if (f.span.line, f.message) not in before]
    if new:
        return f"line {new[0].span.line}: {new[0].message}"
    mine = tuple(k for k in read.kernels if k.name == kernel.name)
    if len(mine) != 1:
        return "the kernel is not read at that value"
    lowered = lower_stage(replace(read, kernels=mine), options)
    errors = [f for f in lowered.findings if f.severity is Severity.ERROR]
    if errors:
        return f"the lowering reports {errors[0].rule.id} at line {errors[0].span.line}"
    (again,) = lowered.kernels
    if again.source is None or again.lowered is None:
        return "the kernel does not lower at that value"
    if callees and kernel.source is not None:
        from pypto_verify.run.callees import callees_differ, file_callees

        differ, loops = callees_differ(kernel.source, callees,
                                       file_callees(lower_stage(read, options), options, modules))
        if differ is not None:
            return differ
        return again.source, again.lowered, loops
    return again.source, again.lowered


def emit_stage(work: FileWork, options: Options) -> tuple[str, list[tuple[str, str]]]:
    """The PTO-AS of a lowered file: one module with a `func.func` per kernel that emits, and
    `(kernel, reason)` for the others (`emit`; the simulation emits each kernel on its own)."""
    from pypto_verify.emit import EmitError, emit_function, emit_module

    _no_ir(work, "emission")
    emitted = []
    failed: list[tuple[str, str]] = []
    names = [k.lowered.name for k in work.kernels if k.lowered is not None]
    for kernel in work.kernels:
        if kernel.lowered is None:
            mine = [f for f in work.findings if f.function in (kernel.function, "")]
            failed.append((kernel.name, "lowering failed" + (f": {mine[0].render().splitlines()[0]}" if mine else "")))
            continue
        lowered = kernel.lowered
        if names.count(lowered.name) > 1:
            # Two programs of one file define the same function name: qualify it in the module.
            lowered = replace(lowered, name=kernel.name)
        try:
            emitted.append(emit_function(lowered, options.target))
        except EmitError as error:
            failed.append((kernel.name, f"emit: {error.message}"))
    return (emit_module(emitted, options.target) if emitted else ""), failed


def after_rules(ruled: FileWork, proved: FileWork, before: FileWork) -> FileWork:
    """The file as if PROVE had run after DATALOG. *before* is the file the Datalog run and PROVE were both
    given, *ruled* the Datalog run's result, *proved* PROVE's. What PROVE did for a kernel with an error
    finding now is dropped, so the result is the sequential chain's: such a kernel has no obligations, no
    conditions, no outcome and no finding of Z3's."""
    failed = ruled.failed()
    added = tuple(f for f in proved.findings[len(before.findings):] if f.function not in failed)
    kernels = tuple(k if k.function in failed else replace(k, obligations=p.obligations, conditions=p.conditions)
                    for k, p in zip(ruled.kernels, proved.kernels, strict=True))
    outcomes = tuple(o for o in proved.outcomes if o.function not in failed)
    return replace(ruled, kernels=kernels, findings=(*ruled.findings, *added), outcomes=outcomes,
                   seconds=(*ruled.seconds, *proved.seconds[len(before.seconds):]))


def front_and_prove(path: str, options: Options, stages: tuple[Stage, ...], sources: Mapping[str, str],
                    lean: bool) -> tuple[FileWork, FileWork]:
    """The per-file stages and then PROVE (`prove_ahead`), in the worker that read and lowered the file, each
    under its own guard and `--timeout`: the pair `after_rules` merges once the Datalog run has the first.
    The file's IR crosses between the processes once (back, and only when *lean* is false or the simulation
    is to run) instead of three times (back, to the prover, back again); *lean*: the caller reads only what
    `finish` and the later stages read, so both records come back `_lean`, but for the simulation's IR (the
    module as read, whose functions the kernels may call, and the kernels as read and lowered; not PROVE's
    outcomes)."""
    work = front(path, options, stages, sources)
    proved = prove_ahead(_unweighed(work), options)
    if not lean:
        return work, proved
    if Stage.SIMULATE in stages and options.sim:
        return work, _lean(proved)  # the simulation reads the module too: the functions its kernels call
    return _lean(work), _lean(proved)


def front_lean(path: str, options: Options, stages: tuple[Stage, ...],
               sources: Mapping[str, str] | None = None) -> FileWork:
    """`front`, sent back `_lean`: for a pool run that neither proves nor simulates after the rules
    (`check --no-smt --no-sim`), so the file's IR does not cross back to this process."""
    return _lean(front(path, options, stages, sources))


def _lean(work: FileWork) -> FileWork:
    """*work* as the Datalog run and `finish` read it: the findings, facts, obligations and conditions, with no
    module, no outcomes, and each kernel's functions as husks (`FileWork.lean`)."""
    def husk(fn: Function) -> Function:
        return replace(fn, params=(), return_types=(), body=(), attrs=())

    kernels = tuple(replace(k, read=husk(k.read), program=replace(k.program, functions=()),
                            lowered=None if k.lowered is None else husk(k.lowered)) for k in work.kernels)
    return replace(work, module=Module(work.path, ()), kernels=kernels, outcomes=(), lean=True)


def _no_ir(work: FileWork, stage: str) -> None:
    """A stage that reads IR refuses a lean record (its functions are husks with no body)."""
    if work.lean:
        raise RuntimeError(f"{stage} was given a record without its IR (a bug of the chain)")


def prove_ahead(work: FileWork, options: Options) -> FileWork:
    """PROVE under the guard, in a worker while the Datalog engine runs (module docstring, "Overlap"); *work*
    comes without its facts (`_unweighed`) and goes back without its lowered IR as well: `after_rules` reads
    only what PROVE added, and every byte of IR costs pickling both ways between the processes."""
    proved = guarded(work, [("the Z3 obligations", lambda w: prove_stage(w, options))], options)
    return replace(_unweighed(proved), kernels=tuple(replace(k, lowered=None) for k in proved.kernels))


def _unweighed(work: FileWork) -> FileWork:
    """*work* without what PROVE does not read (the module as read, the facts), for the trip to a worker."""
    return replace(work, module=Module(work.path, ()), facts=None)


def back(work: FileWork, options: Options, stages: tuple[Stage, ...], lean: bool = False) -> FileWork:
    """The per-kernel stages after the Datalog run (run in a worker): prove, then simulate, under the guard,
    within one more `--timeout`; *lean*: the record comes back `_lean` (the caller reads only what `finish`
    reads)."""
    steps: list[tuple[str, Callable[[FileWork], FileWork]]] = []
    if Stage.PROVE in stages and options.smt:
        steps.append(("the Z3 obligations", lambda w: prove_stage(w, options)))
    if Stage.SIMULATE in stages and options.sim:
        steps.append(("emission and simulation", lambda w: simulate_stage(w, options)))
    done = guarded(work, steps, options)
    return _lean(done) if lean else done


# ---------------------------------------------------------------------------------------------- the run


def finish(work: FileWork, max_file_size: int = Options.max_file_size) -> FileResult:
    """Suppressions (PV900 for an unused one), the kernels' verdicts, and the file's frozen result."""
    from pypto_verify.diagnostics import UnreadableSource, read_source_bytes

    text = work.text
    if text is None:
        try:
            text = read_source_bytes(work.path, max_file_size).decode("utf-8-sig")
        except (UnreadableSource, UnicodeDecodeError):
            text = ""
    kept = apply_suppressions(work.path, text, list(work.findings))
    # as the verdicts below: what failed before suppression (a suppressed error does not make the kernel's
    # undecided obligations news — they were never posed past that error)
    failed = {f.function for f in work.findings if f.severity is Severity.ERROR}
    unique: dict[tuple, Finding] = {}
    for f in kept:
        if f.rule.id == rules.INCONCLUSIVE.id and f.function in failed:
            continue  # the kernel already fails: an undecided obligation adds nothing
        unique.setdefault((f.rule.id, f.span, f.message), f)
    findings = tuple(sorted(unique.values(), key=Finding.sort_key))
    kernels = []
    for k in work.kernels:
        # the verdict rests on the obligations and findings before suppression: `verified` only when every
        # obligation is proved and nothing was found (a suppression silences a finding, it proves nothing)
        mine = [f for f in work.findings if f.function == k.function]
        outcomes = dict(k.obligations)
        if any(f.severity is Severity.ERROR for f in mine) or outcomes.get("refuted"):
            verdict = "findings"
        elif any(f.rule.id == rules.INCONCLUSIVE.id for f in mine) or outcomes.get("inconclusive"):
            verdict = "inconclusive"
        elif outcomes.get("conditional"):
            verdict = "conditional"
        else:
            verdict = "verified"
        kernels.append(KernelResult(k.name, k.function, verdict, k.sim, k.sim_reason, k.obligations, k.conditions))
    return FileResult(work.path, work.status, work.sites, tuple(kernels), findings, seconds=work.seconds)




class _Workers:
    """The worker pool of a run, made again when a worker dies (the OOM killer, a crash in native code) or
    hangs where the alarm cannot reach it: a lost worker costs the file it ran, never the run."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.executor: ProcessPoolExecutor | None = None
        self.futures: weakref.WeakSet[Future] = weakref.WeakSet()
        """The futures of `executor` its callers still hold."""

    def get(self) -> ProcessPoolExecutor:
        if self.executor is None:
            self.executor = ProcessPoolExecutor(max_workers=self.jobs, initializer=fewer_collections)
        return self.executor

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        future = self.get().submit(fn, *args)
        self.futures.add(future)
        return future

    def discard(self, kill: bool = False) -> None:
        """Drop the pool (killing its workers when one hangs); the next `get` makes a new one. A future of a pool
        shut down whole that is still not done was submitted as a worker's death broke the pool, and the pool lost it
        (CPython 3.11's `ProcessPoolExecutor` fails the work it holds when it breaks without the lock `submit`
        takes): it fails as the others did, rather than leave its caller waiting out the patience."""
        executor, self.executor = self.executor, None
        futures, self.futures = list(self.futures), weakref.WeakSet()
        if executor is None:
            return
        if kill:
            for process in list(getattr(executor, "_processes", {}).values()):
                process.kill()
        executor.shutdown(wait=not kill, cancel_futures=True)
        if not kill:
            from concurrent.futures.process import BrokenProcessPool

            for future in futures:
                if not future.done():
                    future.set_exception(BrokenProcessPool("the pool broke as this work was handed to it"))

    def close(self) -> None:
        self.discard()


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _prove_in_child(works: list[FileWork], options: Options) -> Callable[[], list[FileWork]]:
    """`prove_ahead` of each of *works* in a forked child (it inherits them: nothing is pickled on the way
    there), started now; the returned call waits for its answer. The run without a pool (one file) so
    proves while the Datalog engine runs, as the workers of a pool do. A child that dies or does not
    answer within the pool's patience costs what a lost worker costs (`_lost`)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_prove_child, args=(sender, works, options), daemon=True)
    child.start()
    sender.close()

    def answer() -> list[FileWork]:
        patience = 2 * options.timeout + 60
        try:
            if receiver.poll(patience):
                try:
                    return receiver.recv()
                except EOFError:
                    return [_lost(prove_ahead, w, "the worker process died (killed, or out of memory)", False)
                            for w in works]
            return [_lost(prove_ahead, w, f"the worker did not answer within {patience:g} s {DEADLINE}", True)
                    for w in works]
        finally:
            receiver.close()
            child.join(1.0)
            if child.is_alive():
                child.kill()
                child.join()

    return answer


def _prove_child(sender: Any, works: list[FileWork], options: Options) -> None:
    fewer_collections()
    try:
        sender.send([prove_ahead(w, options) for w in works])
    finally:
        sender.close()


def _preload(stages: tuple[Stage, ...], options: Options) -> None:
    """The modules of the stages the workers will run, imported here before the pool forks them, so each
    worker inherits them rather than importing them again (only under the fork start method: a spawned
    worker imports everything anew whatever this process holds)."""
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        return
    if Stage.LOWER in stages:
        import pypto_verify.lowering.pipeline  # noqa: F401
    if Stage.PROVE in stages and options.smt:
        import z3  # noqa: F401

        import pypto_verify.smt  # noqa: F401
    if Stage.SIMULATE in stages and options.sim:  # numpy, the emitter, the reference and the simulator: ~0.3 s
        import pypto_verify.dynamic  # noqa: F401  # of CPU each worker would spend importing them again
        import pypto_verify.sim  # noqa: F401


@contextmanager
def _pool(options: Options, count: int) -> Iterator[_Workers | None]:
    jobs = options.jobs or os.cpu_count() or 1
    if jobs <= 1 or count <= 1:
        yield None
        return
    workers = _Workers(min(jobs, count))
    try:
        yield workers
    finally:
        workers.close()


def _map(pool: _Workers | None, fn: Callable[..., Any], items: list, options: Options, *args: Any,
         progress: Callable[[], None] | None = None) -> list[Any]:
    """`fn(item, options, *args)` of every item, in *items*' order; *progress* is called as each one
    completes (in a pool: in the order they finish, not the order they were handed out)."""
    if pool is None:
        out: list[Any] = []
        for item in items:
            out.append(fn(item, options, *args))
            if progress:
                progress()
        return out
    return _collect(pool, fn, items, _submit(pool, fn, items, options, *args), options, args, progress)


def _submit(pool: _Workers, fn: Callable[..., Any], items: list, options: Options, *args: Any) -> list[Future]:
    """*items* handed to the pool. A pool a worker's death has broken, before any future of it said so, refuses
    new work: it is dropped (its futures then fail, and `_completed` runs their files alone) and a new one
    takes the items."""
    from concurrent.futures.process import BrokenProcessPool

    futures = []
    for item in items:
        try:
            futures.append(pool.submit(fn, item, options, *args))
        except BrokenProcessPool:
            pool.discard()
            futures.append(pool.submit(fn, item, options, *args))
    return futures


def _collect(pool: _Workers, fn: Callable[..., Any], items: list, futures: list[Future], options: Options,
             args: tuple, progress: Callable[[], None] | None) -> list[Any]:
    """The results of *futures* (one per item) in *items*' order (`_completed`)."""
    results = dict(_completed(pool, fn, items, futures, options, args, progress))
    return [results[index] for index in range(len(items))]


def _completed(pool: _Workers, fn: Callable[..., Any], items: list, futures: list[Future], options: Options,
               args: tuple, progress: Callable[[], None] | None) -> Iterator[tuple[int, Any]]:
    """`(index, result)` of each of *futures* (one per item), in the order they complete. A worker that died
    costs its file a run alone (`_alone`); when no file finishes within the patience (the worker's own alarm
    ends a file at --timeout: this is for a worker stuck where signals wait), the pool is killed, what was
    running is undecided (PV100) and what was queued runs again alone."""
    from concurrent.futures import FIRST_COMPLETED, CancelledError, wait
    from concurrent.futures.process import BrokenProcessPool

    patience = 2 * options.timeout + 60
    pending = {future: index for index, future in enumerate(futures)}
    while pending:
        done, _ = wait(pending, timeout=patience, return_when=FIRST_COMPLETED)
        if not done:
            running = {f for f in pending if f.running()}
            pool.discard(kill=True)
            for future, index in list(pending.items()):
                del pending[future]
                result = _lost(fn, items[index], f"the worker did not answer within {patience:g} s "
                               f"{DEADLINE}", True) if future in running else \
                    _alone(fn, items[index], options, args, patience)
                if progress:
                    progress()
                yield index, result
            break
        for future in sorted(done, key=pending.__getitem__):
            index = pending.pop(future)
            try:
                result = future.result()
            except (BrokenProcessPool, CancelledError):
                pool.discard()
                result = _alone(fn, items[index], options, args, patience)
            if progress:
                progress()
            yield index, result


def _largest_first(paths: list[str], given: Mapping[str, str]) -> list[int]:
    """The positions of *paths* by decreasing size (the text given for a path, else the file's): the order a
    pool is handed them in, so that the largest (the slowest to read, lower and prove) do not start last and
    leave one worker running alone at the end. The results are put back in *paths*' order (`_in_order`)."""
    def size(path: str) -> int:
        if path in given:
            return len(given[path])
        try:
            return os.stat(path).st_size
        except OSError:
            return 0

    sizes = [size(p) for p in paths]
    return sorted(range(len(paths)), key=lambda i: -sizes[i])


def _in_order(results: list[Any], order: list[int]) -> list[Any]:
    """*results* of the items handed out in *order* (`_largest_first`), back in the items' own order."""
    out: list[Any] = [None] * len(results)
    for result, position in zip(results, order, strict=True):
        out[position] = result
    return out


ENGINE_SHARE = 8
"""With a pool, the Datalog engine runs over the last chunk's files the workers have sent back (read, lowered,
proved) as soon as they are at least as many as the files still to come, and at least this share of the chunk
(`_FusedChunk`; an earlier chunk is ruled in one run while the workers go on with the next):
half the chunk, then most of what came during that run, ..., so the run left after the last file is a small
one, instead of one run over the whole chunk after the last file with one core idle. Each run more costs the
engine's fixed start (~0.04 s of CPU: on the corpus one run is 0.85 s of CPU, four 1.03 s, eight 1.2 s).
The findings are those of one run (`ENGINE_BATCH`: the rules relate no two kernels)."""


class _FusedChunk:
    """One chunk of `check_files` with a pool that reads, lowers and proves in its workers (`front_and_prove`):
    the Datalog engine runs in this process over the files as they come back, a share at a time
    (`ENGINE_SHARE`), and each file the rules have seen is handed back to the pool to be simulated at once
    (`back`), so neither the engine nor the simulation waits for the slowest file of the chunk, and no core
    waits for the engine. The report is the sequential chain's (`after_rules`)."""

    def __init__(self, pool: _Workers, options: Options, stages: tuple[Stage, ...], args: tuple, engine: Engine,
                 simulating: bool, lean: bool) -> None:
        self.pool, self.options, self.stages, self.args, self.engine = pool, options, stages, args, engine
        self.simulating, self.lean = simulating, lean
        self.rest = replace(options, smt=False)
        """PROVE ran ahead in the workers: what remains after the rules is the simulation."""
        self.queued: list[Future] | None = None
        """The next chunk's futures, handed out once this chunk's files are all back."""
        self.seconds = {"front": 0.0, "datalog": 0.0, "back": 0.0}

    def run(self, items: list[str], futures: list[Future], submit_next: Callable[[], list[Future] | None],
            front_tick: Callable[[], None], ruled: Callable[[int], None], back_tick: Callable[[], None],
            last: bool = True) -> list[FileWork]:
        """The records of *items* (in their order), whose `front_and_prove` is *futures*; *submit_next* hands out
        the next chunk, *ruled(n)* is told when n more files have been through the rules. A chunk that is not
        the *last* is ruled in one run: the workers have the next chunk to go on with while the engine runs."""
        begin = time.perf_counter()
        least = max(1, -(-len(items) // ENGINE_SHARE)) if last else len(items)
        out: list[FileWork | None] = [None] * len(items)
        waiting: list[tuple[int, tuple[FileWork, FileWork]]] = []
        simulated: list[tuple[int, FileWork, Future]] = []
        arrived, ruling, fronts_done = 0, 0.0, begin
        for position, pair in _completed(self.pool, front_and_prove, items, futures, self.options, self.args,
                                         front_tick):
            arrived += 1
            waiting.append((position, pair))
            if arrived == len(items):
                fronts_done = time.perf_counter()
                self.queued = submit_next()
            elif len(waiting) < max(least, len(items) - arrived):
                continue
            waiting.sort(key=lambda item: item[0])
            start = time.perf_counter()
            ruled_works = self.engine.run([work for _, (work, _) in waiting])
            spent = time.perf_counter() - start
            ruling += spent
            self.seconds["datalog"] += spent
            for (at, (work, proved)), rules_out in zip(waiting, ruled_works, strict=True):
                merged = after_rules(rules_out, proved, work)
                if self.simulating:
                    if self.lean:  # nothing after reads the facts: they do not make the trip (the module
                        merged = replace(merged, facts=None)  # does: the functions the kernels call)
                    (future,) = _submit(self.pool, back, [merged], self.rest, self.stages, self.lean)
                    simulated.append((at, merged, future))
                else:
                    out[at] = merged
            ruled(len(waiting))
            waiting = []
        self.seconds["front"] += fronts_done - begin - (ruling - spent)
        if simulated:
            results = _collect(self.pool, back, [work for _, work, _ in simulated],
                               [future for _, _, future in simulated], self.rest, (self.stages, self.lean), back_tick)
            for (at, _, _), result in zip(simulated, results, strict=True):
                out[at] = result
        self.seconds["back"] += time.perf_counter() - fronts_done - spent
        assert all(work is not None for work in out), "a file of the chunk was left without its record"
        return [work for work in out if work is not None]


Progress = Callable[[str, int, int], None]
"""`progress(stage, done, total)`: *stage* names what runs (`read, lower`, `datalog`, `prove, simulate`), *done*
of *total* files have passed it."""


def _ruled_progress(progress: Progress | None, counts: dict[str, int], done: int, total: int, more: int) -> None:
    """`progress` told that *more* files have been through the Datalog rules."""
    counts["datalog"] = counts.get("datalog", done) + more
    if progress:
        progress("datalog", counts["datalog"], total)


def _stage_label(stages: tuple[Stage, ...], options: Options, back_half: bool) -> str:
    """The names of the per-file stages a pool runs, for the progress bar."""
    if back_half:
        names = [s for s, on in (("prove", Stage.PROVE in stages and options.smt),
                                 ("simulate", Stage.SIMULATE in stages and options.sim)) if on]
    else:
        names = ["read", *(["lower"] if Stage.LOWER in stages else [])]
    return ", ".join(names)


def _alone(fn: Callable[..., Any], item: Any, options: Options, args: tuple, patience: float) -> Any:
    """*item* again in a worker of its own, after a worker died: the file that killed it dies alone."""
    from concurrent.futures import TimeoutError as FutureTimeout
    from concurrent.futures.process import BrokenProcessPool

    single = _Workers(1)
    try:
        return single.get().submit(fn, item, options, *args).result(timeout=patience)
    except FutureTimeout:
        single.discard(kill=True)
        return _lost(fn, item, f"the worker did not answer within {patience:g} s {DEADLINE}", True)
    except BrokenProcessPool:
        return _lost(fn, item, "the worker process died (killed, or out of memory)", False)
    finally:
        single.close()


def _lost(fn: Callable[..., Any], item: Any, why: str, undecided: bool) -> Any:
    """The record of a file whose worker was lost: PV100 when it ran out of time, else PV999 (for
    `front_and_prove`, the pair of it and itself: nothing was proved)."""
    work = item if isinstance(item, FileWork) else FileWork(str(item), Module(str(item), ()))
    stage = "the per-file stages" if fn in (front, front_and_prove) else "the per-kernel stages"
    if undecided:
        lost = _add(work, *_undecided(work, f"{stage}: {why}"))
    else:
        lost = _add(work, *_crashed(work, stage, RuntimeError(why)))
    return (lost, lost) if fn is front_and_prove else lost


def run_work(paths: list[str], options: Options, stages: tuple[Stage, ...] = ALL_STAGES,
             progress: Progress | None = None) -> list[FileWork]:
    """The chain cut to *stages* over the files under *paths*, without the cache: the work records, for the
    commands that show a stage's artifacts (IR, facts, outcomes)."""
    files = [str(p) for p in collect_files(paths)]
    return list(check_files(files, options, stages, progress, done=0, total=len(files)))


CHUNK = 256
"""Files the chain takes through every stage at a time: what a run holds in memory (IR, facts, outcomes) is
bounded by a chunk, and the caller finishes each file as its chunk comes out, so a run's peak memory does
not grow with its number of files."""


def check_files(files: list[str], options: Options, stages: tuple[Stage, ...],
                progress: Progress | None, done: int, total: int,
                seconds: dict[str, float] | None = None, sources: Mapping[str, str] | None = None,
                chunk: int | None = None, lean: bool = False) -> Iterator[FileWork]:
    """The chain over *files*, in their order, *chunk* files at a time (`CHUNK`); *done* of *total* files were
    settled before (cache hits), *sources* the text of a file given on stdin. With a worker pool, each worker
    proves the files it read and lowered (`front_and_prove`, the largest first) and the next chunk is queued as
    soon as this one is in, so the workers read, lower and prove while the Datalog engine runs (over the last
    chunk a share at a time, `_FusedChunk`). *lean*: the caller reads only what `finish` reads, so a worker sends
    back no IR unless a later stage reads it (the simulation). *seconds* gets each stage's wall time, summed over
    the chunks (with a pool that proves: `datalog` the engine's runs, while the workers go on; `front` the rest of
    the time until the last file is back; `back` the rest)."""
    counts: dict[str, int] = {}

    def ticker(label: str) -> Callable[[], None]:
        def tick() -> None:
            counts[label] = counts.get(label, done) + 1
            if progress:
                progress(label, counts[label], total)
        return tick

    spent = seconds if seconds is not None else {}
    for stage in ("front", "datalog", "back"):
        spent.setdefault(stage, 0.0)
    proving = Stage.PROVE in stages and options.smt
    simulating = Stage.SIMULATE in stages and options.sim
    chunk = chunk or CHUNK
    chunks = [files[i:i + chunk] for i in range(0, len(files), chunk)]
    given = dict(sources or {})
    with _pool(options, len(files)) as pool:
        if pool is not None:
            _preload(stages, options)
        # with a pool and both the rules and Z3 to run, each worker proves what it lowered (module docstring,
        # "Overlap"); without one, a forked child of this process proves while the engine runs
        fused = pool is not None and Stage.DATALOG in stages and proving
        alone = pool is None and (options.jobs or os.cpu_count() or 1) > 1 and _can_fork()
        bare = pool is not None and lean and not proving and not simulating
        task: Callable[..., Any] = front_and_prove if fused else front_lean if bare else front
        args: tuple = (stages, given, lean) if fused else (stages, given)
        front_label = _stage_label(stages, options, False) + (", prove" if fused else "")
        engine = Engine(options, info=False)  # no report shows PV010: `explain` runs `datalog_stage` itself
        # with a pool, each chunk's files are handed out largest first (`_largest_first`)
        orders = [_largest_first(paths, given) if pool else list(range(len(paths))) for paths in chunks]
        handed = [[paths[i] for i in order] for paths, order in zip(chunks, orders)]
        queued = _submit(pool, task, handed[0], options, *args) if pool and chunks else None
        for index, paths in enumerate(chunks):
            stamps = [time.perf_counter()]
            if fused:
                assert pool is not None and queued is not None
                following = handed[index + 1] if index + 1 < len(chunks) else None
                fused_run = _FusedChunk(pool, options, stages, args, engine, simulating, lean)
                works = fused_run.run(handed[index], queued,
                                      lambda: _submit(pool, task, following, options, *args) if following else None,
                                      ticker(front_label), lambda n: _ruled_progress(progress, counts, done, total, n),
                                      ticker(_stage_label(stages, replace(options, smt=False), True)),
                                      last=following is None)
                queued = fused_run.queued
                for stage, value in fused_run.seconds.items():
                    spent[stage] += value
                yield from _in_order(works, orders[index])
                continue
            if pool is None or queued is None:
                done_front = _map(pool, task, paths, options, *args, progress=ticker(front_label))
            else:
                done_front = _in_order(_collect(pool, task, handed[index], queued, options, args,
                                                ticker(front_label)), orders[index])
            nxt = handed[index + 1] if index + 1 < len(chunks) else None
            queued = _submit(pool, task, nxt, options, *args) if pool and nxt else None
            proved: list[FileWork] | None = None
            if fused:
                works, proved = [w for w, _ in done_front], [p for _, p in done_front]
            else:
                works = done_front
            stamps.append(time.perf_counter())
            overlap = alone and Stage.DATALOG in stages and proving and any(w.facts is not None for w in works)
            if Stage.DATALOG in stages:
                label = "datalog, prove" if overlap else "datalog"
                settled = counts.get(label, done)
                if progress:
                    progress(label, settled, total)
                if overlap:
                    # no pool: a forked child of this process proves while the engine runs in another
                    answer = _prove_in_child([_unweighed(w) for w in works], options)
                    ruled = engine.run(works)
                    proved = answer()
                else:
                    ruled = engine.run(works)
                works = ruled if proved is None else \
                    [after_rules(r, p, w) for r, p, w in zip(ruled, proved, works, strict=True)]
                counts[label] = settled + len(paths)
                if progress:
                    progress(label, counts[label], total)
            stamps.append(time.perf_counter())
            rest = replace(options, smt=proving and proved is None)
            if rest.smt or simulating:
                works = _map(pool, back, works, rest, stages, progress=ticker(_stage_label(stages, rest, True)))
            stamps.append(time.perf_counter())
            for stage, (a, b) in zip(("front", "datalog", "back"), zip(stamps, stamps[1:])):
                spent[stage] += b - a
            yield from works
