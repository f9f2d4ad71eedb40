"""JUnit XML report: one `<testsuite>` per file, one `<testcase>` per kernel (`classname` the file,
`name` the kernel), a `<failure>` per error finding of that kernel, for CI systems that show test results
(GitLab `reports: junit`, Jenkins, Azure).

A kernel with no error finding passes, unless its verdict is `inconclusive` or `conditional`, which is
not a pass either (`<skipped>` with the statement: an unknown never passes); warnings and notes go to
the testcase's `<system-out>`. Findings of a file that no kernel owns (a PV000 on a file that did not
read, a PV900) belong to a testcase named `<file>`. Built with `xml.etree`, so every text is escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TextIO

from pypto_verify.findings import Finding
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import FileResult, KernelResult, RunResult

FILE_CASE = "<file>"
"""The testcase of a file's findings that belong to no kernel."""


def _failure(case: ET.Element, finding: Finding) -> None:
    body = "\n".join([f"{finding.span}: {finding.message}", *(f"{n.span}: note: {n.message}" for n in finding.notes)])
    failure = ET.SubElement(case, "failure", message=f"{finding.rule.id} {finding.rule.name}: {finding.message}",
                            type=finding.rule.id)
    failure.text = body


def _case(suite: ET.Element, file: FileResult, name: str, findings: list[Finding],
          kernel: KernelResult | None) -> ET.Element:
    case = ET.SubElement(suite, "testcase", classname=file.path, name=name, file=file.path)
    errors = [f for f in findings if f.severity.value == "error"]
    for finding in errors:
        _failure(case, finding)
    if not errors and kernel is not None and kernel.verdict in ("inconclusive", "conditional"):
        ET.SubElement(case, "skipped", message=kernel.statement)
    others = [f for f in findings if f.severity.value != "error"]
    if others:
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(f"{f.span}: {f.rule.id} {f.rule.name}: {f.message}" for f in others)
    return case


def _suite(file: FileResult) -> ET.Element:
    suite = ET.Element("testsuite", name=file.path)
    by_kernel: dict[str, list[Finding]] = {}
    for finding in sorted(file.findings, key=Finding.sort_key):
        by_kernel.setdefault(finding.kernel, []).append(finding)
    names = {k.name for k in file.kernels}
    for kernel in file.kernels:
        _case(suite, file, kernel.name, by_kernel.get(kernel.name, []), kernel)
    orphans = [f for name, fs in by_kernel.items() if name not in names for f in fs]
    if orphans or not file.kernels:
        _case(suite, file, FILE_CASE, orphans, None)
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("errors", "0")
    return suite


def to_junit(report: RunResult) -> ET.Element:
    root = ET.Element("testsuites", name="pypto-verify")
    suites = [_suite(file) for file in report.files]
    root.extend(suites)
    for key in ("tests", "failures", "skipped", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    return root


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    tree = to_junit(report)
    ET.indent(tree)
    stream.write('<?xml version="1.0" encoding="utf-8"?>\n')
    stream.write(ET.tostring(tree, encoding="unicode"))
    stream.write("\n")
