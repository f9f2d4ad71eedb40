"""Judging a batch of candidate kernels: the static verdict, and whether the candidate is semantically wrong.

Input: `Task`s (a kernel file's text, the function to look at, and its oracle). Output: one `Judgement` per task.

Static verdict: the run chain (`pypto_verify.run.run_work` + `chain.finish`, exactly `check --no-sim --no-cache`)
over the whole batch at once (one Datalog run), then the verdict of the task's function: `verified`, `findings`,
`inconclusive`, `conditional` (proved only for some run-time inputs), or `rejected` (the reader did not accept
it: PV000, no kernel). Only `verified` is a pass. `rules` are the ids of its error findings (PV100 when
inconclusive, `PVnnn/conditional` for the rules of its conditions).

Oracle (docs/RELIABILITY.md, "The oracle"):
- a *mutant* is compared with the **original** kernel's value-semantic reference (`pypto_verify.reference`) on the
  original's seeded inputs and runtime scalars (`pypto_verify.dynamic.make_inputs`, the same seed): first the
  mutant's own reference (a mutant whose source computes something else is wrong even if its lowering is faithful),
  then, when they agree, the mutant's emitted PTO run on the buffer-accurate simulator (`sim/`);
- a *generated* program is compared with the plain matmul of its inputs (numpy, float64), through its reference
  (Form 2) and its simulated PTO (Form 2 and Form 3).
Both comparisons use the dynamic check's own tolerance (`pypto_verify.dynamic.first_difference`: dtype `atol` /
`rtol` and the reference's deviation `sigma`). A read of undefined L0C reaches GM as NaN (the simulator's poison)
and differs; a window outside its tensor (reference `WindowError`, simulator PV202) is wrong; so is a simulator
rejection (PV202). The judgement is `wrong`, `equivalent`, or `unjudged` (the signature changed, the reference has
no semantics for an op, emission failed, a timeout), with `why` and the largest deviation.
"""

from __future__ import annotations

import atexit
import os
import pickle
import re
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from pypto_verify import rules
from pypto_verify.ir import DType, Function, ScalarType, TensorType
from pypto_verify.rules import Severity
from pypto_verify.run import Options, run_work
from pypto_verify.run.chain import FileWork, KernelWork, finish

RULE_ID = re.compile(r"PV\d{3}")
SIGMA_PER_ADD = 2.0 ** -24
"""The reordering deviation of one f32 addition, as `pypto_verify.reference` uses it."""


# ---------------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class MatmulOutput:
    """One output of a generated program: `out = lhs @ rhs(^T) (+ bias)` over the whole tensors."""

    out: str
    lhs: str
    rhs: str
    b_trans: bool = False
    bias: str | None = None


@dataclass(frozen=True)
class Task:
    """One candidate kernel to judge."""

    id: int
    family: str
    """`mutant` or `generated`."""
    kind: str
    text: str
    function: str
    """The function to judge (its static verdict, its simulation)."""
    kernel: str = ""
    source: str = ""
    """The corpus file a mutant was made from (its siblings are copied beside it)."""
    siblings: tuple[str, ...] = ()
    baseline: str = ""
    """The baseline key of a mutant's original (`Baseline` files in the batch's baseline folder)."""
    oracle: tuple[MatmulOutput, ...] = ()
    """A generated program's matmul outputs (empty for a mutant: its oracle is the original's reference)."""
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Judgement:
    """What one task came to."""

    id: int
    verdict: str
    """`verified`, `findings`, `inconclusive`, `conditional`, `rejected` (or `timeout`)."""
    rules: tuple[str, ...]
    judgement: str
    """`wrong`, `equivalent`, `unjudged`."""
    why: str
    deviation: float | str | None = None
    detail: str = ""
    seconds: float = 0.0
    messages: tuple[str, ...] = ()
    """The first lines of the error findings (at most three)."""

    @property
    def escape(self) -> bool:
        return self.judgement == "wrong" and self.verdict == "verified"

    def to_json(self) -> dict:
        return {"id": self.id, "verdict": self.verdict, "rules": list(self.rules), "judgement": self.judgement,
                "why": self.why, "deviation": self.deviation, "detail": self.detail,
                "seconds": round(self.seconds, 3), "messages": list(self.messages)}


