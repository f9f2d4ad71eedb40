"""Discharging obligations: a Z3 context per batch, a verdict cache keyed by the query text, and
the three-way verdict.

Owns: `Verdict`, `Answer`, `discharge` / `discharge_all` and the verdict cache (ARCHITECTURE.md,
"Caching"; STYLE.md §10). Input: `obligations.Obligation`s. Output: an `Answer` each — PROVED when the
violation is unsatisfiable, REFUTED with the witness values of a model, INCONCLUSIVE on unknown /
timeout or when the model may rest on an approximation (the reason is kept). An unknown is never a pass.

Performance. The query text is made without z3 (`encode.render`), so the cache is looked up first: a
fully cached run never imports z3. A query whose violation folds to false under its assumptions is
proved without a solver, and so is a query this process's batches proved before (`_PROVED`; the
same terms from another site, kernel or file). A site whose every query left is refuted by its constants'
bounds (`boxes.refuted_by_box`: interval arithmetic; most GM windows, PV107) needs no batch either; where one
query is not, the batch is made as always, those queries among the others. The misses of one site are decided together
(`_solve_batch`): their terms are built as z3 terms directly (`_Builder`, z3's C API, each shared
subterm once; no SMT-LIB text is rendered or parsed for them), each query asserted under an indicator
literal (`(=> |!ob.k| (and assumptions violation))`) inside a `push` / `pop` on a `QF_UFLIA` solver;
each query is then one `check(|!ob.k|)`, which produces no model. Only a query the batch finds
satisfiable (a model to read) is run on its own, as its own text in a context of its own (`_solve`:
`parse_smt2_string` / `check`), so its model depends on the text alone.

Limits. What decides a verdict is z3's resource limit (`rlimit`, `RLIMIT` units per check: z3's own count
of its steps), never the clock: the same query gets the same answer on every run, machine and load
(issue 13: a PV107 count that changed with the machine's load). A wall-clock limit (`timeout_ms`,
`DEFAULT_TIMEOUT_MS`) stays as a last guard against a check whose steps z3 does not count; either limit
makes the query inconclusive (PV100) naming the limit. A check in a batch uses what the solver learnt from
the checks before it (a query alone may need far more steps), so a batch is made the same on every run: in
a context of its own, of all the site's non-trivial queries in order, cache hits and queries proved before
included, whenever one of them is not answered yet (checked up to the last one not answered: a check
learns only from those before it). Verdicts are cached by sha256 of (z3's version, the query text) in an
sqlite file under `$XDG_CACHE_HOME/pypto-verify/smt/` (else `~/.cache/...`), one transaction per
site; unknowns are not cached (a wall-clock guard may have cut them short). On the corpus (667 obligations
through the fixed lowering) this is about 0.4 s of solver time, against 2.2 s for one parse and check
per query.
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
from pypto_verify.smt.boxes import refuted_by_box
from pypto_verify.smt.obligations import Obligation

RLIMIT = 4_000_000
"""z3 resource units one check may use (`rlimit`; relative to the count at the start of the check). Calibrated
on pypto-lib (166 files, 4994 checks): the checks that prove or refute use at most 1.4 million units but one,
a PV107 window of `deepseek_v4_flash_dspark/decode_sparse_attn_hca.py` that needs 18 million in its batch
(about 4.5 s of CPU; under the old 2 s wall-clock limit it was proved or not as the machine's load went);
five queries there run past any budget tried (z3's nonlinear integer arithmetic). A check that uses the
whole budget takes about 1 s of CPU: at 30 million that file's 13 undecided windows took 50 s of CPU (the
library's critical path), at 4 million 7 s, one window more undecided (12)."""
DEFAULT_TIMEOUT_MS = 60_000
"""The wall-clock guard per check (`--timeout-ms`): far past the time `RLIMIT` takes, so it decides nothing
on any machine unless z3 stops counting its steps."""


class Verdict(enum.Enum):
    """What the solver says of an obligation (STYLE.md §1.4: never a bool)."""

    PROVED = "proved"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    CONDITIONAL = "conditional"
    """Violated only by some values of the kernel's run-time inputs (a value read from a tensor, a dynamic
    dimension, a scalar parameter): the obligation holds exactly when the inputs keep it (`reason` says
    which). Not a pass, not a refutation."""


@dataclass(frozen=True)
class Answer:
    """The result of one query: verdict, witness values of the model (REFUTED), why (INCONCLUSIVE)."""

    verdict: Verdict
    values: dict[str, int | bool] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0
    """Solver time spent on this query in this run (0 for a cache hit)."""
    cached: bool = False


@dataclass(frozen=True)
class _Query:
    """An obligation as it is sent: its assumptions without duplicates, its violation simplified under
    them (`encode.simplify_under`), its witnesses."""

    assumptions: tuple[E.Term, ...]
    violation: E.Term
    witnesses: tuple[tuple[str, E.Term], ...]

    @property
    def trivial(self) -> bool:
        """Unsatisfiable without a solver: the violation or an assumption folded to false."""
        return self.violation is E.FALSE or any(a is E.FALSE for a in self.assumptions)

    @property
    def key(self) -> tuple[E.Term, ...]:
        """The query's terms (witnesses aside, which a proof does not read): equal keys, equal verdicts."""
        return (*self.assumptions, self.violation)

    def text(self) -> str:
        return E.render((*self.assumptions, self.violation), self.witnesses)


def _query(ob: Obligation, memos: dict | None = None) -> _Query:
    assumptions, (violation,) = E.simplify_under(ob.assumptions, (ob.violation,), memos)
    return _Query(assumptions, violation, ob.witnesses)


def query_text(ob: Obligation) -> str:
    """The SMT-LIB text of *ob*: its assumptions, its violation, its witnesses, `(check-sat)`."""
    return _query(ob).text()


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
    from pypto_verify.cache_root import cache_root

    return cache_root() / "smt"


_ANSWERS = "models from a context of their own"
"""What a stored answer is, in its key: an answer stored by a version that solved in a shared context
carries a model of that process's history, and is not replayed."""


class VerdictCache:
    """Raw solver answers (`sat` + witness values, or `unsat`) by sha256 of z3's version and the text."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or cache_dir()) / "verdicts.sqlite"
        self._db: sqlite3.Connection | None = None
        self.version = z3_version()

    def _conn(self) -> sqlite3.Connection | None:
        if self._db is None:
            for attempt in (1, 2):
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    db = sqlite3.connect(self.path, timeout=10)
                    db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, answer TEXT NOT NULL)")
                    self._db = db
                    break
                except sqlite3.DatabaseError:
                    if attempt == 2 or not self._discard():
                        return None
                except (OSError, sqlite3.Error):
                    return None  # an unwritable cache only costs time
        return self._db

    def _discard(self) -> bool:
        """Remove a cache file that is not a database (it is rebuilt); False when it cannot be removed."""
        try:
            self.path.unlink()
            return True
        except OSError:
            return False

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.version}\n{_ANSWERS}\n{text}".encode()).hexdigest()

    def get(self, text: str) -> dict[str, Any] | None:
        db = self._conn()
        if db is None:
            return None
        try:
            row = db.execute("SELECT answer FROM verdicts WHERE key = ?", (self.key(text),)).fetchone()
        except sqlite3.Error:
            return None
        return _valid_answer(row[0]) if row else None  # an ill-shaped row is a miss, and is rewritten

    def put(self, text: str, answer: dict[str, Any]) -> None:
        self.put_many([(text, answer)])

    def put_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Store several answers in one transaction."""
        db = self._conn() if items else None
        if db is None:
            return
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO verdicts (key, answer) VALUES (?, ?)",
                               [(self.key(text), json.dumps(answer, sort_keys=True)) for text, answer in items])
        except sqlite3.Error:
            pass


def _valid_answer(text: Any) -> dict[str, Any] | None:
    """A stored answer as `_solve` made it (`unsat`, or `sat` with integer or boolean witness values), else
    None: a row of another shape (edited, truncated, another version's) is never read as a verdict."""
    try:
        raw = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(raw, dict) or raw.get("answer") not in ("sat", "unsat"):
        return None
    if raw["answer"] == "unsat":
        return {"answer": "unsat"}
    values = raw.get("values")
    if not isinstance(values, dict) or not all(isinstance(k, str) and isinstance(v, (int, bool))
                                               for k, v in values.items()):
        return None
    return {"answer": "sat", "values": values}


_CACHES: dict[Path, VerdictCache] = {}


def _cache() -> VerdictCache:
    directory = cache_dir()
    if directory not in _CACHES:
        _CACHES[directory] = VerdictCache(directory)
    return _CACHES[directory]


# ---------------------------------------------------------------------------------------------- solver

_Z3: Any = None


def _solver() -> Any:
    """The z3 module, imported on first use (the process's heap set up for z3's contexts: `_keep_freed_memory`)."""
    global _Z3
    if _Z3 is None:
        import z3  # noqa: PLC0415 - only when an obligation has to be solved (module docstring)

        _keep_freed_memory()
        _Z3 = z3
    return _Z3


MMAP_THRESHOLD, TRIM_THRESHOLD = 32 << 20, 64 << 20
"""glibc malloc's `M_MMAP_THRESHOLD` and `M_TRIM_THRESHOLD` for a process that solves: where its dynamic
thresholds end up by themselves once a 32 MiB block has been freed (the largest the dynamic rule allows)."""


def _keep_freed_memory() -> None:
    """Make glibc's malloc keep freed memory for the next z3 context instead of returning it to the system.

    Each batch has a context and a solver of its own (`_solve_batch`), about 17 MiB each, freed when the batch
    ends; with glibc's default thresholds the heap's top is trimmed at each free, so the next batch touched
    ~4 100 fresh pages again: 1.2 million page faults and 1.9 s of system time in `check corpus --no-sim`'s
    workers, 0.1 million and 0.3 s with the memory kept (a process holds up to `TRIM_THRESHOLD` of freed heap:
    the corpus's peak RSS is unchanged without simulation, +5 % with it). Elsewhere (not glibc) nothing changes."""
    import ctypes  # noqa: PLC0415 - only with z3

    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, ValueError):  # no confstr, or no such name or symbol: not glibc
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
    mallopt(m_mmap_threshold, MMAP_THRESHOLD)
    mallopt(m_trim_threshold, TRIM_THRESHOLD)


