"""What crosses between the worker pool's processes (issue 18: the static pipeline's CPU): PROVE ahead of the
Datalog run is sent a file without its facts and sends back no lowered IR, with the same outcome as PROVE on
the whole record; with a pool, a worker proves the files it lowered and `check` gets back no IR at all
(lean records, which no stage that reads IR accepts); the IR pickles as the tuple of its fields, spans kept;
an IR map that changes nothing shares the body it was given."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from pypto_verify.ir import Assign, Function, map_stmts, walk_stmts
from pypto_verify.printer import print_module
from pypto_verify.run import Options, Stage, run, run_work
from pypto_verify.run.chain import (_lean, _unweighed, after_rules, front_and_prove, prove_ahead, prove_stage,
                                    simulate_stage)

KERNEL = '''
import pypto.language as pl


@pl.program
class SplitK:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
               out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul(ta, tb)
        ta2 = pl.load(a, [0, 128], [64, 128], target_memory=pl.MemorySpace.Mat)
        tb2 = pl.load(b, [128, 0], [128, 64], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul_acc(acc, ta2, tb2)
        out = pl.store(acc, [0, 0], out)
        return out
'''


def _lowered(tmp_path: Path):
    path = tmp_path / "split_k.py"
    path.write_text(KERNEL)
    (work,) = run_work([str(path)], Options(jobs=1, cache=False), (Stage.READ, Stage.LOWER, Stage.FACTS))
    assert not work.findings and work.facts is not None and work.lowered()
    return work


def test_prove_ahead_sends_back_no_lowered_ir_and_no_facts(tmp_path: Path) -> None:
    work = _lowered(tmp_path)
    sent = _unweighed(work)
    assert sent.facts is None and sent.module.programs == ()
    proved = prove_ahead(sent, Options(jobs=1, cache=False))
    assert proved.facts is None and proved.module.programs == ()
    assert all(k.lowered is None for k in proved.kernels)
    whole = prove_stage(work, Options(jobs=1, cache=False))
    merged = after_rules(work, proved, work)
    assert [k.obligations for k in merged.kernels] == [k.obligations for k in whole.kernels]
    assert any(k.obligations for k in merged.kernels)
    assert merged.findings == whole.findings and merged.kernels[0].lowered is work.kernels[0].lowered


def test_lowered_ir_pickles_with_every_span(tmp_path: Path) -> None:
    work = _lowered(tmp_path)
    (kernel,) = work.lowered()
    again = pickle.loads(pickle.dumps(kernel.lowered))
    assert again == kernel.lowered
    assert [s.span for s in walk_stmts(again.body)] == [s.span for s in walk_stmts(kernel.lowered.body)]
    assert print_module(work.module) == print_module(pickle.loads(pickle.dumps(work.module)))


def test_a_statement_map_that_changes_nothing_shares_the_body(tmp_path: Path) -> None:
    lowered = _lowered(tmp_path).kernels[0].lowered
    assert map_stmts(lowered.body, lambda s: None) is lowered.body
    renamed = map_stmts(lowered.body, lambda s: (s,))
    assert renamed is lowered.body
    first = next(s for s in walk_stmts(lowered.body) if isinstance(s, Assign))
    changed = map_stmts(lowered.body, lambda s: (s, s) if s is first else None)
    assert changed is not lowered.body and len(list(walk_stmts(changed))) == len(list(walk_stmts(lowered.body))) + 1


def test_one_file_is_proved_in_a_child_while_the_engine_runs(tmp_path: Path, monkeypatch) -> None:
    """Without a pool (one file) and with cores to spare, PROVE runs in a forked child during the Datalog
    run, with the outcome of the sequential chain."""
    import os

    from pypto_verify import smt
    from pypto_verify.run import run

    path = tmp_path / "split_k.py"
    path.write_text(KERNEL)
    pids = tmp_path / "pids"
    real = smt.prove_module

    def prove_module(source, lowered, **kwargs):
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(source, lowered, **kwargs)

    monkeypatch.setattr(smt, "prove_module", prove_module)
    apart = run([str(path)], Options(cache=False, jobs=2, sim=False))
    seen = set(pids.read_text().split())
    assert seen and str(os.getpid()) not in seen
    pids.unlink()
    here = run([str(path)], Options(cache=False, jobs=1, sim=False))
    assert pids.read_text().split() == [str(os.getpid())]
    assert apart.files == here.files
    assert [k.verdict for k in apart.files[0].kernels] == ["verified"]


def test_a_flagged_file_proved_in_a_child_keeps_no_outcome_of_it(tmp_path: Path) -> None:
    from pypto_verify.run import run

    flagged = Path(__file__).resolve().parents[2] / "corpus" / "defects" / "pv004_read_after_inplace.py"
    apart = run([str(flagged)], Options(cache=False, jobs=2, sim=False))
    here = run([str(flagged)], Options(cache=False, jobs=1, sim=False))
    assert apart.files == here.files
    assert [f.rule.id for f in apart.files[0].findings] == ["PV004"]
    assert all(not k.obligations for k in apart.files[0].kernels)


def _three(tmp_path: Path) -> list[str]:
    """Three files: two clean split-K kernels and the corpus's read of a tile after an in-place accumulate
    overwrote its window (PV004)."""
    flagged = Path(__file__).resolve().parents[2] / "corpus" / "defects" / "pv004_read_after_inplace.py"
    paths = []
    for name, text in (("one", KERNEL), ("two", KERNEL.replace("SplitK", "SplitK2")), ("three", flagged.read_text())):
        (tmp_path / f"{name}.py").write_text(text)
        paths.append(str(tmp_path / f"{name}.py"))
    return paths


def test_a_pool_sends_check_no_ir_and_gives_the_one_process_report(tmp_path: Path, monkeypatch) -> None:
    """`check` with a pool: no function body is unpickled in this process (each worker proves what it lowered
    and sends back lean records), and the report is the one-process chain's."""
    import os

    main = os.getpid()
    bodies: list[int] = []
    real = Function.__setstate__

    def counted(self, state):
        real(self, state)
        if os.getpid() == main and self.body:
            bodies.append(len(self.body))

    paths = _three(tmp_path)
    monkeypatch.setattr(Function, "__setstate__", counted)
    two = run(paths, Options(cache=False, jobs=2, sim=False))
    assert bodies == []
    one = run(paths, Options(cache=False, jobs=1, sim=False))
    assert two.files == one.files
    assert [k.verdict for f in two.files[:2] for k in f.kernels] == ["verified", "verified"]
    assert [f.rule.id for f in two.files[2].findings] == ["PV004"]
    assert all(not k.obligations for k in two.files[2].kernels)  # the rules flagged it: what Z3 did is dropped


