"""SARIF 2.1.0 report for code scanning: one run, every rule described, stable fingerprints (L0C_RULES.md,
"Output contract"; the OASIS schema is the test's oracle, `tests/golden/reports/`).

Each rule has its page (`helpUri`, `docs/rules/PVxxx.md`), `help.text` / `help.markdown`, and
`properties` (tags, `precision`: `very-high` for a rule decided by a Datalog derivation or an SMT
proof, `high` for a simulation or an input error, `low` for an inconclusive; `problem.severity`).
Paths inside the repository are relative to `%SRCROOT%` (`originalUriBaseIds`); a path outside it is an
absolute file URI. A result's region has `endLine`/`endColumn` (the construct at the span, from the
source's `ast`) and a `snippet`; PV001, PV002, PV004 and PV009 carry a `codeFlows` path built from the
finding's notes then its own location (write → overwrite → read), each step with its message. The one
`invocation` records the command line and `executionSuccessful` (false when a PV999 internal error is
present). `partialFingerprints` hash rule + kernel + op + message (not the line), so moving code does not
make a known finding new.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from pypto_verify import __version__, rules
from pypto_verify.findings import Finding, Note, fingerprint
from pypto_verify.reports.settings import ReportSettings, repo_path
from pypto_verify.rules import RULES, Engine, Rule
from pypto_verify.run.records import RunResult
from pypto_verify.source import extent, source_line
from pypto_verify.span import Span

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
DOCS_URL = "https://github.com/hw-native-sys/pypto-verify/blob/main/docs/rules/"
"""Where `docs/rules/PVxxx.md` is published. NOTE: the repository has no public remote yet; this is the
organisation of pypto-lib, to be changed in this one place when the project is published."""
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "info": "recommendation"}
_PRECISION = {Engine.DATALOG: "very-high", Engine.LOWERING: "very-high", Engine.SMT: "very-high",
              Engine.SIM: "high", Engine.INPUT: "high"}
FLOW_RULES = frozenset({rules.DIVERGENT_ACC_PHI.id, rules.DIVERGENT_ACC_CARRY.id, rules.CLOBBERED_READ.id,
                        rules.FRAGMENTED_CHAIN.id})
"""The rules whose notes trace a path through the kernel (a value written, overwritten, read)."""


def help_uri(rule: Rule) -> str:
    return f"{DOCS_URL}{rule.id}.md"


def precision(rule: Rule) -> str:
    """`very-high` for a derivation or a proof, `high` for a run or an input error, `low` when undecided."""
    return "low" if rule.id == rules.INCONCLUSIVE.id else _PRECISION[rule.engine]


def _rule(rule: Rule) -> dict:
    markdown = (f"**{rule.id} {rule.name}**: {rule.summary}\n\n{rule.help}\n\n"
                f"See [{rule.id} {rule.name}]({help_uri(rule)}) for an example and how to fix it.")
    return {
        "id": rule.id, "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help, "markdown": markdown},
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": _LEVEL[rule.severity.value]},
        "properties": {
            "tags": ["correctness", "l0c", rule.engine.value],
            "precision": precision(rule),
            "problem.severity": _PROBLEM_SEVERITY[rule.severity.value],
        },
    }


def artifact_location(path: str, root: Path) -> dict:
    """`{"uri": "corpus/x.py", "uriBaseId": "%SRCROOT%"}` inside the repository, an absolute URI outside."""
    relative = repo_path(path, root)
    if relative is not None:
        return {"uri": relative, "uriBaseId": SRCROOT}
    p = Path(path)
    return {"uri": (p if p.is_absolute() else p.resolve()).as_uri()}


def region(span: Span) -> dict:
    """Start, end (the construct at the span when the source gives it) and the source line as snippet."""
    out: dict = {"startLine": max(span.line, 1), "startColumn": max(span.col, 1)}
    end = extent(span)
    if end is not None:
        out["endLine"], out["endColumn"] = end
    text = source_line(span.path, span.line)
    if text is not None:
        out["snippet"] = {"text": text.rstrip()}
    return out


def _physical(span: Span, root: Path) -> dict:
    return {"artifactLocation": artifact_location(span.path, root), "region": region(span)}


def _step(span: Span, message: str, root: Path) -> dict:
    return {"location": {"physicalLocation": _physical(span, root), "message": {"text": message}}}


def code_flow(finding: Finding, root: Path) -> dict | None:
    """The finding's notes in order, then its own location: one thread flow, each step with its message."""
    if finding.rule.id not in FLOW_RULES or not finding.notes:
        return None
    steps = [_step(n.span, n.message, root) for n in finding.notes if n.span.line > 0]
    steps.append(_step(finding.span, finding.message, root))
    return {"message": {"text": f"{finding.rule.id} {finding.rule.name}"},
            "threadFlows": [{"locations": steps}]}


def _related(notes: tuple[Note, ...], root: Path) -> list[dict]:
    return [{"id": i, "message": {"text": n.message}, "physicalLocation": _physical(n.span, root)}
            for i, n in enumerate(notes)]


def _result(finding: Finding, index: dict[str, int], root: Path) -> dict:
    result: dict = {
        "ruleId": finding.rule.id,
        "ruleIndex": index[finding.rule.id],
        "level": _LEVEL[finding.severity.value],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": _physical(finding.span, root)}],
        "partialFingerprints": {"pyptoVerify/v1": fingerprint(finding)},
    }
    if finding.notes:
        result["relatedLocations"] = _related(finding.notes, root)
    flow = code_flow(finding, root)
    if flow is not None:
        result["codeFlows"] = [flow]
    props = {k: v for k, v in (("kernel", finding.kernel), ("windows", list(finding.windows)),
                               ("values", list(finding.values)), ("counterexample", finding.counterexample)) if v}
    if props:
        result["properties"] = props
    return result


def invocation(report: RunResult, settings: ReportSettings) -> dict:
    """Whether pypto-verify itself ran to the end on every kernel (no PV999). No command line: the report is
    a function of the results alone, the same for any `--jobs`, cache state or output file, and a merge of
    `check --shard` reports equals the unsharded run's byte for byte."""
    crashed = [f for f in report.findings if f.rule.id == rules.INTERNAL_ERROR.id]
    out: dict = {"executionSuccessful": not crashed}
    if crashed:
        out["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": f.message},
             "locations": [{"physicalLocation": _physical(f.span, settings.root)}]} for f in crashed]
    return out


def to_sarif(report: RunResult, settings: ReportSettings = ReportSettings()) -> dict:
    described = [r for r in RULES.values() if not r.retired]
    index = {r.id: i for i, r in enumerate(described)}
    root = settings.root
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pypto-verify",
                "version": __version__,
                "informationUri": DOCS_URL.rsplit("/blob/", 1)[0],
                "rules": [_rule(r) for r in described],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri() + "/",
                                             "description": {"text": "the repository root"}}},
            "invocations": [invocation(report, settings)],
            "results": [_result(f, index, root) for f in report.findings],
        }],
    }


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    json.dump(to_sarif(report, settings), stream, indent=2)
    stream.write("\n")