def _resources(solver: Any) -> int:
    """z3's resource count of *solver*'s context so far (`rlimit count`), read through z3's C API from the end of
    the statistics, where the solver appends it among its last few entries (`Statistics.keys` and
    `get_key_value` walk all ~50 entries twice, a Python call each: 0.16 ms a check)."""
    from z3 import z3core as api  # noqa: PLC0415 - with z3 (module docstring)

    ref = solver.ctx.ref()
    stats = api.Z3_solver_get_statistics(ref, solver.solver)
    api.Z3_stats_inc_ref(ref, stats)
    try:
        for index in reversed(range(api.Z3_stats_size(ref, stats))):
            if api.Z3_stats_get_key(ref, stats, index) == "rlimit count":
                if api.Z3_stats_is_uint(ref, stats, index):
                    return int(api.Z3_stats_get_uint_value(ref, stats, index))
                return int(api.Z3_stats_get_double_value(ref, stats, index))
        return 0
    finally:
        api.Z3_stats_dec_ref(ref, stats)


def _solve(text: str, witnesses: tuple[tuple[str, E.Term], ...], timeout_ms: int) -> dict[str, Any]:
    """Run one query: `{"answer": "sat" | "unsat" | "unknown", "values": ..., "reason": ..., "limit": ...}`
(`limit`: which limit an unknown ran into, `rlimit` or `timeout`, module docstring).

    In a context of its own: a model (the counterexample a finding reports) then depends on the text
    alone, not on what the process solved before (a shared context's term ids and a solver's learned
    state follow the history, and with them which model z3 finds), so a report is the same whichever
    files a worker had first, and the same as the verdict cache replays. About 2 ms a query, paid only
    by the queries the batch did not prove."""
    z3 = _solver()
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    solver.push()
    try:
        solver.set("timeout", int(timeout_ms))
        rlimit = RLIMIT
        solver.set("rlimit", rlimit)
        solver.add(*z3.parse_smt2_string(text, ctx=ctx))
        start = _resources(solver)
        result = solver.check()
        if result == z3.unsat:
            return {"answer": "unsat"}
        if result == z3.unknown:
            used = _resources(solver) - start
            return {"answer": "unknown", "reason": solver.reason_unknown(),
                    "limit": "rlimit" if used >= rlimit else "timeout"}
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


