"""Golden tests of the PTO emitter: `<case>/kernel.py` emits exactly `<case>/expected.pto`.

Form 3 inputs (lowered IR after allocate-memory-addr) are emitted as given, so a golden pins the
emitter alone; a source kernel would be lowered in fixed mode first. Regenerate with
`pytest --update-golden`; a failure writes the gitignored `<case>/actual.expected.pto` next to the golden
(`golden_util.check_golden`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from golden_util import check_golden

HERE = Path(__file__).parent
CASES = sorted(p for p in HERE.iterdir() if p.is_dir() and (p / "kernel.py").exists())


def _frontend():
    try:
        from pypto_verify import frontend
    except ImportError:  # pragma: no cover - while the frontend is being written
        pytest.skip("pypto_verify.frontend is not importable yet")
    if not hasattr(frontend, "read_file"):
        pytest.skip("pypto_verify.frontend.read_file is not there yet")
    return frontend


def emit_case(case: Path) -> str:
    """The emitted PTO of every kernel of `case/kernel.py`, as one module."""
    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.run.chain import emit_stage

    options = Options(mode="fixed", target="a2a3")
    (work,) = run_work([str(case / "kernel.py")], options, (Stage.READ, Stage.LOWER))
    assert work.status == "ok", [f.render() for f in work.findings]
    text, failed = emit_stage(work, options)
    assert not failed, failed
    return text


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_emission_matches_golden(case: Path, update_golden: bool) -> None:
    _frontend()
    check_golden(case / "expected.pto", emit_case(case), update_golden)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_is_in_the_simulator_subset(case: Path) -> None:
    from pypto_verify.sim import parse_pto

    expected_path = case / "expected.pto"
    if not expected_path.exists():
        pytest.skip("no golden yet")
    assert parse_pto(expected_path.read_text()).functions
