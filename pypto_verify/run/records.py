"""The records of a run: frozen options, and per-kernel, per-file and whole-run results.

Owns: `Options` (everything that changes a result, and so the cache key), `Stage` (the chain's stages in
ARCHITECTURE.md's order), `KernelResult`, `FileResult`, `RunResult` and the exit code. Reporters read these
records (and `rules`, `findings`) only, never the chain; nothing outside `run/` builds a changed record
except through `dataclasses.replace` (filters return new records).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal

from pypto_verify import rules
from pypto_verify.findings import Finding
from pypto_verify.idiom import IdiomSite
from pypto_verify.rules import Severity


Mode = Literal["fixed", "legacy"]
"""The pass pipeline a run lowers with (`--pipeline`)."""


class Stage(enum.IntEnum):
    """The chain's stages, in order (ARCHITECTURE.md, "The run: one spine")."""

    READ = 1
    """frontend: file → IR, input errors (PV000), the idiom-site census"""
    LOWER = 2
    """the pass pipeline, one kernel at a time (Form 3 kernels are taken as given)"""
    FACTS = 3
    """fact export of every lowered kernel (in the worker, per file)"""
    DATALOG = 4
    """the engine runs over the facts of every file (one per batch of kernels: `chain.Engine`)"""
    PROVE = 5
    """Z3 obligations of the kernels with no error finding so far"""
    SIMULATE = 6
    """PTO emission, simulation and comparison with the reference, of the kernels with no error finding"""


DEADLINE = "(--timeout)"
"""Ends the message of a PV100 for a file out of its deadline: such a result is never cached (it is the
machine's load, not the file's)."""

ALL_STAGES: tuple[Stage, ...] = tuple(Stage)
"""Every stage, in order: what `check` runs."""


@dataclass(frozen=True)
class Options:
    """Everything that changes a result (and therefore the cache key)."""

    mode: Mode = "fixed"
    """The pass pipeline."""
    target: str = "a2a3"
    engine: str = "auto"
    sim: bool = True
    smt: bool = True
    cache: bool = True
    jobs: int = 0
    """Worker processes for the per-file and per-kernel stages; 0 = the number of cores."""
    timeout_ms: int = 60_000
    """The solver's wall-clock guard per query (`smt.solver.DEFAULT_TIMEOUT_MS`); verdicts are decided by its
    deterministic resource limit (`smt.solver.RLIMIT`)."""
    engine_timeout: float = 120.0
    """Seconds the Datalog engine may run on one batch of facts; past it the kernels are inconclusive."""
    seed: int = 0
    sim_bind: tuple[tuple[str, int], ...] = ()
    """`--sim-bind NAME=VALUE`: the values `pl.dynamic` sizes are simulated at (others: samples)."""
    dump_smt: str | None = None
    """A directory to write every Z3 query into (`prove --dump-smt`); not part of the key."""
    max_file_size: int = 4 * 1024 * 1024
    """Bytes a kernel file (or a module it imports) may have; past it the file is one PV000. Not part of the
    key: a file within the limit has the same result under any limit."""
    timeout: float = 300.0
    """Seconds each file's per-file stages (read, lower, facts) and again its per-kernel stages (prove,
    simulate) may take; past it the file's kernels are PV100, naming the stage. Such a result is not cached."""
    max_memory: int = 8 * 1024 ** 3
    """Bytes of address space a worker may map (RLIMIT_AS; 0: no cap); past it the stage is PV100."""

    def key(self) -> str:
        return (f"{self.mode}|{self.target}|{self.engine}|{self.sim}|{self.smt}|{self.timeout_ms}|"
                f"{self.engine_timeout:g}|{self.seed}" + (f"|{self.sim_bind}" if self.sim_bind else ""))


@dataclass(frozen=True)
class KernelResult:
    """The verdict of one kernel."""

    name: str
    """`Program.function`, or the function name for free functions."""
    function: str
    verdict: str = "verified"
    """`verified` | `conditional` | `findings` | `inconclusive`. `conditional`: every obligation is proved
    but some, which hold only for the run-time inputs listed in `conditions`."""
    sim: str = "skipped"
    """`match` | `mismatch` | `skipped`."""
    sim_reason: str = ""
    obligations: tuple[tuple[str, int], ...] = ()
    """Outcomes of the Z3 obligations by verdict (`proved`, `refuted`, `inconclusive`, `conditional`), in
    first-seen order."""
    conditions: tuple[str, ...] = ()
    """What the kernel's run-time inputs must satisfy (verdict `conditional`): each a conditional
    obligation, `PV107 at line 40: ...`."""

    @property
    def statement(self) -> str:
        """The verdict with what it rests on: `verified, simulated and matched`, `verified, not simulated:
        <reason>`, or the verdict itself."""
        if self.verdict == "conditional":
            more = f" (and {len(self.conditions) - 1} more)" if len(self.conditions) > 1 else ""
            return f"conditional on run-time inputs: {self.conditions[0] if self.conditions else '?'}{more}"
        if self.verdict != "verified":
            return self.verdict
        if self.sim == "match":  # a kernel with `pl.dynamic` sizes names the values: `match at T=32; T=40`
            at = self.sim_reason[len("match "):] if self.sim_reason.startswith("match at ") else ""
            return "verified, simulated and matched" + (f" {at}" if at else "")
        return f"verified, not simulated: {self.sim_reason or 'simulation was not run (--no-sim)'}"

    def to_json(self) -> dict:
        return {"name": self.name, "function": self.function, "verdict": self.verdict, "statement": self.statement,
                "sim": self.sim, "sim_reason": self.sim_reason, "obligations": dict(self.obligations),
                "conditions": list(self.conditions)}


