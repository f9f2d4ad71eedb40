"""Engine parity (STYLE.md §11): Soufflé and the clingo translation give identical relations.

Runs every fixture program under programs/ through both engines; skipped when `souffle` is not on PATH.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine_cases import CASES, PROGRAMS, facts_dir
from pypto_verify.engines.api import run_program

pytestmark = pytest.mark.skipif(shutil.which("souffle") is None, reason="souffle not on PATH")


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.name)
def test_souffle_and_clingo_agree(case: Path, tmp_path: Path) -> None:
    facts = facts_dir(case, tmp_path)
    clingo = run_program(case / "program.dl", facts, engine="clingo", out_dir=tmp_path / "clingo")
    souffle = run_program(case / "program.dl", facts, engine="souffle", out_dir=tmp_path / "souffle")
    assert souffle == clingo
    for path in (tmp_path / "clingo").iterdir():
        assert (tmp_path / "souffle" / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("case", [PROGRAMS / "aggregates"], ids=["aggregates"])
def test_compiled_souffle_agrees_with_clingo(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip("no C++ compiler for souffle -o")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    facts = facts_dir(case, tmp_path)
    compiled = run_program(case / "program.dl", facts, engine="souffle", compiled=True, timeout=600.0)
    assert compiled == run_program(case / "program.dl", facts, engine="clingo")
