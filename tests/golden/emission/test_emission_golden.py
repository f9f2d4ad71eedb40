"""Golden tests of the PTO emitter: `<case>/kernel.py` emits exactly `<case>/expected.pto`.

Form 3 inputs (lowered IR after allocate-memory-addr) are emitted as given, so a golden pins the
emitter alone; a source kernel would be lowered in fixed mode first. Regenerate with
`pytest --update-golden` (when the option is registered) or `PYPTO_UPDATE_GOLDEN=1 pytest ...`; a
failure writes the gitignored `<case>/actual.pto` next to the golden.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

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


def _update(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden", default=False)) or \
        os.environ.get("PYPTO_UPDATE_GOLDEN") == "1"


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
def test_emission_matches_golden(case: Path, request: pytest.FixtureRequest) -> None:
    _frontend()
    actual = emit_case(case)
    expected_path = case / "expected.pto"
    if _update(request):
        expected_path.write_text(actual)
        return
    assert expected_path.exists(), f"missing golden {expected_path}; run with PYPTO_UPDATE_GOLDEN=1"
    expected = expected_path.read_text()
    if actual != expected:
        (case / "actual.pto").write_text(actual)
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "expected.pto", "actual.pto"))
        pytest.fail(f"emission differs from the golden (diff {case}/expected.pto {case}/actual.pto):\n{diff}")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_is_in_the_simulator_subset(case: Path) -> None:
    from pypto_verify.sim import parse_pto

    expected_path = case / "expected.pto"
    if not expected_path.exists():
        pytest.skip("no golden yet")
    assert parse_pto(expected_path.read_text()).functions
