"""SARIF 2.1.0 report for code scanning: one run, every rule described, stable fingerprints.

A finding's `partialFingerprints` hash rule + kernel + op + message (not the line), so moving code
does not make a known finding new; regions carry line and column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from pypto_verify import __version__
from pypto_verify.findings import fingerprint
from pypto_verify.run.records import RunResult
from pypto_verify.rules import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    return p.as_posix()


def _region(line: int, col: int) -> dict:
    return {"startLine": max(line, 1), "startColumn": max(col, 1)}


def to_sarif(report: RunResult) -> dict:
    rules = [r for r in RULES.values() if not r.retired]
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for f in report.findings:
        result = {
            "ruleId": f.rule.id,
            "ruleIndex": index[f.rule.id],
            "level": _LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.span.path)},
                                                "region": _region(f.span.line, f.span.col)}}],
            "partialFingerprints": {"pyptoVerify/v1": fingerprint(f)},
        }
        if f.notes:
            result["relatedLocations"] = [
                {"id": i, "message": {"text": n.message},
                 "physicalLocation": {"artifactLocation": {"uri": _uri(n.span.path)},
                                      "region": _region(n.span.line, n.span.col)}}
                for i, n in enumerate(f.notes)]
        props = {k: v for k, v in (("kernel", f.kernel), ("windows", list(f.windows)), ("values", list(f.values)),
                                   ("counterexample", f.counterexample)) if v}
        if props:
            result["properties"] = props
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pypto-verify",
                "version": __version__,
                "informationUri": "https://pypi.org/project/pypto-verify/",
                "rules": [{
                    "id": r.id, "name": r.name,
                    "shortDescription": {"text": r.summary},
                    "fullDescription": {"text": r.help},
                    "help": {"text": r.help},
                    "defaultConfiguration": {"level": _LEVEL[r.severity.value]},
                } for r in rules],
            }},
            "results": results,
        }],
    }


def write(report: RunResult, stream: TextIO) -> None:
    json.dump(to_sarif(report), stream, indent=2)
    stream.write("\n")
