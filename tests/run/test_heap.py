"""A run that proves keeps z3's large blocks in the C heap (`run/heap.py`): a block of several MiB freed and
allocated again reuses pages already mapped instead of faulting them in anew (issue 18: ~14 ms of system
time per file of the synthetic corpus)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pypto_verify.run import Options, run
from pypto_verify.run import heap

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "corpus" / "edge_combined_predicate.py"
CHILD = """
import ctypes, resource, sys
from pypto_verify.run import Options, Stage, heap, run_work
from pypto_verify.run.chain import prove_stage
from pypto_verify.smt import solver

if sys.argv[1] == "keep":
    kept = heap.keep_heap()
else:  # glibc's own thresholds, fixed
    mallopt = ctypes.CDLL(None).mallopt
    kept = bool(mallopt(heap._M_MMAP_THRESHOLD, 128 << 10)) and bool(mallopt(heap._M_TRIM_THRESHOLD, 128 << 10))
(work,) = run_work([sys.argv[2]], Options(cache=False, jobs=1), (Stage.READ, Stage.LOWER))
prove_stage(work, Options(cache=False, jobs=1))
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(3):
    solver._PROVED.clear()
    solver._SOLVED.clear()
    prove_stage(work, Options(cache=False, jobs=1))
print(int(kept), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
"""A fresh process (a forked one would fault on the pages it shares with its parent): the minor page faults of
proving CLEAN three times over (the memo of proved queries emptied each time, so z3 decides them again),
after one proof to warm up, with the heap kept or with glibc's default thresholds."""


def _faults(how: str) -> tuple[bool, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, how, str(CLEAN)], capture_output=True, text=True, check=True)
    kept, faults = out.stdout.split()
    return kept == "1", int(faults)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc tuning")
def test_z3_contexts_reuse_the_kept_heap() -> None:
    kept, faults = _faults("keep")
    if not kept:
        pytest.skip("not glibc")
    reset, plain = _faults("plain")
    assert reset and plain > 10_000 and faults * 20 < plain  # measured: ~50 000 against ~60


def test_a_run_keeps_the_heap_only_when_it_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(heap, "keep_heap", lambda: calls.append(1) or True)
    run([str(CLEAN)], Options(cache=False, jobs=1, sim=False, smt=False))
    assert calls == []
    result = run([str(CLEAN)], Options(cache=False, jobs=1, sim=False))
    assert calls == [1] and {k.verdict for k in result.files[0].kernels} == {"verified"}