def _solve_batch(queries: list[_Query], timeout_ms: int, checked: int | None = None
                 ) -> list[tuple[dict[str, Any] | None, float]]:
    """Decide *queries* (one site's, all of them: module docstring, "Limits") together, in a context and on
    a solver of their own: each is asserted under an indicator literal,
    `(=> |!ob.k| (and assumptions violation))`, and checked with `check(|!ob.k|)`; their shared subterms
    are built once, as z3 terms made directly from ours (`_Builder`: no text to render or parse). Returns
    `({"answer": "unsat"}, seconds)` for a proof, an unknown with the limit it ran into (not retried: the
    query alone would start from less, within the same budget), and `(None, seconds)` where the query must
    be run on its own for its model; for the first *checked* queries only (all by default). Every query is
    asserted all the same, and a check learns only from the checks before it, so each of the first *checked*
    gets the answer it gets when all are checked: the checks after the last query still to answer (the others
    were answered before, by the cache or this process) are the ones left out."""
    z3 = _solver()
    begin = time.perf_counter()
    ctx = z3.Context()  # of its own: what the checks learn depends on this site's queries alone
    solver = z3.SolverFor("QF_UFLIA", ctx=ctx)
    out: list[tuple[dict[str, Any] | None, float]] = []
    build = _Builder(z3, ctx)
    try:
        solver.set("timeout", int(timeout_ms))
        solver.set("rlimit", RLIMIT)
        flags = [z3.Bool(f"{E.MARK}ob.{k}", ctx) for k in range(len(queries))]
        for flag, q in zip(flags, queries):
            build.assert_implied(solver, flag, E.and_(*q.assumptions, q.violation))
        setup = (time.perf_counter() - begin) / len(queries)
        for flag in flags[:checked]:
            start = time.perf_counter()
            used = _resources(solver)
            result = solver.check(flag)
            raw: dict[str, Any] | None = None
            if result == z3.unsat:
                raw = {"answer": "unsat"}
            elif result == z3.unknown:
                # decided: the query alone starts from less than the batch learnt, within the same budget
                raw = {"answer": "unknown", "reason": solver.reason_unknown(),
                       "limit": "rlimit" if _resources(solver) - used >= RLIMIT else "timeout"}
            out.append((raw, setup + time.perf_counter() - start))
    finally:
        build.release()
    return out