def test_front_and_prove_is_front_then_prove_ahead(tmp_path: Path) -> None:
    path = tmp_path / "split_k.py"
    path.write_text(KERNEL)
    options = Options(jobs=1, cache=False)
    stages = (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG, Stage.PROVE)
    work, proved = front_and_prove(str(path), options, stages, {}, False)
    assert work.kernels[0].lowered is not None and work.facts is not None
    lean, lean_proved = front_and_prove(str(path), options, stages, {}, True)
    assert lean.lean and lean_proved.lean and lean.facts is not None and not lean_proved.outcomes
    assert [k.lowered.body for k in lean.kernels if k.lowered] == [()] and lean.module.programs == ()
    merged, lean_merged = after_rules(work, proved, work), after_rules(lean, lean_proved, lean)
    assert [k.obligations for k in lean_merged.kernels] == [k.obligations for k in merged.kernels]
    assert any(k.obligations for k in merged.kernels) and lean_merged.findings == merged.findings


@pytest.mark.parametrize("stage", [prove_stage, simulate_stage])
def test_a_stage_that_reads_ir_refuses_a_lean_record(tmp_path: Path, stage) -> None:
    work = _lowered(tmp_path)
    with pytest.raises(RuntimeError, match="without its IR"):
        stage(_lean(work), Options(jobs=1, cache=False))


