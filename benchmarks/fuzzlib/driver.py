"""The fuzz run: choose the candidates, judge them in a worker pool, and tally escapes and precision.

`run_fuzz(Config)` returns the whole report as a JSON-ready dict (`summary` + one record per candidate);
`render(report)` is its human summary. Phases:

1. Baselines: every corpus kernel, trimmed to itself (`mutate.load_kernel`), is checked and simulated once; a
   kernel is mutated only when its trimmed original verifies, simulates to its reference, and costs at most
   `max_sim_seconds` to simulate (the cost of judging each of its mutants).
2. Mutants: every first-order mutation of every kept kernel, sampled round-robin over the mutation kinds (so a
   rare kind is not crowded out), then higher-order mutants (2 or 3 stacked mutations) when more are asked for
   than there are first-order ones. Duplicate texts are skipped.
3. Generated programs: `generate.program` with a per-index seed.

An *escape* is a candidate the oracle finds wrong and the static check verifies. A *false alarm* is one the
static check flags (findings, rejected by the reader, inconclusive) and the oracle finds equivalent; precision
per rule is, among the flagged candidates a rule fired on and the oracle judged, the share that are wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

from . import generate, mutate
from .judge import Baseline, Judgement, Settings, Task, baseline_batch, judge_batch, worker_init

ROOT = Path(__file__).resolve().parents[2]
FLAGGED = ("findings", "rejected", "inconclusive", "conditional")


@dataclass
class Config:
    """One fuzz run (the options of `benchmarks/fuzz.py`)."""

    mutants: int = 100
    generated: int = 100
    seed: int = 0
    jobs: int = 1
    batch: int = 8
    """Candidates per worker task (one Datalog run each)."""
    corpus: tuple[str, ...] = (str(ROOT / "corpus"),)
    kernels: tuple[str, ...] = ()
    """Only these kernels (`function` or `Program.function` names); all when empty."""
    max_sim_seconds: float = 2.0
    """Skip kernels whose original takes longer to simulate (each of their mutants costs as much)."""
    timeout: float = 60.0
    defect_rate: float = 0.5
    target: str = "a2a3"
    engine: str = "auto"
    escapes_dir: str | None = None
    """Write each wrong, verified candidate's text here (`escape_<id>_<kind>.py`)."""
    journal: str | None = None
    """Append every candidate's record to this JSON-lines file as soon as it is judged."""
    resume: bool = False
    """Do not judge again the candidates already in `journal` (an interrupted run of the same configuration)."""
    progress: bool = True


@dataclass
class KernelRef:
    path: str
    kernel: str
    function: str
    line: int
    key: str


# ---------------------------------------------------------------------------------------------- the candidates


def corpus_kernels(paths: Iterable[str], only: tuple[str, ...] = ()) -> list[KernelRef]:
    """Every kernel of the files under *paths* (read by the project's frontend), in file order."""
    from pypto_verify.run.chain import read_stage
    from pypto_verify.run.inputs import collect_files

    out = []
    for path in collect_files(list(paths)):
        work = read_stage(str(path))
        for k in work.kernels:
            if only and k.function not in only and k.name not in only:
                continue
            if k.form3:
                continue
            key = re.sub(r"[^A-Za-z0-9_]", "_", f"{Path(path).stem}__{k.name}")
            out.append(KernelRef(str(path), k.name, k.function, k.read.span.line, key))
    return out


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def mutant_tasks(kernels: list[tuple[KernelRef, mutate.KernelSource]], count: int, seed: int,
                 first_id: int) -> list[Task]:
    """*count* distinct mutants: first-order ones round-robin over kinds, then higher-order ones."""
    rng = random.Random(f"{seed}-mutants")
    # every first-order candidate, enumerated once (a pure walk of each tree), also drawn from below
    flat = [(i, c) for i, (_, s) in enumerate(kernels) for c in mutate.first_order(s)]
    by_kind: dict[str, list[tuple[int, mutate.Candidate]]] = defaultdict(list)
    for index, cand in flat:
        by_kind[cand.kind].append((index, cand))
    for kind in sorted(by_kind):
        rng.shuffle(by_kind[kind])
    order: list[tuple[int, mutate.Candidate]] = []
    queues = [by_kind[k] for k in sorted(by_kind)]
    while any(queues) and len(order) < count:
        for queue in queues:
            if queue and len(order) < count:
                order.append(queue.pop())
    seen: set[str] = {_digest(s.text()) for _, s in kernels}
    tasks: list[Task] = []
    for index, cand in order:
        ref, source = kernels[index]
        mutant = mutate.make_mutant(source, [cand])
        if mutant is not None:
            _add_mutant(tasks, seen, ref, source, mutant, first_id)
    attempts = 0
    while len(tasks) < count and flat and attempts < 20 * count:
        attempts += 1
        index, cand = rng.choice(flat)
        ref, source = kernels[index]
        mutant = mutate.make_mutant(source, [cand], rng=rng, order=rng.choice([2, 2, 3]))
        if mutant is not None:
            _add_mutant(tasks, seen, ref, source, mutant, first_id)
    tasks.sort(key=lambda t: (t.baseline, t.id))
    return tasks


