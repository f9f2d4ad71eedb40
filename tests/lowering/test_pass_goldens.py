"""Golden tests of the passes: `tests/golden/passes/<pass-name>/<case>/kernel.py`, lowered up to and
including `<pass-name>`, prints exactly `expected.py`.

The first line of `kernel.py` may say `# lower: --pipeline legacy --target a5` (default: fixed, a2a3).
Every dump of the run is checked with verify_ir, and `expected.py` must read back without errors.
Regenerate with `pytest --update-golden`; a failure writes the gitignored `actual.expected.py` beside
the golden (`golden_util.check_golden`).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

import lowering_builders as b

from golden_util import check_golden

GOLDEN = Path(__file__).parents[1] / "golden" / "passes"
CASES = sorted(p for p in GOLDEN.glob("*/*") if (p / "kernel.py").exists())


def case_options(kernel: Path) -> tuple[str, str]:
    """(pipeline mode, target) from the `# lower:` header line."""
    mode, target = "fixed", "a2a3"
    first = kernel.read_text().splitlines()[0]
    if first.startswith("# lower:"):
        words = shlex.split(first[len("# lower:"):])
        for flag, value in zip(words, words[1:]):
            if flag == "--pipeline":
                mode = value
            elif flag == "--target":
                target = value
    return mode, target


def lower_case(case: Path) -> str:
    from pypto_verify.frontend import read_file
    from pypto_verify.printer import print_module

    parsed = read_file(case / "kernel.py")
    assert not parsed.errors, [str(e) for e in parsed.errors]
    mode, target = case_options(case / "kernel.py")
    result = b.lower_checked(parsed.module, mode, stop_after=case.parent.name, target=target)
    assert not result.errors, [str(e) for e in result.errors]
    return print_module(result.module)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pass_output_matches_golden(case: Path, update_golden: bool) -> None:
    check_golden(case / "expected.py", lower_case(case), update_golden)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_reads_back(case: Path) -> None:
    from pypto_verify.frontend import read_file

    expected = case / "expected.py"
    if not expected.exists():
        pytest.skip("no golden yet")
    parsed = read_file(expected)
    assert not parsed.errors, [str(e) for e in parsed.errors]


def test_every_pass_of_this_package_has_golden_cases() -> None:
    from pypto_verify.lowering.pipeline import FIXED

    mine = [p.name for p in FIXED[:6]]
    assert sorted({c.parent.name for c in CASES}) == sorted(mine)