def test_a_pool_still_simulates_what_it_proved(tmp_path: Path) -> None:
    """With simulation on, the workers send the IR back: the simulation reads it."""
    paths = _three(tmp_path)
    result = run(paths[:2], Options(cache=False, jobs=2))
    assert [(k.verdict, k.sim) for f in result.files for k in f.kernels] == [("verified", "match")] * 2


@pytest.mark.parametrize("sim", [False, True])
def test_a_worker_that_dies_proving_costs_its_file_only(tmp_path: Path, monkeypatch, sim: bool) -> None:
    """Also with simulation on, where the files the rules have seen may already be queued to be simulated on
    the pool the death breaks: they are simulated again, alone."""
    import os

    from pypto_verify.run import chain

    doomed, *others = _three(tmp_path)
    real = chain.prove_stage

    def die(work, options):
        if work.path == doomed:
            os._exit(9)  # as the OOM killer would end the worker while it proves
        return real(work, options)

    monkeypatch.setattr(chain, "prove_stage", die)  # the pool forks: its workers see the patch
    result = run([doomed, *others], Options(cache=False, jobs=2, sim=sim))
    (finding,) = result.files[0].findings
    assert finding.rule.id == "PV999" and "the worker process died" in finding.message
    assert [(k.verdict, k.sim) for k in result.files[1].kernels] == [("verified", "match" if sim else "skipped")]
    assert [f.rule.id for f in result.files[2].findings] == ["PV004"]


def test_front_and_prove_for_a_simulating_check_sends_back_only_the_kernels_ir(tmp_path: Path) -> None:
    """`check` with simulation on: the simulation reads the module and the kernels as read and lowered, nothing
    reads PROVE's outcomes, so those do not come back; the merged record is the whole one's."""
    path = tmp_path / "split_k.py"
    path.write_text(KERNEL)
    options = Options(jobs=1, cache=False)
    stages = (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG, Stage.PROVE, Stage.SIMULATE)
    work, proved = front_and_prove(str(path), options, stages, {}, False)
    slim, slim_proved = front_and_prove(str(path), options, stages, {}, True)
    # the module stays: the simulation splices the functions the kernels call (`run/callees.py`)
    assert slim.module == work.module and not slim.lean and slim.facts is not None
    assert [k.lowered for k in slim.kernels] == [k.lowered for k in work.kernels] and slim.kernels[0].lowered.body
    assert slim_proved.lean and not slim_proved.outcomes and proved.outcomes
    merged, slim_merged = after_rules(work, proved, work), after_rules(slim, slim_proved, slim)
    assert simulate_stage(slim_merged, options).kernels == simulate_stage(merged, options).kernels
    assert [k.sim for k in simulate_stage(slim_merged, options).kernels] == ["match"]


def test_a_pool_simulates_calls_of_functions_that_are_not_kernels() -> None:
    """The worker that simulates a file needs its module as read: a callee that is no kernel is found there and
    lowered for the simulation (`run/callees.py`); without it every such call was `not a function read from`."""
    kernels = Path(__file__).resolve().parents[1] / "dynamic" / "kernels"
    paths = [str(kernels / "plain_callees.py"), str(kernels / "task_callees.py")]
    result = run(paths, Options(cache=False, jobs=2))
    sims = {k.name: k.sim for f in result.files for k in f.kernels}
    assert sims["copy_bands"] == sims["bump_bands"] == "match", sims
    assert not any("is not a function read from" in k.sim_reason for f in result.files for k in f.kernels)


def test_a_future_the_breaking_pool_lost_fails_when_the_pool_is_dropped() -> None:
    """CPython 3.11's pool can lose work handed to it while a worker's death breaks it: neither run nor failed, its
    future would keep `_completed` waiting out the whole patience (11 minutes by default) before the file runs
    alone. Dropping the pool fails every future of it still held and not done, as the pool failed the others."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from pypto_verify.run.chain import _Workers

    workers = _Workers(1)
    done = workers.submit(abs, -3)
    assert done.result(timeout=60) == 3
    lost: Future = Future()  # as the breaking pool leaves it: handed out, never run, never failed
    workers.futures.add(lost)
    workers.discard()
    assert isinstance(lost.exception(timeout=0), BrokenProcessPool) and done.result() == 3
    assert workers.executor is None and not workers.futures