@dataclass(frozen=True)
class Baseline:
    """The original kernel of a family of mutants: its inputs' signature, runtime scalars, reference, verdict."""

    key: str
    verdict: str
    sim: str
    """`match` when the original's simulated PTO agrees with its reference."""
    signature: tuple
    scalars: dict[str, int]
    reference: Any
    """`pypto_verify.reference.ReferenceResult` of the original on the seeded inputs."""
    seconds: float
    """Wall time of the original's reference + simulation (the cost of judging one of its mutants)."""
    reason: str = ""


class Timeout(Exception):
    """A task ran past its time limit."""


class EmitFailed(Exception):
    """The emitter could not write PTO for a lowered program (nothing to simulate: unjudged)."""


# ---------------------------------------------------------------------------------------------- worker state


_WORKDIR: Path | None = None


def workdir() -> Path:
    """This process's scratch folder for candidate files (removed at exit)."""
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = Path(tempfile.mkdtemp(prefix="pypto-fuzz-"))
        atexit.register(shutil.rmtree, _WORKDIR, True)
    return _WORKDIR


def _alarm(_signum: int, _frame: Any) -> None:
    raise Timeout()


class time_limit:
    """`with time_limit(seconds):` raises `Timeout` inside the block after *seconds* (SIGALRM; 0 = none)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        if self.seconds > 0:
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.seconds > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _write(task: Task, folder: Path) -> str:
    path = folder / f"c{task.id}.py"
    path.write_text(task.text, encoding="utf-8")
    if task.source:
        here = Path(task.source).parent
        for module in task.siblings:
            name = module.lstrip(".").replace(".", "/") + ".py"
            if (here / name).exists() and not (folder / name).exists():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(here / name, folder / name)
    return str(path)


# ---------------------------------------------------------------------------------------------- static verdict


def static_batch(tasks: list[Task], options: Options, limit: float) -> dict[int, tuple[str, tuple[str, ...],
                                                                                   tuple[str, ...], KernelWork | None]]:
    """`check --no-sim` over the batch at once: per task, (verdict, rule ids, messages, the kernel's work)."""
    folder = workdir() / f"b{tasks[0].id}"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [_write(t, folder) for t in tasks]
    try:
        with time_limit(limit * len(tasks)):
            works = run_work(paths, options)
    except Timeout:
        works = []
        for path in paths:  # one at a time: only the slow one is lost
            try:
                with time_limit(limit):
                    works += run_work([path], options)
            except Timeout:
                works.append(None)  # type: ignore[arg-type]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = {}
    for task, work in zip(tasks, works):
        out[task.id] = _verdict(task, work) if work is not None else ("timeout", (), ("static check timed out",), None)
    return out


def _verdict(task: Task, work: FileWork) -> tuple[str, tuple[str, ...], tuple[str, ...], KernelWork | None]:
    result = finish(work)
    mine = [f for f in result.findings if f.function in (task.function, "")]
    errors = [f for f in mine if f.severity is Severity.ERROR]
    kernel = next((k for k in result.kernels if k.function == task.function), None)
    kernel_work = next((k for k in work.kernels if k.function == task.function), None)
    found = sorted({f.rule.id for f in errors})
    messages = tuple(f"{f.rule.id} line {f.span.line}: {f.message}" for f in errors[:3])
    if kernel is None:
        return "rejected", tuple(found or [rules.INPUT_ERROR.id]), messages, None
    if kernel.verdict == "inconclusive":
        found.append(rules.INCONCLUSIVE.id)
        messages += tuple(f"{f.rule.id} line {f.span.line}: {f.message}" for f in mine
                          if f.rule.id == rules.INCONCLUSIVE.id)[:2]
    if kernel.verdict == "conditional":  # proved only for some run-time inputs: not a pass
        conditions = getattr(kernel, "conditions", ())
        found += sorted({f"{rule}/conditional" for c in conditions for rule in RULE_ID.findall(c)[:1]}) or \
            ["conditional"]
        messages += tuple(conditions[:2])
    if any(f.rule.id == rules.INPUT_ERROR.id for f in errors) and kernel.verdict == "verified":
        return "findings", tuple(found), messages, kernel_work  # an input error elsewhere in the file
    return kernel.verdict, tuple(found), messages, kernel_work


# ---------------------------------------------------------------------------------------------- comparisons


def signature(fn: Function) -> tuple:
    """The parameters' names, kinds, shapes and dtypes: equal signatures get equal seeded inputs."""
    out = []
    for p in fn.params:
        if isinstance(p.type, TensorType):
            out.append((p.name, "tensor", str(p.type.shape), p.type.dtype.name))
        elif isinstance(p.type, ScalarType):
            out.append((p.name, "scalar", p.type.dtype.name))
    return tuple(out)


def _deviation(got: np.ndarray, want: np.ndarray) -> float | str:
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if g.shape != w.shape:
        return "shape"
    with np.errstate(invalid="ignore"):
        one_sided = np.isnan(g) != np.isnan(w)
        if one_sided.any():
            return "nan"
        finite = np.isfinite(g) & np.isfinite(w)
        if (~finite & (g != w)).any():
            return "inf"
        return float(np.max(np.abs(g - w), initial=0.0, where=finite))


def compare(got: dict[str, np.ndarray], want: dict[str, np.ndarray], dtypes: dict[str, DType], max_k: int,
            sigma: dict[str, np.ndarray]) -> tuple[str, float | str | None]:
    """The first difference beyond tolerance between *got* and *want* (by tensor), and the largest deviation of
    a differing tensor; ('', None) when they agree."""
    from pypto_verify.dynamic import describe, first_difference

    for name, expected in want.items():
        if name not in got:
            continue
        diff = first_difference(name, dtypes[name], got[name], expected, max_k, sigma.get(name))
        if diff is not None:
            return describe(diff), _deviation(got[name], expected)
    return "", None


def _combined(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None or b is None or np.shape(a) != np.shape(b):
        return a if b is None or np.shape(a) != np.shape(b) else b
    return np.sqrt(np.square(a.astype(np.float64)) + np.square(b.astype(np.float64)))


def _simulate_prepared(run: Any, target: str) -> tuple[dict[str, np.ndarray] | None, str]:
    """The final GM tensors of a `dynamic.PreparedRun`, by source tensor name (those the simulation wrote, or
    the input as given); None and the reason when the simulator rejects the program (PV202)."""
    from pypto_verify.sim import SimError, simulate

    try:
        final = simulate(run.text, run.function, run.args, target=target)
    except SimError as error:
        if error.rule != rules.ILLEGAL_PTO.id:
            raise
        return None, f"PV202 {error}"
    out = {}
    for name, (arg, _dtype) in run.outputs.items():
        got = final[arg]
        if got is run.args[arg]:
            got = run.values.get(arg, got)
        out[name] = got
    return out, ""


UNMODELLED = re.compile(r"no reference semantics|scalar operator|has no (dtype|target type|type)|"
                        r"is not a (scalar|list)|expected an integer|no input for|no value for")
"""Reference errors that say the reference cannot evaluate a construct (unjudged), as opposed to the ones that
say the kernel is ill-formed: shapes that do not fit, a loop step that is not positive, a name read before it is
defined (wrong: no faithful execution computes the original's result)."""


def _ill_formed(error: Exception) -> tuple[str, str, float | str | None, str]:
    if UNMODELLED.search(str(error)):
        return "unjudged", "reference", None, str(error)
    return "wrong", "source ill-formed", None, str(error)


def _source_detail(reason: str) -> str:
    """A difference between two references, worded as such (`describe` says "sim" for the first side)."""
    return reason.replace(": sim ", ": candidate's reference ", 1).replace(" vs reference ", " vs oracle ", 1)


# ---------------------------------------------------------------------------------------------- mutants


def make_baseline(key: str, fn: Function, lowered: Function | None, verdict: str, seed: int,
                  target: str) -> Baseline:
    """The original kernel's reference on the seeded inputs, checked against its own simulation."""
    from pypto_verify.dynamic import PreparedRun, prepare_run

    started = time.perf_counter()
    if lowered is None:
        return Baseline(key, verdict, "skipped", signature(fn), {}, None, 0.0, "not lowered")
    prepared = prepare_run(fn, lowered, seed=seed, target=target)
    if not isinstance(prepared, PreparedRun):
        return Baseline(key, verdict, "skipped", signature(fn), {}, None, 0.0, prepared.message)
    final, rejected = _simulate_prepared(prepared, target)
    reference = prepared.reference
    status, reason = "match", ""
    if final is None:
        status, reason = "mismatch", rejected
    else:
        dtypes = {name: dtype for name, (_, dtype) in prepared.outputs.items()}
        shown = {n: v for n, v in reference.outputs.items() if n in reference.written or n in final}
        reason, _ = compare(final, shown, dtypes, reference.max_k, reference.sigma)
        status = "mismatch" if reason else "match"
    return Baseline(key, verdict, status, signature(fn), dict(prepared.scalars), reference,
                    time.perf_counter() - started, reason)


def _also_unfaithful(fn: Function, lowered: Function | None, reference: Any, seed: int, target: str,
                     scalars: dict[str, int] | None = None) -> str:
    """For a candidate whose *source* is already wrong and which verified: whether its simulated PTO also departs
    from its own reference (a second, lowering-level defect: undefined L0C reaching GM, a clobber), as a
    one-line reason ('' when the lowering is faithful or cannot be simulated)."""
    from pypto_verify.dynamic import PreparedRun, prepare_run

    if lowered is None:
        return ""
    prepared = prepare_run(fn, lowered, seed=seed, target=target, scalars=scalars)
    if not isinstance(prepared, PreparedRun):
        return ""
    final, rejected = _simulate_prepared(prepared, target)
    if final is None:
        return rejected
    dtypes = {p.name: p.type.dtype for p in fn.params if isinstance(p.type, TensorType)}
    shown = {n: v for n, v in reference.outputs.items() if n in reference.written or n in final}
    reason, _ = compare(final, shown, dtypes, reference.max_k, reference.sigma)
    return reason


def judge_mutant(fn: Function | None, lowered: Function | None, base: Baseline, seed: int,
                 target: str, verified: bool = False) -> tuple[str, str, float | str | None, str]:
    """(judgement, why, deviation, detail) of a mutant against its original's reference. When the mutant's
    source differs and it *verified*, its simulation is also checked against its own reference, so an escape
    says whether the lowering is faithful (`source differs`) or not (`source and simulation differ`)."""
    from pypto_verify.dynamic import PreparedRun, make_inputs, prepare_run, read_tensors
    from pypto_verify.reference import ReferenceError, WindowError, run_reference

    if fn is None:
        return "unjudged", "not read", None, ""
    if signature(fn) != base.signature:
        return "unjudged", "signature changed", None, ""
    reads = set(read_tensors(fn))
    scalar_names = [p.name for p in fn.params if isinstance(p.type, ScalarType)]
    if any(n not in base.scalars for n in (*reads, *scalar_names)):
        return "unjudged", "new runtime scalar", None, ""
    inputs = make_inputs(fn, seed, {n: base.scalars[n] for n in reads})
    try:
        mine = run_reference(fn, inputs, {n: base.scalars[n] for n in scalar_names})
    except WindowError as error:
        return "wrong", "source out of bounds", None, str(error)
    except ReferenceError as error:
        return _ill_formed(error)
    want = base.reference
    dtypes = {p.name: p.type.dtype for p in fn.params if isinstance(p.type, TensorType)}
    written = mine.written | want.written
    sigma = {n: _combined(want.sigma.get(n), mine.sigma.get(n)) for n in want.outputs}
    ours = {n: v for n, v in mine.outputs.items() if n in written}
    theirs = {n: v for n, v in want.outputs.items() if n in written}
    reason, deviation = compare(ours, theirs, dtypes, max(want.max_k, mine.max_k), sigma)
    if reason:
        also = _also_unfaithful(fn, lowered, mine, seed, target, base.scalars) if verified else ""
        if also:
            return "wrong", "source and simulation differ", deviation, f"{_source_detail(reason)}; own sim: {also}"
        return "wrong", "source differs", deviation, _source_detail(reason)
    if lowered is None:  # the reference zero-fills created tiles: alone it cannot see an L0C defect
        return "unjudged", "not lowered", None, "the source agrees; without a lowering there is nothing to simulate"
    prepared = prepare_run(fn, lowered, seed=seed, target=target, scalars=base.scalars)
    if not isinstance(prepared, PreparedRun):
        return "unjudged", "not simulated", None, prepared.message
    final, rejected = _simulate_prepared(prepared, target)
    if final is None:
        return "wrong", "simulator rejects", None, rejected
    shown = {n: v for n, v in want.outputs.items() if n in want.written or n in final}
    reason, deviation = compare(final, shown, dtypes, want.max_k, want.sigma)
    if reason:
        return "wrong", "simulation differs", deviation, reason
    return "equivalent", "source and simulation agree", None, ""


# ---------------------------------------------------------------------------------------------- generated


def matmul_oracle(outputs: tuple[MatmulOutput, ...], inputs: dict[str, np.ndarray], dtypes: dict[str, DType]
                  ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """The plain matmul of the inputs for each output (float64, or int64 wrapped to int32 for INT8 operands),
    its reordering deviation (`2**-24 * sqrt(2 K) * |A| @ |B|`, as the reference states it) and the longest K."""
    want: dict[str, np.ndarray] = {}
    sigma: dict[str, np.ndarray] = {}
    max_k = 0
    for o in outputs:
        a = inputs[o.lhs].astype(np.float64 if dtypes[o.lhs].is_float else np.int64)
        b = inputs[o.rhs].astype(np.float64 if dtypes[o.rhs].is_float else np.int64)
        if o.b_trans:
            b = b.T
        k = a.shape[-1]
        max_k = max(max_k, k)
        value = a @ b
        if o.bias is not None:
            value = value + inputs[o.bias].astype(value.dtype)[0:1, :]
        if not dtypes[o.lhs].is_float:
            value = ((value + 2 ** 31) % 2 ** 32) - 2 ** 31
            sigma[o.out] = np.zeros(value.shape)
        else:
            sigma[o.out] = SIGMA_PER_ADD * np.sqrt(2.0 * k) * (np.abs(a) @ np.abs(b))
        want[o.out] = value
    return want, sigma, max_k


def judge_generated(task: Task, fn: Function | None, lowered: Function | None, seed: int,
                    target: str, verified: bool = False) -> tuple[str, str, float | str | None, str]:
    """(judgement, why, deviation, detail) of a generated program against the matmul of its inputs."""
    from pypto_verify.dynamic import PreparedRun, make_inputs, prepare_run
    from pypto_verify.lowering.pipeline import is_lowered
    from pypto_verify.reference import ReferenceError, WindowError, run_reference

    if fn is None:
        return "unjudged", "not read", None, ""
    dtypes = {p.name: p.type.dtype for p in fn.params if isinstance(p.type, TensorType)}
    inputs = make_inputs(fn, seed)
    want, sigma, max_k = matmul_oracle(task.oracle, inputs, dtypes)
    if not is_lowered(fn):
        try:
            mine = run_reference(fn, inputs, {})
        except WindowError as error:
            return "wrong", "source out of bounds", None, str(error)
        except ReferenceError as error:
            return _ill_formed(error)
        reason, deviation = compare(mine.outputs, want, dtypes, max_k, sigma)
        if reason:
            also = _also_unfaithful(fn, lowered, mine, seed, target) if verified else ""
            if also:
                return "wrong", "source and simulation differ", deviation, f"{_source_detail(reason)}; own sim: {also}"
            return "wrong", "source differs", deviation, _source_detail(reason)
        if lowered is None:
            return "unjudged", "not lowered", None, "the source agrees; without a lowering there is nothing to simulate"
        prepared = prepare_run(fn, lowered, seed=seed, target=target)
        if not isinstance(prepared, PreparedRun):
            return "unjudged", "not simulated", None, prepared.message
        final, rejected = _simulate_prepared(prepared, target)
    else:
        try:
            final, rejected = _simulate_lowered(fn, inputs, target)
        except EmitFailed as error:
            return "unjudged", "not emitted", None, str(error)
    if final is None:
        return "wrong", "simulator rejects", None, rejected
    reason, deviation = compare(final, want, dtypes, max_k, sigma)
    if reason:
        return "wrong", "simulation differs", deviation, reason
    return "equivalent", "simulation agrees", None, ""


def _simulate_lowered(fn: Function, inputs: dict[str, np.ndarray], target: str
                      ) -> tuple[dict[str, np.ndarray] | None, str]:
    """Emit a Form 3 function as given and simulate it on *inputs* (FP32 / INT8 / INT32 tensors only)."""
    from pypto_verify.emit import EmitError, emit_function, emit_module
    from pypto_verify.sim import SimError, simulate

    try:
        emitted = emit_function(fn, target)
    except EmitError as error:
        raise EmitFailed(error.message) from error
    args: dict[str, object] = {}
    for binding in emitted.args:
        if binding.kind == "tensor":
            args[binding.name] = inputs[binding.param]
        elif binding.kind == "workspace":
            args[binding.name] = np.zeros(binding.shape, dtype=np.float32)
        else:
            raise ValueError(f"generated programs have no scalars: {binding}")
    try:
        final = simulate(emit_module([emitted], target), emitted.name, args, target=target)
    except SimError as error:
        if error.rule != rules.ILLEGAL_PTO.id:
            raise
        return None, f"PV202 {error}"
    return {b.param: final[b.name] for b in emitted.args if b.kind == "tensor"}, ""


# ---------------------------------------------------------------------------------------------- the batch


@dataclass(frozen=True)
class Settings:
    """What every worker needs to know besides the tasks."""

    seed: int = 0
    target: str = "a2a3"
    engine: str = "auto"
    timeout: float = 60.0
    """Seconds for one candidate's static check, and again for its oracle."""
    baselines: str = ""
    """The folder of pickled `Baseline`s (by key)."""
    smt_timeout_ms: int = 2000

    def options(self) -> Options:
        return Options(target=self.target, engine=self.engine, sim=False, smt=True, cache=False, jobs=1,
                       seed=self.seed, timeout_ms=self.smt_timeout_ms)


_BASELINES: dict[str, Baseline] = {}


def load_baseline(settings: Settings, key: str) -> Baseline | None:
    if key not in _BASELINES:
        path = Path(settings.baselines) / f"{key}.pkl"
        if not path.exists():
            return None
        if len(_BASELINES) > 16:
            _BASELINES.clear()
        with path.open("rb") as handle:
            _BASELINES[key] = pickle.load(handle)
    return _BASELINES[key]


def judge_batch(tasks: list[Task], settings: Settings) -> list[Judgement]:
    """The static verdict and the oracle's judgement of every task (one worker, one Datalog run)."""
    started = time.perf_counter()
    static = static_batch(tasks, settings.options(), settings.timeout)
    share = (time.perf_counter() - started) / max(len(tasks), 1)
    out = []
    for task in tasks:
        begun = time.perf_counter()
        verdict, found, messages, kernel = static[task.id]
        fn = kernel.read if kernel is not None else None
        lowered = kernel.lowered if kernel is not None else None
        try:
            with time_limit(settings.timeout):
                if task.family == "mutant":
                    base = load_baseline(settings, task.baseline)
                    if base is None:
                        result: tuple = ("unjudged", "no baseline", None, "")
                    else:
                        result = judge_mutant(fn, lowered, base, settings.seed, settings.target,
                                              verdict == "verified")
                else:
                    result = judge_generated(task, fn, lowered, settings.seed, settings.target, verdict == "verified")
        except Timeout:
            result = ("unjudged", "timeout", None, f"oracle ran past {settings.timeout:g} s")
        except Exception as error:  # a crash of ours in the oracle: recorded, never an escape
            result = ("unjudged", "oracle error", None, f"{type(error).__name__}: {error}")
        judgement, why, deviation, detail = result
        out.append(Judgement(task.id, verdict, found, judgement, why, deviation, detail[:300],
                             share + time.perf_counter() - begun, messages))
    return out


def baseline_batch(tasks: list[Task], settings: Settings) -> list[tuple[str, Baseline]]:
    """The baselines of original kernels (each task is one original, trimmed), pickled into
    `settings.baselines`; returned for the summary."""
    static = static_batch(tasks, settings.options(), settings.timeout)
    out = []
    for task in tasks:
        verdict, found, messages, kernel = static[task.id]
        if kernel is None:
            base = Baseline(task.baseline, verdict, "skipped", (), {}, None, 0.0, "; ".join(messages) or "not read")
        else:
            try:
                with time_limit(settings.timeout * 4):
                    base = make_baseline(task.baseline, kernel.read, kernel.lowered, verdict, settings.seed,
                                         settings.target)
            except Timeout:
                base = Baseline(task.baseline, verdict, "skipped", (), {}, None, settings.timeout * 4, "timeout")
            if verdict != "verified":
                base = replace(base, reason=("; ".join(messages) or verdict) + (f"; {base.reason}" if base.reason else ""))
        with (Path(settings.baselines) / f"{task.baseline}.pkl").open("wb") as handle:
            pickle.dump(base, handle)
        out.append((task.baseline, replace(base, reference=None)))
    return out


def worker_init() -> None:
    """Each worker process: its own scratch folder; no core dumps of numpy warnings into the log."""
    workdir()
    np.seterr(all="ignore")
    os.environ.setdefault("PYTHONHASHSEED", "0")
