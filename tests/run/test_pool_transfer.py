"""What crosses between the worker pool's processes (issue 18: the static pipeline's CPU): PROVE ahead of the
Datalog run is sent a file without its facts and sends back no lowered IR, with the same outcome as PROVE on
the whole record; the IR pickles as the tuple of its fields, spans kept; an IR map that changes nothing
shares the body it was given."""

from __future__ import annotations

import pickle
from pathlib import Path

from pypto_verify.ir import Assign, map_stmts, walk_stmts
from pypto_verify.printer import print_module
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import _unweighed, after_rules, prove_ahead, prove_stage

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
