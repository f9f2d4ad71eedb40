"""JSON report: the object of L0C_RULES.md's output contract."""

from __future__ import annotations

import json
from typing import TextIO

from pypto_verify import __version__
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import RunResult


def to_json(report: RunResult) -> dict:
    data = {
        "tool": "pypto-verify",
        "version": __version__,
        "pipeline": report.options.mode,
        "target": report.options.target,
        "files": [f.to_json() for f in report.files],
        "sites": report.sites,
        "verified_sites": report.verified_sites,
        "conditional_sites": report.conditional_sites,
        "findings": [f.to_json() for f in report.findings],
    }
    if report.shard is not None:  # what `merge` needs to rebuild the whole run (reports/merge.py)
        shard = report.shard
        data["shard"] = {"index": shard.index, "count": shard.count, "total": shard.total,
                         "positions": list(shard.positions),
                         "sites": [[s.to_json() for s in f.sites] for f in report.files]}
    return data


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    json.dump(to_json(report), stream, indent=2, sort_keys=False)
    stream.write("\n")