@dataclass(frozen=True)
class FileResult:
    """The result of one file: its status, idiom sites, kernels and findings (sorted)."""

    path: str
    status: str = "ok"
    """`ok` | `input-error`."""
    sites: tuple[IdiomSite, ...] = ()
    kernels: tuple[KernelResult, ...] = ()
    findings: tuple[Finding, ...] = ()
    cached: bool = False
    seconds: tuple[tuple[str, float], ...] = field(default=(), compare=False)
    """Wall time of each per-file stage (`read`, `lower`, `facts`, `prove`, `simulate`); () when cached."""

    def verified_sites(self) -> int:
        """Idiom sites of kernels whose every obligation is proved (a suppressed finding does not count). A site
        the lowering removes (`IdiomSite.removed`) proves nothing and is not counted."""
        return self._sites_of("verified")

    def conditional_sites(self) -> int:
        """Idiom sites of kernels proved under conditions on their run-time inputs (verdict `conditional`): every
        obligation proved or conditional, none refuted or undecided. Counted apart from the verified ones."""
        return self._sites_of("conditional")

    def _sites_of(self, verdict: str) -> int:
        functions = {k.function for k in self.kernels if k.verdict == verdict}
        return sum(1 for s in self.sites if s.function in functions and not s.removed)

    def to_json(self) -> dict:
        return {"path": self.path, "status": self.status, "sites": len(self.sites),
                "verified_sites": self.verified_sites(), "conditional_sites": self.conditional_sites(),
                "kernels": [k.to_json() for k in self.kernels]}


@dataclass(frozen=True)
class Shard:
    """Which part of a sharded run a result is (`check --shard I/N`), so `merge` can rebuild the whole."""

    index: int
    """1-based, at most `count`."""
    count: int
    total: int
    """How many files the whole (unsharded) run collected."""
    positions: tuple[int, ...]
    """Each checked file's position in the whole run's collection order (the order of the report)."""


@dataclass(frozen=True)
class RunResult:
    """A whole run: every file's result in the order the files were collected."""

    files: tuple[FileResult, ...]
    options: Options
    seconds: tuple[tuple[str, float], ...] = field(default=(), compare=False)
    """Wall time per stage group (`front`, `datalog`, `back`, `total`), for benchmarks."""
    shard: Shard | None = None
    """Set when this is one shard of a run (`check --shard`); None for a whole run."""

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)

    @property
    def kernels(self) -> list[KernelResult]:
        return [k for f in self.files for k in f.kernels]

    @property
    def sites(self) -> int:
        return sum(len(r.sites) for r in self.files)

    @property
    def verified_sites(self) -> int:
        return sum(r.verified_sites() for r in self.files)

    @property
    def conditional_sites(self) -> int:
        return sum(r.conditional_sites() for r in self.files)

    def exit_code(self, strict: bool = False) -> int:
        """The exit code (README, "Exit codes"): 4 when pypto-verify itself failed on a kernel (PV999: the
        run is incomplete, whatever else it found), else 1 for error findings, 2 for input errors and
        nothing worse, 3 for inconclusive (or conditional) under --strict, 0 clean."""
        findings = self.findings
        if any(f.rule.id == rules.INTERNAL_ERROR.id for f in findings):
            return EXIT_INTERNAL
        if any(f.severity is Severity.ERROR and f.rule.id != rules.INPUT_ERROR.id for f in findings):
            return EXIT_FINDINGS
        if any(f.rule.id == rules.INPUT_ERROR.id for f in findings):
            return EXIT_USAGE
        if strict and (any(f.rule.id == rules.INCONCLUSIVE.id for f in findings)
                       or any(k.verdict == "conditional" for k in self.kernels)):
            return EXIT_INCONCLUSIVE
        return EXIT_CLEAN


EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4
"""`check`'s exit codes: clean; error findings (or `--min-sites` not met); input (PV000) or usage errors only;
inconclusive or conditional under `--strict`; an internal error (PV999) — a bug of ours, not the kernel's."""
