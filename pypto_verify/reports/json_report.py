"""JSON report: the object of L0C_RULES.md's output contract."""

from __future__ import annotations

import json
from typing import TextIO

from pypto_verify import __version__
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import RunResult


def to_json(report: RunResult) -> dict:
    return {
        "tool": "pypto-verify",
        "version": __version__,
        "pipeline": report.options.mode,
        "target": report.options.target,
        "files": [f.to_json() for f in report.files],
        "sites": report.sites,
        "verified_sites": report.verified_sites,
        "findings": [f.to_json() for f in report.findings],
    }


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    json.dump(to_json(report), stream, indent=2, sort_keys=False)
    stream.write("\n")
