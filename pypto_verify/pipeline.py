"""The verification pipeline behind `pypto-verify check`: it connects the stages.

Owns: the order of the stages and what flows between them (ARCHITECTURE.md, "Data flow"):
frontend → lowering (Form 1/2; Form 3 as given) → Z3 obligations → emission + simulation, per file in a
process pool → facts for every lowered kernel of the run → one Datalog run → findings (a kernel the
Datalog rules flag has its simulation withdrawn: only kernels with no error finding are simulated) →
one `CheckReport`. Suppressions, the site census and the result cache
are applied here too. Only `cli` prints; this module returns data.

One broken file never stops the run: its input errors are PV000 findings and every other file goes on.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import re
import tempfile
import time
import tokenize
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from pypto_verify import __version__, frontend, rules
from pypto_verify.diagnostics import InputError
from pypto_verify.findings import Finding, Note, datalog_findings
from pypto_verify.ir import Function, Module, Program, Span
from pypto_verify.rules import RULES, Engine, Severity
from pypto_verify.census import IdiomSite as Site, find_sites
from pypto_verify.target import get_target


@dataclass(frozen=True)
class CheckOptions:
    """Everything that changes a result (and therefore the cache key)."""

    mode: str = "fixed"
    target: str = "a2a3"
    engine: str = "auto"
    sim: bool = True
    smt: bool = True
    cache: bool = True
    jobs: int = 0
    """Worker processes for the per-file stages; 0 = the number of cores."""
    timeout_ms: int = 2000
    seed: int = 0

    def key(self) -> str:
        return f"{self.mode}|{self.target}|{self.engine}|{self.sim}|{self.smt}|{self.timeout_ms}|{self.seed}"


@dataclass
class KernelReport:
    name: str
    function: str
    verdict: str = "verified"
    """`verified` | `findings` | `inconclusive`."""
    sim: str = "skipped"
    """`match` | `mismatch` | `skipped`."""
    sim_reason: str = ""
    obligations: dict[str, int] = field(default_factory=dict)
    """Outcomes of the Z3 obligations by verdict (`proved`, `refuted`, `inconclusive`)."""

    def to_json(self) -> dict:
        return {"name": self.name, "function": self.function, "verdict": self.verdict, "sim": self.sim,
                "sim_reason": self.sim_reason, "obligations": self.obligations}


@dataclass
class FileReport:
    path: str
    status: str = "ok"
    """`ok` | `input-error`."""
    sites: list[Site] = field(default_factory=list)
    kernels: list[KernelReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    cached: bool = False

    def verified_sites(self) -> int:
        ok = {k.function for k in self.kernels if k.verdict == "verified"}
        return sum(1 for s in self.sites if s.function in ok)

    def to_json(self) -> dict:
        return {"path": self.path, "status": self.status, "sites": len(self.sites),
                "verified_sites": self.verified_sites(), "kernels": [k.to_json() for k in self.kernels]}


@dataclass
class CheckReport:
    files: list[FileReport]
    options: CheckOptions
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)

    @property
    def sites(self) -> int:
        return sum(len(r.sites) for r in self.files)

    @property
    def verified_sites(self) -> int:
        return sum(r.verified_sites() for r in self.files)

    def exit_code(self, strict: bool = False) -> int:
        """0 clean, 1 error findings, 2 input errors and nothing worse, 3 inconclusive under --strict."""
        severities = [(f.rule.id, f.severity) for f in self.findings]
        if any(s is Severity.ERROR and rid != rules.INPUT_ERROR.id for rid, s in severities):
            return 1
        if any(rid == rules.INPUT_ERROR.id for rid, _ in severities):
            return 2
        if strict and any(rid == rules.INCONCLUSIVE.id for rid, _ in severities):
            return 3
        return 0


# ---------------------------------------------------------------------------------------------- inputs


def collect_files(paths: list[str], exclude: tuple[str, ...] | None = None) -> list[Path]:
    """Files named, and `*.py` under directories named (recursively), sorted, each once.

    A directory walk skips paths matching the `exclude` globs (default: `[tool.pypto-verify] exclude`
    of the nearest pyproject.toml above that directory, like a linter's config); a file named
    explicitly is always checked.
    """
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            patterns = project_excludes(path) if exclude is None else exclude
            # a directory named explicitly is walked even if a pattern excludes it
            active = tuple(pat for pat in patterns if not _excluded(path / "_.py", (pat,)))
            out.extend(sorted(p for p in path.rglob("*.py")
                              if "__pycache__" not in p.parts and not _excluded(p, active)))
        else:
            out.append(path)
    seen: set[Path] = set()
    unique = []
    for p in out:
        if p not in seen:
            seen.add(p)
            unique.append(p)
    return unique


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    """*path* (made absolute) matches one of the absolute glob *patterns*, or lies below one."""
    text = path.resolve().as_posix()
    return any(fnmatch.fnmatch(text, pat) or text.startswith(pat.rstrip("/") + "/") for pat in patterns)


def project_excludes(start: Path | None = None) -> tuple[str, ...]:
    """`exclude` globs from `[tool.pypto-verify]` in the nearest pyproject.toml above *start* (default: the
    working directory), made absolute against that file's directory."""
    import tomllib

    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                config = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return ()
            globs = config.get("tool", {}).get("pypto-verify", {}).get("exclude", [])
            return tuple((directory / g).resolve().as_posix() for g in globs)
    return ()


SUPPRESSION = re.compile(r"#\s*pypto-verify:\s*ignore\[([A-Z0-9, ]+)\]")


def suppressions(text: str) -> dict[int, set[str]]:
    """`{line: {rule ids}}` from `# pypto-verify: ignore[PV004, PV003]` comments (found with tokenize)."""
    out: dict[int, set[str]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                m = SUPPRESSION.search(token.string)
                if m:
                    out.setdefault(token.start[0], set()).update(x.strip() for x in m.group(1).split(",") if x.strip())
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


# ---------------------------------------------------------------------------------------------- per file


@dataclass
class _Front:
    """The per-file stage's result, handed back from a worker process."""

    report: FileReport
    lowered: list[tuple[str, Function]] = field(default_factory=list)
    """(kernel name, lowered function) of the kernels that lowered, for the Datalog run."""
    sources: dict[str, Function | None] = field(default_factory=dict)
    """kernel name -> source function (None for Form 3 input)."""


def _kernel_name(program: Program, fn: Function) -> str:
    return f"{program.name}.{fn.name}" if program.name else fn.name


def _input_finding(error: InputError) -> Finding:
    return Finding(rules.INPUT_ERROR, error.span, error.message, "", "")


def _lowering_finding(error, kernel: str, function: str) -> Finding:
    rule = RULES.get(error.rule, rules.INPUT_ERROR)
    notes = tuple(Note(n.span, n.message) for n in getattr(error, "notes", ()))
    return Finding(rule, error.span, error.message, kernel, function, notes=notes,
                   windows=tuple(str(w) for w in getattr(error, "windows", ())),
                   values=tuple(getattr(error, "values", ())))


def front_file(path: str, options: CheckOptions) -> _Front:
    """Parse, lower and prove one file (runs in a worker process)."""
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower

    parsed = frontend.read_file(path)
    report = FileReport(path)
    report.findings.extend(_input_finding(e) for e in parsed.errors)
    if parsed.errors:
        report.status = "input-error"
    report.sites = find_sites(parsed.module)
    front = _Front(report)
    kernel_list = frontend.kernels(parsed.module)
    names = {fn.name: _kernel_name(p, fn) for p, fn in kernel_list}
    for program, fn in kernel_list:
        front.report.kernels.append(KernelReport(names[fn.name], fn.name))
        front.sources[names[fn.name]] = None if frontend.is_lowered(fn) else fn
    lower_options = LowerOptions(mode=options.mode, target=get_target(options.target))
    programs: list[Program] = []
    for program, fn in kernel_list:
        single = Module(parsed.module.path, (replace(program, functions=(fn,)),))
        try:
            result = lower(single, lower_options)
        except Exception as error:  # our bug: report it on this kernel, keep checking the rest
            report.findings.append(_internal(fn, names[fn.name], "lowering", error))
            continue
        for lowering_error in result.errors:
            fn_name = getattr(lowering_error, "function", fn.name)
            report.findings.append(_lowering_finding(lowering_error, names.get(fn_name, fn_name), fn_name))
        for lowered_program, low in result.module.functions():
            if low.name == fn.name:
                front.lowered.append((names[fn.name], low))
                programs.append(replace(lowered_program, functions=(low,)))
    result_module = Module(parsed.module.path, tuple(programs))
    if options.smt:
        try:
            report.findings.extend(_prove(parsed.module, result_module, front, names, options))
        except Exception as error:  # our bug: the file's kernels are reported, the run goes on
            for program, fn in kernel_list:
                report.findings.append(_internal(fn, names[fn.name], "the Z3 obligations", error))
    if options.sim:
        _simulate(front, options)
    return front


def _internal(fn: Function, kernel: str, stage: str, error: Exception) -> Finding:
    """A crash of ours on one kernel, as a PV999 finding naming the stage and the exception."""
    where = ""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
    message = f"{stage} failed on `{fn.name}`: {type(error).__name__}: {error}{where}"
    return Finding(rules.INTERNAL_ERROR, fn.span, message, kernel, fn.name)


def _prove(source: Module, lowered: Module, front: _Front, names: dict[str, str],
           options: CheckOptions) -> list[Finding]:
    from pypto_verify import smt

    form3 = all(front.sources.get(n) is None for n in names.values())
    outcomes = smt.prove_module(None if form3 else source, lowered, timeout_ms=options.timeout_ms,
                                cache=options.cache)
    findings = []
    by_kernel = {k.function: k for k in front.report.kernels}
    for outcome in outcomes:
        kernel = by_kernel.get(outcome.function)
        verdict = outcome.verdict.name.lower()
        if kernel is not None:
            kernel.obligations[verdict] = kernel.obligations.get(verdict, 0) + 1
        if outcome.verdict.name == "PROVED":
            continue
        rule = RULES[outcome.finding_rule]
        message = outcome.message
        if outcome.verdict.name != "REFUTED" and outcome.reason and outcome.reason not in message:
            message = f"{message} ({outcome.reason})"
        findings.append(Finding(rule, outcome.span, message, names.get(outcome.function, outcome.function),
                                outcome.function, counterexample=outcome.counterexample))
    return findings


# ---------------------------------------------------------------------------------------------- the run


def check(paths: list[str], options: CheckOptions, progress=None) -> CheckReport:
    """Check every file under *paths*; *progress(done, total)* is called as files finish."""
    started = time.perf_counter()
    files = collect_files(paths)
    cache = _Cache(options) if options.cache else None
    reports: dict[str, FileReport] = {}
    todo: list[str] = []
    for path in files:
        hit = cache.get(path) if cache else None
        if hit is not None:
            reports[str(path)] = hit
        else:
            todo.append(str(path))
    fronts = _run_front(todo, options, progress, done=len(reports), total=len(files))
    t_front = time.perf_counter()
    _run_datalog(fronts, options)
    _withdraw_sim(fronts)
    t_datalog = time.perf_counter()
    for front in fronts:
        _finish(front.report)
        reports[front.report.path] = front.report
        if cache:
            cache.put(Path(front.report.path), front.report)
    ordered = [reports[str(p)] for p in files if str(p) in reports]
    return CheckReport(ordered, options, {
        "front": t_front - started, "datalog": t_datalog - t_front, "total": time.perf_counter() - started})


def _run_front(paths: list[str], options: CheckOptions, progress, done: int, total: int) -> list[_Front]:
    jobs = options.jobs or os.cpu_count() or 1
    out: list[_Front] = []
    if jobs <= 1 or len(paths) <= 1:
        for path in paths:
            out.append(_safe_front(path, options))
            done += 1
            if progress:
                progress(done, total)
        return out
    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        for front in pool.map(_safe_front, paths, [options] * len(paths)):
            out.append(front)
            done += 1
            if progress:
                progress(done, total)
    return out


def _safe_front(path: str, options: CheckOptions) -> _Front:
    """`front_file`, except that an input nested deeper than the checker's recursion limit is that file's
    PV000 instead of stopping the run (other crashes of ours are PV999s inside `front_file`)."""
    try:
        return front_file(path, options)
    except RecursionError:
        report = FileReport(path, "input-error")
        report.findings.append(Finding(rules.INPUT_ERROR, Span(path, 1, 1),
                                       "kernel too deeply nested; the checker's recursion limit was reached", "", ""))
        return _Front(report)


def _run_datalog(fronts: list[_Front], options: CheckOptions) -> None:
    """One engine run over every lowered kernel of the run; findings go back to their files.

    When that run fails (an engine timeout on a file whose facts blow the rules up), each file is run
    on its own, so one such file costs only its own kernels: they get a PV999 saying so, and are not
    cached (`_Cache.put`), the rest are checked as usual.
    """
    from pypto_verify.engines.souffle_lang import EngineError

    kernels = [(front.report.path, name, fn) for front in fronts for name, fn in front.lowered]
    if not kernels:
        return
    by_path = {front.report.path: front for front in fronts}
    try:
        _datalog_findings(kernels, options, by_path)
    except EngineError:
        for front in fronts:
            mine = [(front.report.path, name, fn) for name, fn in front.lowered]
            if not mine:
                continue
            try:
                _datalog_findings(mine, options, by_path)
            except EngineError as error:
                for name, fn in front.lowered:
                    front.report.findings.append(Finding(
                        rules.INTERNAL_ERROR, fn.span,
                        f"the Datalog rules did not finish on this file ({error}); `{fn.name}` is not verified",
                        name, fn.name))


def _datalog_findings(kernels: list[tuple[str, str, Function]], options: CheckOptions,
                      by_path: dict[str, _Front]) -> None:
    relations, facts, names = datalog_relations(kernels, options)
    bad = {name: rows for name, rows in relations.items() if name.startswith("assert_") and rows}
    if bad:
        raise AssertionError(f"Datalog invariants violated (a bug in pypto-verify): {sorted(bad)}")
    for finding in datalog_findings(relations, facts, names):
        if finding.rule.id == rules.ACC_PHI.id:
            continue  # information only: `explain` prints it
        by_path[finding.span.path].report.findings.append(finding)


def _simulate(front: _Front, options: CheckOptions) -> None:
    """Emit and simulate every kernel of the file that has no error finding so far (in the worker, so files
    simulate in parallel); `_withdraw_sim` later skips the ones the Datalog rules then flag."""
    from pypto_verify.dynamic import simulate_kernel

    errors = {f.function for f in front.report.findings if f.severity is Severity.ERROR}
    lowered = dict(front.lowered)
    for kernel in front.report.kernels:
        low = lowered.get(kernel.name)
        if kernel.function in errors or low is None:
            kernel.sim, kernel.sim_reason = "skipped", "the kernel has error findings"
            continue
        source = front.sources.get(kernel.name)
        if source is None:
            kernel.sim, kernel.sim_reason = "skipped", "Form 3 input: no source to compare with"
            continue
        try:
            outcome = simulate_kernel(source, low, seed=options.seed, target=options.target)
        except Exception as error:  # our bug: the kernel is reported, the run goes on
            front.report.findings.append(_internal(source, kernel.name, "emission or simulation", error))
            kernel.sim, kernel.sim_reason = "skipped", f"internal error: {type(error).__name__}"
            continue
        kernel.sim, kernel.sim_reason = outcome.status, outcome.reason or outcome.message
        if outcome.status == "mismatch":
            front.report.findings.append(Finding(RULES[outcome.rule], source.span, outcome.message,
                                                 kernel.name, kernel.function))


def _withdraw_sim(fronts: list[_Front]) -> None:
    """Kernels with a Datalog error finding are not simulated (only verified kernels continue)."""
    for front in fronts:
        flagged = {f.function for f in front.report.findings
                   if f.severity is Severity.ERROR and f.rule.engine is Engine.DATALOG}
        for kernel in front.report.kernels:
            if kernel.function in flagged and kernel.sim != "skipped":
                kernel.sim, kernel.sim_reason = "skipped", "the kernel has error findings"
                front.report.findings = [f for f in front.report.findings
                                         if not (f.function == kernel.function and f.rule.engine is Engine.SIM)]


def _finish(report: FileReport) -> None:
    """Apply inline suppressions (reporting unused ones) and set each kernel's verdict."""
    try:
        text = Path(report.path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    wanted = suppressions(text)
    used: set[tuple[int, str]] = set()
    kept = []
    for f in report.findings:
        if f.span.path == report.path and f.rule.id in wanted.get(f.span.line, ()):
            used.add((f.span.line, f.rule.id))
            continue
        kept.append(f)
    for line, ids in sorted(wanted.items()):
        for rid in sorted(ids):
            if (line, rid) not in used:
                kept.append(Finding(rules.UNUSED_SUPPRESSION, Span(report.path, line, 1),
                                    f"`ignore[{rid}]` suppresses nothing on this line", "", ""))
    failed = {f.function for f in kept if f.severity is Severity.ERROR}
    unique: dict[tuple, Finding] = {}
    for f in kept:
        if f.rule.id == rules.INCONCLUSIVE.id and f.function in failed:
            continue  # the kernel already fails: an undecided obligation adds nothing
        unique.setdefault((f.rule.id, f.span, f.message), f)
    report.findings = sorted(unique.values(), key=Finding.sort_key)
    for kernel in report.kernels:
        mine = [f for f in report.findings if f.function == kernel.function]
        if any(f.severity is Severity.ERROR for f in mine):
            kernel.verdict = "findings"
        elif any(f.rule.id == rules.INCONCLUSIVE.id for f in mine):
            kernel.verdict = "inconclusive"
        else:
            kernel.verdict = "verified"


# ---------------------------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/pypto-verify` (or `~/.cache/pypto-verify`)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pypto-verify"


def _rules_digest() -> str:
    import importlib.resources

    h = hashlib.sha256()
    root = importlib.resources.files("pypto_verify.datalog")
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".dl"):
            h.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return h.hexdigest()


class _Cache:
    """Per-file results keyed by sha256 of (tool version, rules, engine, options, file and its siblings)."""

    def __init__(self, options: CheckOptions) -> None:
        from pypto_verify.engines.api import engine_version, pick_engine

        engine = pick_engine(options.engine)
        self.salt = "\0".join((__version__, _rules_digest(), engine_version(engine), options.key()))
        self.root = cache_dir() / "results"
        self.keys: dict[Path, str | None] = {}
        """The key of each file as `get` read it: `put` stores the result of exactly those contents."""

    def _key(self, path: Path) -> str | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        h = hashlib.sha256(self.salt.encode())
        h.update(data)
        for sibling in sorted(path.parent.glob("*.py")):
            if sibling != path and sibling.stem.encode() in data:
                h.update(sibling.name.encode())
                h.update(sibling.read_bytes())
        return h.hexdigest()

    def get(self, path: Path) -> FileReport | None:
        key = self.keys[path] = self._key(path)
        if key is None:
            return None
        entry = self.root / key[:2] / f"{key}.json"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return _report_from_json(data, str(path))

    def put(self, path: Path, report: FileReport) -> None:
        if any(f.rule is rules.INTERNAL_ERROR for f in report.findings):
            return  # a crash or an engine that ran out of time is no result to keep
        key = self.keys[path] if path in self.keys else self._key(path)
        if key is None:
            return
        entry = self.root / key[:2] / f"{key}.json"
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_suffix(".tmp")
            tmp.write_text(json.dumps(_report_to_json(report)), encoding="utf-8")
            tmp.replace(entry)
        except OSError:
            pass


def _report_to_json(report: FileReport) -> dict:
    return {"status": report.status, "sites": [s.to_json() for s in report.sites],
            "kernels": [k.to_json() for k in report.kernels],
            "findings": [f.to_json() for f in report.findings]}


def _report_from_json(data: dict, path: str) -> FileReport:
    sites = [Site(path, s["line"], s["function"], s["form"], s["loop"], s["condition"], s["accumulators"],
                  s["nesting"], s["consumer"]) for s in data["sites"]]
    kernels = [KernelReport(k["name"], k["function"], k["verdict"], k["sim"], k["sim_reason"], k["obligations"])
               for k in data["kernels"]]
    findings = [Finding(RULES[f["rule"]], Span(f["path"], f["line"], f["col"]), f["message"], f["kernel"],
                        f["function"], tuple(Note(Span(n["path"], n["line"], n["col"]), n["message"])
                                             for n in f["notes"]),
                        tuple(f["windows"]), tuple(f["values"]), tuple(f["producers"]), f["counterexample"])
                for f in data["findings"]]
    return FileReport(path, data["status"], sites, kernels, findings, cached=True)


__all__ = ["CheckOptions", "CheckReport", "FileReport", "KernelReport", "check", "collect_files",
           "suppressions", "front_file", "cache_dir", "lower_files", "datalog_relations"]


def lower_files(paths: list[str], options: CheckOptions) -> tuple[list[tuple[str, str, Function]], list[Finding]]:
    """(path, kernel name, lowered function) for every kernel under *paths* that lowers, and the input /
    lowering errors of the rest — the front half of `check`, without obligations (for `facts`, `explain`)."""
    kernels: list[tuple[str, str, Function]] = []
    errors: list[Finding] = []
    for path in collect_files(paths):
        front = front_file(str(path), replace(options, smt=False, sim=False))
        errors.extend(f for f in front.report.findings if f.severity is Severity.ERROR)
        kernels.extend((str(path), name, fn) for name, fn in front.lowered)
    return kernels, errors


def datalog_relations(kernels: list[tuple[str, str, Function]], options: CheckOptions):
    """Export *kernels* and run the rules once: (relations, facts, kernel names by id)."""
    from pypto_verify.engines.api import run_program
    from pypto_verify.facts import export_facts, write_facts
    import importlib.resources

    facts = export_facts([(p, fn) for p, _, fn in kernels], get_target(options.target))
    names = {k: kernels[k - 1][1] for k in range(1, len(kernels) + 1)}
    program = Path(str(importlib.resources.files("pypto_verify.datalog") / "main.dl"))
    with tempfile.TemporaryDirectory(prefix="pypto-verify-") as tmp:
        write_facts(facts, Path(tmp) / "facts")
        relations = run_program(program, Path(tmp) / "facts", engine=options.engine)
    return relations, facts, names
