"""A run that proves keeps z3's large blocks in the C heap (`run/heap.py`): a block of several MiB freed and
allocated again reuses pages already mapped instead of faulting them in anew (issue 18: ~14 ms of system
time per file of the synthetic corpus)."""

from __future__ import annotations

import multiprocessing
import resource
import sys
from pathlib import Path

import pytest

from pypto_verify.run import Options, run
from pypto_verify.run import heap

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "corpus" / "edge_combined_predicate.py"
def _faults_of_proofs(keep: bool, sender) -> None:
    """In a forked child: the minor page faults of proving CLEAN three times over (the process's memo of proved
    queries emptied each time, so z3 decides them again), after one proof to warm up."""
    from pypto_verify.run import Stage, run_work
    from pypto_verify.run.chain import prove_stage
    from pypto_verify.smt import solver

    # glibc's default thresholds (128 KiB) set explicitly for the plain run: the test process may have
    # kept its heap already (any run that proves does), and a forked child inherits that
    kept = heap.keep_heap() if keep else _thresholds(128 << 10, 128 << 10)
    (work,) = run_work([str(CLEAN)], Options(cache=False, jobs=1), (Stage.READ, Stage.LOWER))
    prove_stage(work, Options(cache=False, jobs=1))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        solver._PROVED.clear()
        solver._SOLVED.clear()
        prove_stage(work, Options(cache=False, jobs=1))
    sender.send((kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before))
    sender.close()


def _thresholds(mmap: int, trim: int) -> bool:
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt
    return bool(mallopt(heap._M_MMAP_THRESHOLD, mmap)) and bool(mallopt(heap._M_TRIM_THRESHOLD, trim))


def _in_child(keep: bool) -> tuple[bool, int]:
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_faults_of_proofs, args=(keep, sender))
    child.start()
    answer = receiver.recv()
    child.join()
    return answer


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc tuning")
def test_z3_contexts_reuse_the_kept_heap() -> None:
    kept, faults = _in_child(True)
    if not kept:
        pytest.skip("not glibc")
    reset, plain = _in_child(False)
    assert reset and plain > 10_000 and faults * 20 < plain  # measured: ~50 000 against ~60


def test_a_run_keeps_the_heap_only_when_it_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(heap, "keep_heap", lambda: calls.append(1) or True)
    run([str(CLEAN)], Options(cache=False, jobs=1, sim=False, smt=False))
    assert calls == []
    result = run([str(CLEAN)], Options(cache=False, jobs=1, sim=False))
    assert calls == [1] and {k.verdict for k in result.files[0].kernels} == {"verified"}