class _Builder:
    """Our terms as z3 terms of one context, each subterm made once, through z3's C API (`z3core`): the
    terms `parse_smt2_string` makes of `encode.render`'s text (a `define-fun` of no argument is a macro,
    so its uses are its body), without the text. Each made term holds one z3 reference until `release`."""

    def __init__(self, z3: Any, ctx: Any) -> None:
        from z3 import z3core  # noqa: PLC0415 - with z3 (module docstring)

        self.z3, self.ctx, self.ref, self.api = z3, ctx, ctx.ref(), z3core
        self.sorts = {E.INT: z3.IntSort(ctx), E.BOOL: z3.BoolSort(ctx)}
        self.made: dict[E.Term, Any] = {}
        """Term -> its z3 AST (a raw pointer, referenced once)."""
        self.functions: dict[str, tuple[tuple[tuple[str, ...], str], Any]] = {}
        """Function name -> (its signature, its z3 declaration)."""
        self.nary = {"+": z3core.Z3_mk_add, "*": z3core.Z3_mk_mul, "and": z3core.Z3_mk_and, "or": z3core.Z3_mk_or}
        self.binary = {"div": z3core.Z3_mk_div, "mod": z3core.Z3_mk_mod, "=": z3core.Z3_mk_eq,
                       "<": z3core.Z3_mk_lt, "<=": z3core.Z3_mk_le}

    def assert_implied(self, solver: Any, flag: Any, term: E.Term) -> None:
        """Assert `flag => term` on *solver*."""
        implied = self.z3.BoolRef(self.api.Z3_mk_implies(self.ref, flag.as_ast(), self.ast(term)), self.ctx)
        self.api.Z3_solver_assert(self.ref, solver.solver, implied.as_ast())

    def release(self) -> None:
        """Drop the references the made terms hold."""
        for ast in self.made.values():
            self.api.Z3_dec_ref(self.ref, ast)
        self.made.clear()

    def sort(self, name: str) -> Any:
        found = self.sorts.get(name)
        if found is None:
            found = self.sorts[name] = self.z3.DeclareSort(name, self.ctx)
        return found

    def ast(self, term: E.Term) -> Any:
        """*term* as a z3 AST."""
        stack = [term]
        made, inc, ref = self.made, self.api.Z3_inc_ref, self.ref
        while stack:
            t = stack[-1]
            if t in made:
                stack.pop()
                continue
            pending = [a for a in t.args if a not in made]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            ast = self._make(t)
            inc(ref, ast)
            made[t] = ast
        return made[term]

    def _make(self, t: E.Term) -> Any:
        api, ref, head = self.api, self.ref, t.head
        if head == "int":
            if -2**63 <= t.value < 2**63:
                return api.Z3_mk_int64(ref, t.value, self.sorts[E.INT].ast)
            return api.Z3_mk_numeral(ref, str(t.value), self.sorts[E.INT].ast)
        if head == "bool":
            return api.Z3_mk_true(ref) if t.value else api.Z3_mk_false(ref)
        if head == "const":
            return api.Z3_mk_const(ref, api.Z3_mk_string_symbol(ref, t.value), self.sort(t.sort).ast)
        args = [self.made[a] for a in t.args]
        if head in self.binary:
            return self.binary[head](ref, args[0], args[1])
        if head == "not":
            return api.Z3_mk_not(ref, args[0])
        if head == "ite":
            return api.Z3_mk_ite(ref, args[0], args[1], args[2])
        array = (self.z3.Ast * len(args))(*args)
        if head in self.nary:
            return self.nary[head](ref, len(args), array)
        if head == "app":
            signature = (tuple(a.sort for a in t.args), t.sort)
            found = self.functions.get(t.value)
            if found is None:
                decl = self.z3.Function(t.value, *(self.sort(s) for s in signature[0]), self.sort(t.sort))
                found = self.functions[t.value] = (signature, decl)
            # as `encode.render` (one declaration per name): a name used with two signatures is our bug
            assert found[0] == signature, f"function {t.value} used with two signatures"
            return api.Z3_mk_app(ref, found[1].ast, len(args), array)
        raise AssertionError(f"no z3 term for `{head}`")


