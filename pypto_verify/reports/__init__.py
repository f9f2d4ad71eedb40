"""Reporters: a run's records to text, JSON, SARIF, GitHub annotations, GitLab Code Quality, JUnit XML or
JSON Lines on a stream. Owns `FORMATS`, the one table from a `--format` name to its writer; each writer is
`write(report, stream, settings)` in its own module and reads `run.records` (and the source behind a
span) only."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from pypto_verify.reports import github, gitlab, json_lines, json_report, junit, sarif, text
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import RunResult

Writer = Callable[[RunResult, TextIO, ReportSettings], None]

FORMATS: dict[str, Writer] = {
    "text": text.write,
    "json": json_report.write,
    "json-lines": json_lines.write,
    "sarif": sarif.write,
    "github": github.write,
    "gitlab": gitlab.write,
    "junit": junit.write,
}