def _add_mutant(tasks: list[Task], seen: set[str], ref: KernelRef, source: mutate.KernelSource,
                mutant: mutate.Mutant, first_id: int) -> None:
    digest = _digest(mutant.text)
    if digest in seen:
        return
    seen.add(digest)
    first = mutant.mutations[0]
    meta = {"source": ref.path, "kernel": ref.kernel, "line": mutant.line,
            "mutations": [asdict(m) for m in mutant.mutations],
            "label": "+".join(f"{m.kind}:{m.variant}" if m.variant else m.kind for m in mutant.mutations),
            "before": first.before, "after": first.after}
    tasks.append(Task(first_id + len(tasks), "mutant", mutant.kind, mutant.text, ref.function, ref.kernel,
                      ref.path, source.siblings, ref.key, (), meta))


def generated_tasks(count: int, seed: int, first_id: int, defect_rate: float, target: str) -> list[Task]:
    tasks = []
    for i in range(count):
        program = generate.program(random.Random(f"{seed}-generated-{i}"), defect_rate, target)
        meta = dict(program.meta)
        meta["label"] = program.kind
        tasks.append(Task(first_id + i, "generated", program.kind, program.text, program.function, "Generated.main",
                          "", (), "", program.oracle, meta))
    return tasks


# ---------------------------------------------------------------------------------------------- the pool


def _batches(tasks: list[Task], size: int) -> Iterator[list[Task]]:
    for i in range(0, len(tasks), size):
        yield tasks[i:i + size]


def _pool_map(fn: Callable, batches: list[list[Task]], settings: Settings, jobs: int,
              tick: Callable[[int], None], each: Callable[[list], None] | None = None) -> list:
    """*fn*(batch, settings) over *batches*, in a pool of *jobs* workers (in this process when 1); *each* is
    called with every batch's results as they come."""
    out: list = []
    if jobs <= 1:
        worker_init()
        for batch in batches:
            result = fn(batch, settings)
            out.extend(result)
            if each:
                each(result)
            tick(len(batch))
        return out
    with ProcessPoolExecutor(max_workers=jobs, initializer=worker_init) as pool:
        pending: set[Future] = set()
        queue = list(batches)
        queue.reverse()
        while queue or pending:
            while queue and len(pending) < 3 * jobs:
                batch = queue.pop()
                future = pool.submit(fn, batch, settings)
                future.size = len(batch)  # type: ignore[attr-defined]
                pending.add(future)
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()
                out.extend(result)
                if each:
                    each(result)
                tick(future.size)  # type: ignore[attr-defined]
    return out


