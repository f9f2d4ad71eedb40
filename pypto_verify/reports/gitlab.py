"""GitLab Code Quality report: a JSON array with one issue per finding (`description`, `check_name`,
`fingerprint`, `severity`, `location.path`, `location.lines.begin`), as GitLab's merge-request widget reads
it (`artifacts: reports: codequality`).

Paths are relative to the repository root (GitLab matches them against the diff); a path outside it is
kept as given. Severity error → `major`, warning → `minor`, info → `info`. The fingerprint is the
finding's stable fingerprint (`findings.fingerprint`, no line numbers) joined with its path, with a
counter for the rare identical pair, so it is unique within the report and survives a line move.
"""

from __future__ import annotations

import hashlib
import json
from typing import TextIO

from pypto_verify.findings import Finding, fingerprint
from pypto_verify.reports.settings import ReportSettings, repo_path
from pypto_verify.run.records import RunResult
from pypto_verify.source import extent

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def issue(finding: Finding, path: str, print_: str) -> dict:
    """One Code Quality issue."""
    begin = max(finding.span.line, 1)
    end = extent(finding.span)
    description = f"{finding.rule.id} {finding.rule.name}: {finding.message}"
    return {
        "description": description,
        "check_name": f"{finding.rule.id} {finding.rule.name}",
        "fingerprint": print_,
        "severity": _SEVERITY[finding.severity.value],
        "categories": ["Bug Risk"],
        "location": {"path": path, "lines": {"begin": begin, "end": end[0] if end else begin}},
    }


def to_gitlab(report: RunResult, settings: ReportSettings = ReportSettings()) -> list[dict]:
    issues = []
    seen: dict[str, int] = {}
    for finding in report.findings:
        path = repo_path(finding.span.path, settings.root) or finding.span.path
        base = f"{path}\0{fingerprint(finding)}"
        seen[base] = seen.get(base, 0) + 1
        print_ = hashlib.sha256(f"{base}\0{seen[base]}".encode()).hexdigest()[:32]
        issues.append(issue(finding, path, print_))
    return issues


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    json.dump(to_gitlab(report, settings), stream, indent=2)
    stream.write("\n")
