"""Discharging obligations: one Z3 context and one solver per process, a verdict cache keyed by the
query text, and the three-way verdict.

Owns: `Verdict`, `Answer`, `discharge` and the verdict cache (ARCHITECTURE.md, "Caching"; STYLE.md §10).
Input: an `obligations.Obligation`. Output: an `Answer` — PROVED when the violation is unsatisfiable,
REFUTED with the witness values of a model, INCONCLUSIVE on unknown / timeout or when the model may
rest on an approximation (the reason is kept). An unknown is never a pass.

Performance. The query text is made without z3 (`encode.render`), so the cache is looked up first: a
fully cached run never imports z3. On a miss, z3 is imported once; the process keeps one context and
one solver, and each query is `push` / `parse_smt2_string` / `check` / `pop` with the per-query
timeout set on the solver. Verdicts are cached by sha256 of (z3's version, the query text) in an
sqlite file under `$XDG_CACHE_HOME/pypto-verify/smt/` (else `~/.cache/...`); unknowns are not cached,
so a longer timeout gets another try.
"""

from __future__ import annotations

import enum
import hashlib
import importlib.metadata
import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto_verify.smt import encode as E
from pypto_verify.smt.obligations import Obligation

DEFAULT_TIMEOUT_MS = 2000


class Verdict(enum.Enum):
    """What the solver says of an obligation (STYLE.md §1.4: never a bool)."""

    PROVED = "proved"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Answer:
    """The result of one query: verdict, witness values of the model (REFUTED), why (INCONCLUSIVE)."""

    verdict: Verdict
    values: dict[str, int | bool] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0
    """Solver time spent on this query in this run (0 for a cache hit)."""
    cached: bool = False


def query_text(ob: Obligation) -> str:
    """The SMT-LIB text of *ob*: its assumptions, its violation, its witnesses, `(check-sat)`."""
    return E.render((*ob.assumptions, ob.violation), ob.witnesses)


def dump_name(ob: Obligation) -> str:
    """`<kernel>.<site>.<rule>[.<case>].smt2` (STYLE.md §10), the site being the line of its first MAD."""
    site = ob.site.replace(":", ".")
    case = f".{ob.case}" if ob.case else ""
    return f"{site}.{ob.rule.id}{case}.smt2"


# ---------------------------------------------------------------------------------------------- cache


def z3_version() -> str:
    """Z3's version, read from the installed distribution's metadata (no z3 import)."""
    for dist in ("z3-solver", "z3_solver"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pypto-verify" / "smt"


class VerdictCache:
    """Raw solver answers (`sat` + witness values, or `unsat`) by sha256 of z3's version and the text."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or cache_dir()) / "verdicts.sqlite"
        self._db: sqlite3.Connection | None = None
        self.version = z3_version()

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, timeout=10)
                self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, answer TEXT NOT NULL)")
            except (OSError, sqlite3.Error):
                return None  # an unwritable cache only costs time
        return self._db

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.version}\n{text}".encode()).hexdigest()

    def get(self, text: str) -> dict[str, Any] | None:
        db = self._conn()
        if db is None:
            return None
        try:
            row = db.execute("SELECT answer FROM verdicts WHERE key = ?", (self.key(text),)).fetchone()
        except sqlite3.Error:
            return None
        return json.loads(row[0]) if row else None

    def put(self, text: str, answer: dict[str, Any]) -> None:
        db = self._conn()
        if db is None:
            return
        try:
            with db:
                db.execute("INSERT OR REPLACE INTO verdicts (key, answer) VALUES (?, ?)",
                           (self.key(text), json.dumps(answer, sort_keys=True)))
        except sqlite3.Error:
            pass


_CACHES: dict[Path, VerdictCache] = {}


def _cache() -> VerdictCache:
    directory = cache_dir()
    if directory not in _CACHES:
        _CACHES[directory] = VerdictCache(directory)
    return _CACHES[directory]


# ---------------------------------------------------------------------------------------------- solver

_Z3: Any = None
_CONTEXT: Any = None
_SOLVER: Any = None


def _solver() -> tuple[Any, Any, Any]:
    """The process's z3 module, context and solver, made on first use."""
    global _Z3, _CONTEXT, _SOLVER
    if _SOLVER is None:
        import z3  # noqa: PLC0415 - only when an obligation has to be solved (module docstring)

        _Z3 = z3
        _CONTEXT = z3.Context()
        _SOLVER = z3.Solver(ctx=_CONTEXT)
    return _Z3, _CONTEXT, _SOLVER


def _solve(text: str, witnesses: tuple[tuple[str, E.Term], ...], timeout_ms: int) -> dict[str, Any]:
    """Run one query: `{"answer": "sat" | "unsat" | "unknown", "values": ..., "reason": ...}`."""
    z3, ctx, solver = _solver()
    solver.push()
    try:
        solver.set("timeout", int(timeout_ms))
        solver.add(*z3.parse_smt2_string(text, ctx=ctx))
        result = solver.check()
        if result == z3.unsat:
            return {"answer": "unsat"}
        if result == z3.unknown:
            return {"answer": "unknown", "reason": solver.reason_unknown()}
        model = solver.model()
        values: dict[str, int | bool] = {}
        for name, term in witnesses:
            sort = z3.IntSort(ctx) if term.sort == E.INT else z3.BoolSort(ctx) if term.sort == E.BOOL else None
            if sort is None:
                continue
            value = model.eval(z3.Const("w!" + name, sort), model_completion=True)
            if term.sort == E.INT and z3.is_int_value(value):
                values[name] = value.as_long()
            elif term.sort == E.BOOL:
                values[name] = z3.is_true(value)
        return {"answer": "sat", "values": values}
    finally:
        solver.pop()


def discharge(ob: Obligation, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
              dump_smt: Path | None = None) -> Answer:
    """Decide *ob* (module docstring). An approximation in the obligation turns a model into
    INCONCLUSIVE: the counterexample might not exist in the kernel."""
    if ob.unposed:
        return Answer(Verdict.INCONCLUSIVE, reason=ob.unposed)
    text = query_text(ob)
    if dump_smt is not None:
        dump_smt.mkdir(parents=True, exist_ok=True)
        (dump_smt / dump_name(ob)).write_text(text)
    raw, seconds, cached = None, 0.0, False
    store = _cache() if cache else None
    if store is not None:
        raw = store.get(text)
        cached = raw is not None
    if raw is None:
        begin = time.perf_counter()
        raw = _solve(text, ob.witnesses, timeout_ms)
        seconds = time.perf_counter() - begin
        if store is not None and raw["answer"] != "unknown":
            store.put(text, raw)
    if raw["answer"] == "unsat":
        return Answer(Verdict.PROVED, seconds=seconds, cached=cached)
    if raw["answer"] == "unknown":
        reason = raw.get("reason") or "unknown"
        if reason in ("timeout", "canceled"):
            reason = f"the solver gave up after {timeout_ms} ms ({reason})"
        return Answer(Verdict.INCONCLUSIVE, reason=f"solver returned unknown: {reason}", seconds=seconds)
    values = {k: v for k, v in raw.get("values", {}).items()}
    if ob.approximations:
        return Answer(Verdict.INCONCLUSIVE, values, "relies on approximations: " + "; ".join(ob.approximations),
                      seconds, cached)
    return Answer(Verdict.REFUTED, values, seconds=seconds, cached=cached)
