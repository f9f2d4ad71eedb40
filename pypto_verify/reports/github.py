"""GitHub Actions report: one workflow command per finding, which the runner turns into an annotation on
the pull request's diff (`::error file=F,line=L,col=C,endLine=L,endColumn=C,title=PV004 clobbered-read::msg`).

Severity error → `::error`, warning → `::warning`, info → `::notice`. The message carries the notes on
their own lines. Property values and the message are escaped as the runner requires (`%`, CR, LF; and in
properties also `:` and `,`), so a message with a colon or a newline cannot end the command early.
"""

from __future__ import annotations

from typing import TextIO

from pypto_verify.findings import Finding
from pypto_verify.reports.settings import ReportSettings, repo_path
from pypto_verify.run.records import RunResult
from pypto_verify.source import extent

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF percent-encoded (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value: as `escape_data`, and `:` and `,` too (actions/toolkit `escapeProperty`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding, settings: ReportSettings = ReportSettings()) -> str:
    """The workflow command of one finding; its file relative to the repository root, as the runner
    matches it against the checkout (a path outside the root is kept as given)."""
    span = finding.span
    props = [("file", repo_path(span.path, settings.root) or span.path), ("line", str(max(span.line, 1))),
             ("col", str(max(span.col, 1)))]
    end = extent(span)
    if end is not None:
        props += [("endLine", str(end[0])), ("endColumn", str(end[1]))]
    props.append(("title", f"{finding.rule.id} {finding.rule.name}"))
    message = "\n".join([finding.message, *(f"{n.span}: note: {n.message}" for n in finding.notes)])
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{_COMMAND[finding.severity.value]} {rendered}::{escape_data(message)}"


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    for finding in report.findings:
        stream.write(command(finding, settings) + "\n")