class _Progress:
    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self.done = 0
        self.started = time.perf_counter()
        self.last = 0.0

    def __call__(self, count: int) -> None:
        self.done += count
        now = time.perf_counter()
        if self.enabled and (now - self.last > 5 or self.done == self.total):
            self.last = now
            rate = self.done / max(now - self.started, 1e-9)
            print(f"  {self.label}: {self.done}/{self.total} ({rate:.2f}/s)", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- the run


def run_fuzz(config: Config) -> dict:
    """The whole fuzz run (module docstring): the report as a JSON-ready dict."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pypto-fuzz-baselines-") as folder:
        settings = Settings(seed=config.seed, target=config.target, engine=config.engine, timeout=config.timeout,
                            baselines=folder)
        kept: list[tuple[KernelRef, mutate.KernelSource]] = []
        baselines: dict[str, dict] = {}
        baseline_seconds = 0.0
        if config.mutants > 0:
            refs = corpus_kernels(config.corpus, config.kernels)
            sources = {}
            tasks = []
            for ref in refs:
                try:
                    source = mutate.load_kernel(ref.path, ref.kernel, ref.function, ref.line)
                except (ValueError, SyntaxError) as error:
                    baselines[ref.key] = {"kernel": ref.kernel, "path": ref.path, "kept": False, "reason": str(error)}
                    continue
                sources[ref.key] = (ref, source)
                tasks.append(Task(len(tasks), "baseline", "baseline", source.text(), ref.function, ref.kernel,
                                  ref.path, source.siblings, ref.key))
            begun = time.perf_counter()
            progress = _Progress("baselines", len(tasks), config.progress)
            results: list[tuple[str, Baseline]] = _pool_map(baseline_batch, list(_batches(tasks, config.batch)),
                                                            settings, config.jobs, progress)
            baseline_seconds = time.perf_counter() - begun
            for key, base in sorted(results, key=lambda item: item[0]):
                ref, source = sources[key]
                ok = base.verdict == "verified" and base.sim == "match" and base.seconds <= config.max_sim_seconds
                reason = "" if ok else (base.reason or f"{base.verdict}, sim {base.sim}") if \
                    base.seconds <= config.max_sim_seconds or base.verdict != "verified" or base.sim != "match" \
                    else f"simulation takes {base.seconds:.1f} s > {config.max_sim_seconds:g} s"
                baselines[key] = {"kernel": ref.kernel, "path": _rel(ref.path), "kept": ok, "verdict": base.verdict,
                                  "sim": base.sim, "seconds": round(base.seconds, 3), "reason": reason}
                if ok:
                    kept.append((ref, source))
            kept.sort(key=lambda item: item[0].key)
        mutants = mutant_tasks(kept, config.mutants, config.seed, 0) if kept else []
        generated = generated_tasks(config.generated, config.seed, len(mutants) + 1_000_000, config.defect_rate,
                                    config.target)
        timings: dict[str, float] = {}
        counts: dict[str, int] = {}
        by_id = {t.id: t for t in (*mutants, *generated)}
        done = _journal_records(config.journal, by_id) if config.journal and config.resume else {}
        journal = open(config.journal, "a", encoding="utf-8") if config.journal else None

        def record(results: list[Judgement]) -> None:
            for j in results:
                done[j.id] = _record(by_id[j.id], j)
                if journal:
                    journal.write(json.dumps(done[j.id], default=str) + "\n")
            if journal:
                journal.flush()

        try:
            for family, tasks in (("mutant", mutants), ("generated", generated)):
                begun = time.perf_counter()
                todo = [t for t in tasks if t.id not in done]
                counts[family] = len(todo)
                progress = _Progress(family + "s", len(todo), config.progress)
                _pool_map(judge_batch, list(_batches(todo, config.batch)), settings, config.jobs, progress, record)
                timings[family] = time.perf_counter() - begun
        finally:
            if journal:
                journal.close()
    records = [done[t.id] for t in (*mutants, *generated)]
    if config.escapes_dir:
        _write_escapes(config.escapes_dir, [r for r in records if r["judgement"] == "wrong" and r["verdict"] == "verified"])
    summary = summarise(records)
    summary["config"] = {k: v for k, v in asdict(config).items() if k not in ("progress",)}
    summary["config"]["corpus"] = [_rel(p) for p in config.corpus]
    summary["baselines"] = {"kernels": len(baselines), "kept": sum(1 for b in baselines.values() if b["kept"]),
                            "seconds": round(baseline_seconds, 1),
                            "skipped": {k: b["reason"] for k, b in sorted(baselines.items()) if not b["kept"]}}
    summary["seconds"] = {"total": round(time.perf_counter() - started, 1),
                          **{k: round(v, 1) for k, v in timings.items()}}
    summary["throughput"] = {k: round(n / timings[k], 3) if timings.get(k) and n else None
                             for k, n in counts.items()}
    summary["judged_now"] = counts
    summary["cores"] = os.cpu_count()
    summary["commit"] = _commit()
    return {"tool": "pypto-verify fuzz", "summary": summary, "records": records}


def _commit() -> str:
    """The checked-out commit, `+dirty` when the tree has uncommitted changes (the run used them)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _rel(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return path


def _record(task: Task, j: Judgement) -> dict:
    record = {"id": task.id, "family": task.family, "kind": task.kind, **j.to_json()}
    meta = dict(task.meta)
    if "source" in meta:
        meta["source"] = _rel(meta["source"])
    record.update(meta)
    if j.escape or (j.verdict in FLAGGED and j.judgement == "equivalent"):
        record["text"] = task.text
    return record


def _write_escapes(folder: str, records: list[dict]) -> None:
    """Each wrong, verified candidate's text, with a header saying what it is (escapes, limits, unclaimed)."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    for r in records:
        safe = re.sub(r"[^A-Za-z0-9_]+", "_", r["kind"])[:60]
        header = (f"# fuzz: wrong and verified, {r['id']}: {r['family']} {r.get('label', r['kind'])}"
                  f" of {r.get('source') or 'generated'} {r.get('kernel') or ''}\n# oracle: {r['why']}: {r['detail']}\n")
        Path(folder, f"escape_{r['id']}_{safe}.py").write_text(header + r.get("text", ""), encoding="utf-8")


def _journal_records(path: str, tasks: dict[int, Task]) -> dict[int, dict]:
    """The records of a journal written by an earlier, interrupted run of the same configuration: those whose
    candidate is the same text as this run's (by id)."""
    out: dict[int, dict] = {}
    if not Path(path).exists():
        return out
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by the interruption
        task = tasks.get(r.get("id"))
        if task is not None and r.get("kind") == task.kind:
            out[r["id"]] = r
    return out


# ---------------------------------------------------------------------------------------------- tallies


UNCLAIMED = {
    "slice_shift_mn": "an in-bounds window of another row / column block: another valid kernel, and no rule can "
                      "know which block was meant (PV107 claims only that the window is inside its tensor)",
    "loop_mn": "a loop over output tiles (its variable reaches no K offset) that stays in bounds: some output tiles "
               "are not written, or written twice; no rule claims that every output element is written once",
    "drain_shift": "an in-bounds write of the tile at another offset: no rule claims where an output tile goes, "
                   "only that it stays inside its tensor (PV107)",
    "drain_drop:derived": "the accumulator is still drained (into the vector op that derives the stored value); "
                          "only a GM output goes unwritten, and no rule claims that every output is written",
}
"""Wrong-and-verified candidates no rule of L0C_RULES.md claims to catch (docs/RELIABILITY.md, "Scope"): counted
apart from the escapes. A higher-order mutant whose source is wrong (not ill-formed, not out of bounds) and whose
lowering is faithful is unclaimed when one of its meaning-changing mutations is: that change may make the others
meaning-preserving (arms swapped and the test negated; `kk >= 0` on a loop left with one trip). An attribution,
not a proof: docs/RELIABILITY.md lists these apart."""


LIMITS = {
    "subrange": "README, Known limits: PV106 cannot tell a K loop that deliberately covers a sub-range by whole "
                "blocks from one that stops a block early",
    "offset": "README, Known limits: PV106 cannot tell two operands offset by a constant on purpose from a "
              "misaligned pair",
}
"""Wrong-and-verified candidates that a rule claims but the README lists among its known limits: counted apart
from the escapes (the limit is documented), never silently."""
COVERAGE_DEFECTS = {"stop_short", "start_late", "step_double", "no_tail"}


def limit(r: dict) -> str:
    """The documented limit a wrong, verified candidate falls under ('' when none): a K loop of a single
    (not nested) reduction covering a contiguous sub-range of whole blocks, or one operand's K window shifted
    by a constant."""
    if r["family"] == "generated":
        # Form 2: the source is wrong and its lowering faithful; Form 3 (no source): the simulation is all
        faithful = r["why"] == "source differs" or (r["why"] == "simulation differs" and r.get("form") == "form3")
        if faithful and r.get("coverage") == "subrange" and r.get("defect") in COVERAGE_DEFECTS:
            return LIMITS["subrange"]
        return ""
    if r["why"] != "source differs":  # the lowering faithful to a wrong source: a source-level limit
        return ""
    changes = _changes(r)
    reasons = [_limit_of(r, m) for m in changes]
    if len(changes) > 1:  # higher-order: one limited change may make the others meaning-preserving
        return next((reason for reason in reasons if reason), "")
    return reasons[0] if reasons and reasons[0] else ""


def _limit_of(r: dict, m: dict) -> str:
    if m["kind"] == "loop" and not m["variant"].startswith("nested_") and _contiguous(r, m):
        return LIMITS["subrange"]
    if m["kind"] == "slice_shift_k":
        return LIMITS["offset"]
    return ""


NEUTRAL = ("loop_equiv", "cond:commute")
"""Mutations that preserve meaning by construction (a loop kind or stage changed, a comparison commuted): in a
higher-order mutant they do not decide whether it is claimed, limited or an escape."""


def _changes(r: dict) -> list[dict]:
    """The mutations of a mutant that may change its meaning (all of them when every one is neutral)."""
    mutations = r.get("mutations", [])
    changing = [m for m in mutations if m["kind"] not in NEUTRAL and f"{m['kind']}:{m['variant']}" not in NEUTRAL]
    return changing or mutations


def _contiguous(r: dict, m: dict) -> bool:
    """The changed K loop (of a reduction no other K loop shares) runs a contiguous run of whole blocks of the
    loop it was, each once (a sub-range, or a range one block longer inside the tensor): the documented limit.
    False when its bounds are not constants (then it counts as an escape)."""
    env = mutate.module_constants(str(ROOT / r["source"]))
    blocks = mutate.loop_blocks(m["before"], m["after"], env)
    if blocks is None or any(b != int(b) for b in blocks):
        return False
    if not blocks:
        return True  # the loop runs no more: what is left (a peeled first block) is a contiguous run
    if min(blocks) > 0 and m["before"] in mutate.peeled_loops(str(ROOT / r["source"]), r["kernel"].split(".")[-1]):
        return False  # a loop after a peeled seed that now starts later leaves a gap after the seed
    ints = [int(b) for b in blocks]
    return len(set(ints)) == len(ints) and sorted(ints) == list(range(min(ints), max(ints) + 1))


def unclaimed(r: dict) -> str:
    """Why a wrong, verified candidate lies outside every rule's claim ('' when some rule claims it)."""
    if r["family"] != "mutant" or not r.get("mutations"):
        return ""
    if r["why"] not in ("source differs", "simulation differs"):
        return ""  # out of bounds, ill-formed, rejected by the simulator: claimed (PV107, PV000, PV202)
    changes = _changes(r)
    reasons = [UNCLAIMED.get(f"{m['kind']}:{m['variant']}") or UNCLAIMED.get(m["kind"]) or "" for m in changes]
    if len(changes) > 1:  # higher-order: an unclaimed change may make the others meaning-preserving
        return next((reason for reason in reasons if reason), "")
    return reasons[0] if reasons else ""


def _row() -> dict:
    return {"n": 0, "verified": 0, "flagged": 0, "wrong": 0, "equivalent": 0, "unjudged": 0, "escapes": 0,
            "limits": 0, "unclaimed": 0, "false_alarms": 0}


def _tally(row: dict, r: dict) -> None:
    row["n"] += 1
    if r["verdict"] == "verified":
        row["verified"] += 1
    elif r["verdict"] in FLAGGED:
        row["flagged"] += 1
    row[r["judgement"]] += 1
    if r["judgement"] == "wrong" and r["verdict"] == "verified":
        row["unclaimed" if r.get("unclaimed") else "limits" if r.get("limit") else "escapes"] += 1
    if r["judgement"] == "equivalent" and r["verdict"] in FLAGGED:
        row["false_alarms"] += 1


def summarise(records: list[dict]) -> dict:
    """The tallies of a run: per family, per kind (mutants: the mutation kind, `higher-order` for stacked
    ones; generated: `form:defect`), per rule (precision), the escapes, and the verdict x judgement table."""
    families: dict[str, dict] = defaultdict(_row)
    kinds: dict[str, dict] = defaultdict(_row)
    labels: dict[str, dict] = defaultdict(_row)
    per_rule: dict[str, dict] = defaultdict(lambda: {"flagged": 0, "wrong": 0, "equivalent": 0, "unjudged": 0})
    table: Counter = Counter()
    escapes = []
    outside = []
    limited = []
    for r in records:
        if r["judgement"] == "wrong" and r["verdict"] == "verified":
            r["unclaimed"] = unclaimed(r)
            r["limit"] = "" if r["unclaimed"] else limit(r)
        _tally(families[r["family"]], r)
        kind = r["kind"] if r["family"] == "generated" or "+" not in r["kind"] else "higher-order"
        _tally(kinds[f"{r['family']}:{kind}"], r)
        _tally(labels[f"{r['family']}:{r.get('label', r['kind'])}"], r)
        table[(r["family"], r["verdict"], r["judgement"])] += 1
        if r["verdict"] in FLAGGED:
            for rule in r["rules"]:
                per_rule[rule]["flagged"] += 1
                per_rule[rule][r["judgement"]] += 1
        if r["judgement"] == "wrong" and r["verdict"] == "verified":
            entry = {k: r.get(k) for k in ("id", "family", "kind", "label", "source", "kernel", "line", "before",
                                           "after", "why", "deviation", "detail", "defect", "coverage", "unclaimed",
                                           "limit")}
            (outside if r["unclaimed"] else limited if r["limit"] else escapes).append(entry)
    for row in per_rule.values():
        judged = row["wrong"] + row["equivalent"]
        row["precision"] = round(row["wrong"] / judged, 4) if judged else None
    return {"families": dict(families), "kinds": dict(sorted(kinds.items())), "labels": dict(sorted(labels.items())),
            "rules": dict(sorted(per_rule.items())), "escapes": escapes, "limits": limited, "unclaimed": outside,
            "table": [{"family": f, "verdict": v, "judgement": j, "n": n} for (f, v, j), n in sorted(table.items())]}


# ---------------------------------------------------------------------------------------------- rendering


def render(report: dict) -> str:
    """The human summary of a report."""
    s = report["summary"]
    lines = []
    c = s.get("config", {})
    lines.append(f"fuzz: seed {c.get('seed')}, {c.get('jobs')} jobs, {s['seconds']['total']} s "
                 f"(mutants {s['seconds'].get('mutant', 0)} s, generated {s['seconds'].get('generated', 0)} s); "
                 f"candidates per second {s['throughput']}")
    b = s.get("baselines", {})
    if b.get("kernels"):
        lines.append(f"baselines: {b['kept']} of {b['kernels']} corpus kernels mutated ({b['seconds']} s); "
                     f"{len(b['skipped'])} skipped (not verified as trimmed, or slower to simulate than "
                     f"{c.get('max_sim_seconds')} s)")
    for family, row in s["families"].items():
        lines.append(f"{family}: {row['n']} — verified {row['verified']}, flagged {row['flagged']}; "
                     f"wrong {row['wrong']}, equivalent {row['equivalent']}, unjudged {row['unjudged']}; "
                     f"ESCAPES {row['escapes']}, documented limits {row['limits']}, unclaimed {row['unclaimed']}, "
                     f"false alarms {row['false_alarms']}")
    lines.append("")
    lines.append(f"{'kind':42} {'n':>6} {'verif':>6} {'flag':>6} {'wrong':>6} {'equiv':>6} {'unjdg':>6} "
                 f"{'ESC':>5} {'limit':>5} {'uncl':>5} {'FA':>5}")
    for kind, row in s["kinds"].items():
        lines.append(f"{kind[:42]:42} {row['n']:6} {row['verified']:6} {row['flagged']:6} {row['wrong']:6} "
                     f"{row['equivalent']:6} {row['unjudged']:6} {row['escapes']:5} {row['limits']:5} "
                     f"{row['unclaimed']:5} {row['false_alarms']:5}")
    lines.append("")
    lines.append(f"{'rule':8} {'flagged':>8} {'wrong':>7} {'equiv':>7} {'unjdg':>7} {'precision':>9}")
    for rule, row in s["rules"].items():
        precision = "-" if row["precision"] is None else f"{row['precision']:.3f}"
        lines.append(f"{rule:8} {row['flagged']:8} {row['wrong']:7} {row['equivalent']:7} {row['unjudged']:7} "
                     f"{precision:>9}")
    for title, group_list in (("soundness escapes", s["escapes"]),
                              ("documented limits (wrong, verified, a known limit of the claiming rule)",
                               s.get("limits", [])),
                              ("unclaimed (wrong, verified, outside every rule's claim)", s.get("unclaimed", []))):
        lines.append("")
        lines.append(f"{len(group_list)} {title}" + (":" if group_list else ""))
        lines.extend(describe_escapes(group_list))
    return "\n".join(lines)


def describe_escapes(escapes: list[dict]) -> list[str]:
    """One line per label: how many, and the first one's file, kernel, mutated line, verdict and deviation."""
    by_label: dict[str, list[dict]] = defaultdict(list)
    for e in escapes:
        by_label[e.get("label") or e["kind"]].append(e)
    lines = []
    for label, group in sorted(by_label.items(), key=lambda item: (-len(item[1]), item[0])):
        e = group[0]
        if e["family"] == "mutant":
            where = f"{e.get('source')} {e.get('kernel')} line {e.get('line')}: `{e.get('before')}` -> `{e.get('after')}`"
        else:
            where = f"generated #{e['id']}"
        lines.append(f"  {label} x{len(group)}: e.g. #{e['id']} {where}; static: verified; oracle: {e['why']}, "
                     f"max deviation {e['deviation']}; {str(e.get('detail'))[:200]}")
    return lines


def markdown(report: dict) -> str:
    """The result tables of a report as Markdown (docs/RELIABILITY.md, "Results")."""
    s = report["summary"]
    out = ["| family | candidates | verified | flagged | wrong | equivalent | unjudged | **escapes** | documented "
           "limits | unclaimed | false alarms |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for family, row in s["families"].items():
        out.append(f"| {family} | {row['n']} | {row['verified']} | {row['flagged']} | {row['wrong']} | "
                   f"{row['equivalent']} | {row['unjudged']} | **{row['escapes']}** | {row['limits']} | "
                   f"{row['unclaimed']} | {row['false_alarms']} |")
    out += ["", "Precision per rule (flagged candidates the rule fired on; precision = wrong / (wrong + equivalent)):",
            "", "| rule | flagged | wrong | equivalent (false alarms) | unjudged | precision |", "|---|---|---|---|---|---|"]
    for rule, row in s["rules"].items():
        precision = "–" if row["precision"] is None else f"{row['precision']:.3f}"
        out.append(f"| {rule} | {row['flagged']} | {row['wrong']} | {row['equivalent']} | {row['unjudged']} | "
                   f"{precision} |")
    out += ["", "Per kind (mutants: the mutation kind, `higher-order` for stacked ones; generated: form and planted "
                "change):", "", "| kind | n | verified | flagged | wrong | equivalent | unjudged | escapes | limits | "
                "unclaimed | false alarms |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind, row in s["kinds"].items():
        out.append(f"| `{kind}` | {row['n']} | {row['verified']} | {row['flagged']} | {row['wrong']} | "
                   f"{row['equivalent']} | {row['unjudged']} | {row['escapes']} | {row['limits']} | "
                   f"{row['unclaimed']} | {row['false_alarms']} |")
    for title, group in (("Escapes", s["escapes"]), ("Documented limits", s.get("limits", [])),
                         ("Unclaimed", s.get("unclaimed", []))):
        out += ["", f"{title} by label ({len(group)}), one example each:", ""]
        out += [f"- {line.strip()}" for line in describe_escapes(group)] or ["- none"]
    return "\n".join(out) + "\n"
