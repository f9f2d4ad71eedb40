"""Round trip: parse → print → parse gives a structurally equal IR (spans aside), and printing is a
fixed point, over every kernel file of the corpus, the tests and the compiler's own dumps."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pypto_verify.frontend import read_file, read_source
from pypto_verify.printer import print_module

ROOT = Path(__file__).resolve().parents[2]
REAL_IR = next((p for p in (Path(__file__).resolve().parents[2].parent / "shared" / "real-ir", Path("/work/shared/real-ir")) if p.is_dir()), Path("/work/shared/real-ir"))


def _files(base: Path) -> list[Path]:
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob("*.py")
                  if "__pycache__" not in p.parts and not p.name.startswith("actual."))


def _id(path: Path) -> str:
    for base in (ROOT, REAL_IR.parent):
        if path.is_relative_to(base):
            return str(path.relative_to(base))
    return str(path)


CORPUS = _files(ROOT / "corpus")
TESTS = [p for p in _files(ROOT / "tests") if not p.is_relative_to(ROOT / "tests" / "fuzz" / "found")]
"""Every kernel file of the tests but the hostile fuzzer's finds (`tests/fuzz/found`: inputs that crashed us once,
such as a NaN fill, whose constant is never equal to itself)."""
REAL = _files(REAL_IR)


def check_round_trip(path: Path) -> None:
    first = read_file(path)
    text = print_module(first.module)
    ast.parse(text)  # valid Python
    second = read_source(text, str(path))
    assert second.errors == (), [str(e) for e in second.errors]
    assert second.module.programs == first.module.programs
    assert print_module(second.module) == text


def test_the_corpus_and_the_tests_have_kernel_files():
    assert TESTS and any(p.parts[-3:-1] == ("fixtures", "form3") for p in TESTS)


@pytest.mark.parametrize("path", CORPUS, ids=_id)
def test_corpus_file_round_trips(path):
    check_round_trip(path)


@pytest.mark.parametrize("path", TESTS, ids=_id)
def test_tests_file_round_trips(path):
    check_round_trip(path)


@pytest.mark.skipif(not REAL, reason="needs /work/shared/real-ir")
@pytest.mark.parametrize("path", REAL, ids=_id)
def test_real_compiler_dump_round_trips(path):
    check_round_trip(path)
