"""A counterexample depends on its query alone (`smt/solver.py`, `_solve`): the model query runs in a
z3 context of its own, so what a process solved before (another file, or the same file once already)
never changes which model a finding reports."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, run

DEFECT = Path(__file__).resolve().parents[2] / "corpus" / "defects" / "pv103_init_cond_resets.py"
OPTIONS = Options(cache=False, jobs=1, sim=False)


def _counterexamples() -> list[tuple[int, dict]]:
    return [(f.span.line, f.counterexample) for f in run([str(DEFECT)], OPTIONS).findings]


def test_a_file_checked_twice_in_one_process_reports_the_same_counterexamples() -> None:
    first = _counterexamples()
    assert first and all(example for _, example in first)
    assert _counterexamples() == first