def discharge(ob: Obligation, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
              dump_smt: Path | None = None) -> Answer:
    """Decide *ob* (module docstring). An approximation in the obligation turns a model into
    INCONCLUSIVE: the counterexample might not exist in the kernel."""
    return discharge_all([ob], timeout_ms=timeout_ms, cache=cache, dump_smt=dump_smt)[0]


def discharge_all(obs: list[Obligation], *, timeout_ms: int = DEFAULT_TIMEOUT_MS, cache: bool = True,
                  dump_smt: Path | None = None) -> list[Answer]:
    """Decide the obligations of one site (module docstring): each is looked up in the cache by its
    text; the misses are decided together (`_solve_batch`), and those the batch does not prove are run
    on their own for their model."""
    answers: list[Answer | None] = [None] * len(obs)
    store = _cache() if cache else None
    posed: list[_Query] = []
    """Every query of the site a solver decides on a cold run (the batch's queries: module docstring)."""
    pending: list[tuple[int, _Query, str | None]] = []
    solved: list[tuple[str, dict[str, Any]]] = []
    memos: dict = {}  # the site's obligations share most assumption sets (`encode.simplify_under`)
    for i, ob in enumerate(obs):
        if ob.unposed:
            answers[i] = Answer(Verdict.INCONCLUSIVE, reason=ob.unposed)
            continue
        query = _query(ob, memos)
        text = query.text() if store is not None or dump_smt is not None else None
        if dump_smt is not None:
            dump_smt.mkdir(parents=True, exist_ok=True)
            assert text is not None  # made above when dumping
            (dump_smt / dump_name(ob)).write_text(text)
        if query.trivial:
            answers[i] = Answer(Verdict.PROVED)
            continue
        posed.append(query)
        raw = store.get(text) if store is not None and text is not None else None  # text is made with a store
        if raw is not None:
            answers[i] = _answer(ob, raw, 0.0, True, timeout_ms)
            continue
        if query.key in _PROVED:
            answers[i] = Answer(Verdict.PROVED)
            if text is not None:
                solved.append((text, _PROVED[query.key]))  # stored under this text too, for the next run
            continue
        pending.append((i, query, text))
    if pending and all(refuted_by_box(query.key) for _, query, _ in pending):
        # every query left is refuted by its constants' bounds alone (`boxes`): no batch. Where one is not, the
        # batch is made and checked as it always is, these queries among the others (module docstring, "Limits")
        for i, _, _ in pending:
            answers[i] = Answer(Verdict.PROVED)
        pending = []
    if not pending:
        if store is not None:
            store.put_many(solved)
        return _filled(answers)
    unique: dict[tuple[E.Term, ...], _Query] = {}
    for query in posed:  # all of them, answered or not, so each check learns what it learns on a cold run
        unique.setdefault(query.key, query)  # a query posed twice in the site is decided once
    # the checks after the last query to answer would only answer queries answered before (`_solve_batch`)
    order = {key: position for position, key in enumerate(unique)}
    checked = 1 + max(order[query.key] for _, query, _ in pending)
    decided = dict(zip(unique, _solve_batch(list(unique.values()), timeout_ms, checked)))
    for i, query, text in pending:
        raw, seconds = decided[query.key]
        if raw is None:
            text = text if text is not None else query.text()
            begin = time.perf_counter()
            raw = _SOLVED.get(text) or _solve(text, query.witnesses, timeout_ms)
            seconds += time.perf_counter() - begin
            if raw["answer"] != "unknown":
                _remember(_SOLVED, text, raw, SOLVED_KEPT)
        elif raw["answer"] == "unsat":
            _remember(_PROVED, query.key, raw, PROVED_KEPT)
        if text is not None and raw["answer"] != "unknown":
            solved.append((text, raw))
        answers[i] = _answer(obs[i], raw, seconds, False, timeout_ms)
    if store is not None:
        store.put_many(solved)
    return _filled(answers)


