"""Inline suppressions (`run/inputs.py`) and baselines (issue 16): ids in any case, rule names, a bare
`ignore`, PV900 at the comment; a suppressed error does not surface the kernel's undecided obligations;
baseline fingerprints without generated buffer names, keyed by project-relative path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pypto_verify import rules
from pypto_verify.findings import Finding, Note
from pypto_verify.run.inputs import apply_suppressions, baseline_fingerprint, suppressions, _SourceLines
from pypto_verify.span import Span

ROOT = Path(__file__).resolve().parents[2]
PV004_KERNEL = ROOT / "corpus" / "defects" / "pv004_read_after_inplace.py"  # PV004 at 29:9
SOURCE = "x = 1\ny = 2  # pypto-verify: ignore[pv004, clobbered-read]\nz = 3\t# pypto-verify: ignore\n"


def _finding(rule: rules.Rule, line: int, function: str = "k") -> Finding:
    return Finding(rule, Span("k.py", line, 1), f"{rule.name} here", function, function)


def test_suppression_ids_in_any_case_and_names() -> None:
    found = suppressions(SOURCE)
    assert found[2].rules == {"PV004"} and found[2].col == 8
    assert found[3].rules is None and found[3].col == 7


def test_a_lower_case_id_suppresses() -> None:
    kept = apply_suppressions("k.py", SOURCE, [_finding(rules.CLOBBERED_READ, 2)])
    assert [(f.rule.id, f.span.line) for f in kept] == [("PV900", 3)]  # only the bare ignore on line 3 is unused


def test_a_bare_ignore_suppresses_every_finding_on_its_line() -> None:
    text = "a = 1\nb = 2  # pypto-verify: ignore\n"
    kept = apply_suppressions("k.py", text, [_finding(rules.CLOBBERED_READ, 2), _finding(rules.L0C_CAPACITY, 2),
                                             _finding(rules.L0C_CAPACITY, 1)])
    assert [(f.rule.id, f.span.line) for f in kept] == [("PV008", 1)]


def test_an_unused_suppression_is_reported_at_the_comment_column() -> None:
    text = "a = 1\nbb = 2      # Pypto-Verify: ignore[PV003]\nc = 3  # pypto-verify: ignore\n"
    kept = apply_suppressions("k.py", text, [])
    assert sorted((f.rule.id, f.span.line, f.span.col) for f in kept) == [("PV900", 2, 13), ("PV900", 3, 8)]


def test_a_word_naming_no_rule_is_reported() -> None:
    kept = apply_suppressions("k.py", "a = 1  # pypto-verify: ignore[PV004, clobbered]\n",
                              [_finding(rules.CLOBBERED_READ, 1)])
    assert [(f.rule.id, f.span.col) for f in kept] == [("PV900", 8)]
    assert "`ignore[clobbered]` names no rule" in kept[0].message


def test_a_suppressed_error_does_not_surface_the_kernels_undecided_obligation() -> None:
    """The verdict rests on the findings before suppression; so does hiding a failed kernel's PV100 (one that a
    kernel with an error gets, e.g. a GM window not shown in bounds beside a refuted obligation, or the Datalog
    time limit beside a lowering error). Suppressing the error must not print that PV100 on its own line."""
    from pypto_verify.ir import Module
    from pypto_verify.run.chain import FileWork, finish

    text = "\n" * 9 + "x = 1  # pypto-verify: ignore[PV004]\n"
    error = _finding(rules.CLOBBERED_READ, 10)
    undecided = _finding(rules.INCONCLUSIVE, 4)
    result = finish(FileWork("k.py", Module("k.py", ()), findings=(error, undecided), text=text))
    assert result.findings == ()


def test_the_pv004_defect_with_its_finding_suppressed_shows_nothing_else(tmp_path: Path) -> None:
    """The PV100 the issue saw is the SMT stage's: proved, `stale_partial`'s five chain obligations are
    inconclusive at line 27 ("`first` is read at line 29 after the chain moved on (PV004 reports where)", see
    `prove`). A kernel with an error finding before suppression is never proved, so none may appear."""
    lines = PV004_KERNEL.read_text().splitlines()
    lines[28] = lines[28].replace("# expect: PV004", "# pypto-verify: ignore[pv004]")
    target = tmp_path / "k.py"
    target.write_text("\n".join(lines) + "\n")
    result = subprocess.run([sys.executable, "-m", "pypto_verify", "check", str(target), "--jobs", "1",
                             "--format", "json"], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYPTO_VERIFY_CACHE_DIR": str(tmp_path / "cache")})
    data = json.loads(result.stdout)
    assert data["findings"] == [] and result.returncode == 0
    assert [k["verdict"] for f in data["files"] for k in f["kernels"]] == ["findings"]  # silenced, not proved


# ------------------------------------------------------------------------------------------- baselines


def test_a_fingerprint_holds_no_generated_buffer_name(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text("a = 1\nb = 2\n")
    lines = _SourceLines()

    def pv004(buffer: str, line: int) -> Finding:
        return Finding(rules.CLOBBERED_READ, Span(str(tmp_path / "k.py"), 2, 1),
                       f"`first` is read from {buffer}[0:4096] after `total` (line {line}) overwrote it", "k", "k",
                       (Note(Span(str(tmp_path / "k.py"), 1, 1), "written here"),), values=("first", "total"))

    assert baseline_fingerprint(pv004("mem_acc_8", 1), lines) == baseline_fingerprint(pv004("mem_acc_9", 7), lines)
    other = replace_values(pv004("mem_acc_8", 1), ("second", "total"))
    assert baseline_fingerprint(other, lines) != baseline_fingerprint(pv004("mem_acc_8", 1), lines)


def replace_values(finding: Finding, values: tuple[str, ...]) -> Finding:
    from dataclasses import replace

    return replace(finding, values=values)


def _check(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pypto_verify", "check", "--jobs", "1", "--no-sim", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYPTO_VERIFY_CACHE_DIR": str(cache)})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "kernels").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[project]\nname = 'k'\n")
    shutil.copy(PV004_KERNEL, repo / "kernels" / "k.py")
    return repo


def test_a_baseline_written_in_one_directory_holds_from_another(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    written = _check("kernels/k.py", "--write-baseline", "baseline.json", cwd=project, cache=cache)
    assert written.returncode == 1
    data = json.loads((project / "baseline.json").read_text())
    assert [e["path"] for e in data["findings"]] == ["kernels/k.py"]
    assert "mem_acc" not in json.dumps(data)
    from_inside = _check("k.py", "--baseline", "../baseline.json", cwd=project / "kernels", cache=cache)
    assert from_inside.returncode == 0, from_inside.stdout
    from_outside = _check(str(project / "kernels" / "k.py"), "--baseline", str(project / "baseline.json"),
                          cwd=tmp_path, cache=cache)
    assert from_outside.returncode == 0, from_outside.stdout


def test_a_baselined_finding_stays_baselined_when_an_unrelated_matmul_renumbers_its_buffer(project: Path,
                                                                                            tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _check("kernels/k.py", "--write-baseline", "baseline.json", cwd=project, cache=cache)
    before = _check("kernels/k.py", "--format", "json", cwd=project, cache=cache)
    kernel = project / "kernels" / "k.py"
    lines = kernel.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "first = pl.matmul(" in line)
    extra = lines[at].replace("first = ", "extra = ")
    lines[at:at] = [extra, lines[at].split("first")[0] + "y[:, :] = extra"]
    kernel.write_text("\n".join(lines) + "\n")
    after = _check("kernels/k.py", "--format", "json", cwd=project, cache=cache)
    messages = [f["message"] for f in json.loads(before.stdout)["findings"] + json.loads(after.stdout)["findings"]]
    assert len(set(messages)) == 2, messages  # the buffer's name moved
    kept = _check("kernels/k.py", "--baseline", "baseline.json", "--format", "json", cwd=project, cache=cache)
    assert json.loads(kept.stdout)["findings"] == [], kept.stdout


def test_a_missing_baseline_is_a_usage_error_before_the_run(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    result = _check("kernels/k.py", "--baseline", "nope.json", cwd=project, cache=cache)
    assert result.returncode == 2 and "nope.json" in result.stderr
    assert not (cache / "results").exists()
