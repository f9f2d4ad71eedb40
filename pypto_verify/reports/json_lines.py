"""JSON Lines report: one finding per line, each the finding object of the JSON report (L0C_RULES.md,
"Output contract"), in the report's order; nothing else (no summary), so `grep` and `jq -c` can stream it."""

from __future__ import annotations

import json
from typing import TextIO

from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import RunResult


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    for finding in report.findings:
        stream.write(json.dumps(finding.to_json(), separators=(",", ":")) + "\n")