_PROVED: dict[tuple[E.Term, ...], dict[str, Any]] = {}
"""The queries (`_Query.key`) this process's batches proved: a query posed again (another site, kernel or
file with the same terms) is proved without a solver. An unsat core is not history: the same query is
unsatisfiable whatever the solver decided before."""
_SOLVED: dict[str, dict[str, Any]] = {}
"""The answers `_solve` gave this process, by query text: a model read in a context of its own depends on
the text alone (`_solve`), so the same text gets the same answer."""
PROVED_KEPT, SOLVED_KEPT = 20_000, 1_000
"""The most queries `_PROVED` and `_SOLVED` hold (each is emptied when full: it only saves time, and holds
the terms, or the text, of what it keeps)."""


def _remember(memo: dict, key: Any, raw: dict[str, Any], limit: int) -> None:
    if len(memo) >= limit:
        memo.clear()
    memo[key] = raw


def _filled(answers: list[Answer | None]) -> list[Answer]:
    """*answers* once every obligation has one."""
    out = [a for a in answers if a is not None]
    assert len(out) == len(answers), "an obligation was left without an answer"
    return out


def _answer(ob: Obligation, raw: dict[str, Any], seconds: float, cached: bool, timeout_ms: int) -> Answer:
    if raw["answer"] == "unsat":
        return Answer(Verdict.PROVED, seconds=seconds, cached=cached)
    if raw["answer"] == "unknown":
        reason = raw.get("reason") or "unknown"
        if raw.get("limit") == "rlimit":
            reason = (f"the solver reached its resource limit of {RLIMIT} z3 rlimit units (a deterministic limit: "
                      "the same on every run)")
        elif reason in ("timeout", "canceled"):
            reason = (f"the solver gave up after {timeout_ms} ms of wall-clock time, the last guard ({reason}), "
                      "within its resource limit")
        return Answer(Verdict.INCONCLUSIVE, reason=f"solver returned unknown: {reason}", seconds=seconds)
    values = {k: v for k, v in raw.get("values", {}).items()}
    if ob.approximations:
        return Answer(Verdict.INCONCLUSIVE, values, "relies on approximations: " + "; ".join(ob.approximations),
                      seconds, cached)
    if ob.conditions:
        return Answer(Verdict.CONDITIONAL, values, "depends on run-time values: " + "; ".join(ob.conditions),
                      seconds, cached)
    return Answer(Verdict.REFUTED, values, seconds=seconds, cached=cached)
