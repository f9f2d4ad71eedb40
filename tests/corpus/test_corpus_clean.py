"""Every top-level corpus kernel verifies clean in the fixed pipeline, and the corpus keeps its site census.

`corpus/*.py` (not `corpus/defects/`) are meant to be valid kernels (corpus/README.md): the fixed
pipeline must lower each one and find no error. One `check corpus --format json` run covers them all
(static and simulation: a mismatch is a PV201 error): the session's cold run, which the check goldens
pin and replay (tests/shared_runs.py); each file is its own test case. The census
(`pypto_verify.census`, read from the frontend's module) must keep at least 95 if-phi sites in at least
52 files, the counts of the public kernel library the corpus mirrors (TARGET_FACTS.md, "Kernel corpus
facts").
"""

from __future__ import annotations

from pathlib import Path

import pytest
import shared_runs

from pypto_verify import frontend
from pypto_verify.census import find_sites

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
FILES = sorted(CORPUS.glob("*.py"))

MIN_IF_PHI_SITES = 95
MIN_IF_PHI_FILES = 52

KNOWN_TOOL_BUGS: dict[str, str] = {}
"""Files that fail because of a known tool bug; strict, so the fix is noticed and the entry removed."""


def errors_by_file(block: str) -> dict[str, list[str]]:
    """`{file name: [rendered error findings]}` of a `check --format json` block (`== command (exit N)`,
    then the report, then any stderr) of the fixed pipeline."""
    report = shared_runs.report(block)
    assert report["pipeline"] == "fixed", report["pipeline"]
    out: dict[str, list[str]] = {Path(f["path"]).name: [] for f in report["files"]}
    for f in report["findings"]:
        if f["severity"] == "error":
            out[Path(f["path"]).name].append(f"{f['line']}: {f['rule']} {f['message']}")
    return out


def _cases():
    for path in FILES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_TOOL_BUGS[path.name])] if path.name in KNOWN_TOOL_BUGS else []
        yield pytest.param(path, id=path.name, marks=marks)


@pytest.mark.parametrize("path", list(_cases()))
def test_corpus_file_checks_clean_in_fixed_mode(path: Path, cold_check) -> None:
    block, _ = cold_check("corpus")
    assert block.startswith("== pypto-verify check corpus --format json (exit "), block[:200]
    errors = errors_by_file(block)
    assert path.name in errors, f"{path.name} was not checked"
    assert errors[path.name] == [], "\n".join(errors[path.name])


def test_corpus_keeps_at_least_95_if_phi_sites_in_52_files() -> None:
    per_file: dict[str, int] = {}
    for path in FILES:
        parsed = frontend.read_file(path)
        assert not parsed.errors, [str(e) for e in parsed.errors]
        count = sum(1 for site in find_sites(parsed.module) if site.form == "if-phi")
        if count:
            per_file[path.name] = count
    assert sum(per_file.values()) >= MIN_IF_PHI_SITES, per_file
    assert len(per_file) >= MIN_IF_PHI_FILES, sorted(per_file)
