"""A run collects cyclic garbage less often (run/collector.py), and leaves the caller's thresholds as it found them."""

from __future__ import annotations

import gc
from pathlib import Path

from pypto_verify.run import Options, run
from pypto_verify.run import spine
from pypto_verify.run.collector import GC_THRESHOLD, collections_reduced

ROOT = Path(__file__).resolve().parents[2]


def test_thresholds_are_raised_inside_and_restored_after() -> None:
    before = gc.get_threshold()
    with collections_reduced():
        assert all(now >= least for now, least in zip(gc.get_threshold(), GC_THRESHOLD))
    assert gc.get_threshold() == before


def test_a_run_checks_its_files_under_the_raised_thresholds(monkeypatch) -> None:
    seen: list[tuple[int, int, int]] = []
    check = spine._check

    def spy(*args, **kwargs):
        seen.append(gc.get_threshold())
        return check(*args, **kwargs)

    monkeypatch.setattr(spine, "_check", spy)
    before = gc.get_threshold()
    run([str(ROOT / "corpus" / "edge_unroll_k.py")], Options(sim=False, smt=False, cache=False, jobs=1))
    assert seen and all(now >= least for now, least in zip(seen[0], GC_THRESHOLD))
    assert gc.get_threshold() == before
