"""The planted defects of `corpus/defects/` give exactly the findings written in them (STYLE.md §11).

Each defect file marks every expected finding on the line the tool reports it, with a trailing comment
read here with `tokenize`: `# expect: PV004` (both pipelines), `# expect[legacy]: PV001` or
`# expect[fixed]: PV001` (one pipeline), several ids separated by spaces (`# expect: PV003 PV007`; an id
written twice is two findings on that line). For every (file, pipeline) the multiset of (rule id, line)
of the error and warning findings of `check` must equal the expectations exactly. Info findings (PV010)
are ignored; PV100 (inconclusive, a warning) is not: none of these files may leave an obligation open.

PV201 (the dynamic check) is only run by `check` on kernels without error findings, and a planted
defect always has some, so for a file whose expectations mention PV201 or PV202 the dynamic check is run
directly (the chain's read, lower and simulate stages, in both pipelines) and each mismatch counts as a
finding on its source kernel's `def` line, as `check` would report it. The static findings are read from
the session's cold `check corpus/defects` run in each pipeline (tests/shared_runs.py), without its
dynamic ones.
"""

from __future__ import annotations

import re
import tokenize
from collections import Counter
from pathlib import Path

import pytest
import shared_runs

from pypto_verify.run import Options, Stage, run_work

ROOT = Path(__file__).resolve().parents[2]
DEFECTS = ROOT / "corpus" / "defects"
PIPELINES = ("fixed", "legacy")
DYNAMIC_RULES = frozenset({"PV201", "PV202"})
IGNORED_RULES = frozenset({"PV010"})

EXPECT = re.compile(r"#\s*expect(?:\[(?P<pipeline>[a-z-]+)\])?\s*:\s*(?P<ids>.*)$")
RULE_ID = re.compile(r"PV\d{3}")

KNOWN_TOOL_BUGS: dict[tuple[str, str], str] = {}
"""(file stem, pipeline) pairs that fail because of a tool bug, not the file; strict, so a fix is noticed."""

FILES = sorted(DEFECTS.glob("*.py"))


def expectations(path: Path) -> dict[str, Counter]:
    """`{pipeline: Counter((rule id, line))}` from the `# expect...` comments of *path*."""
    out = {p: Counter() for p in PIPELINES}
    with path.open(encoding="utf-8") as handle:
        for token in tokenize.generate_tokens(handle.readline):
            if token.type != tokenize.COMMENT:
                continue
            match = EXPECT.search(token.string)
            if match is None:
                continue
            pipeline = match.group("pipeline")
            assert pipeline in (None, *PIPELINES), f"{path.name}:{token.start[0]}: unknown pipeline {pipeline!r}"
            ids = match.group("ids").replace(",", " ").split()
            assert ids and all(RULE_ID.fullmatch(i) for i in ids), \
                f"{path.name}:{token.start[0]}: malformed expectation {token.string!r}"
            for pipe in ([pipeline] if pipeline else PIPELINES):
                out[pipe].update((rule, token.start[0]) for rule in ids)
    return out


def dynamic_findings(path: Path, pipeline: str) -> Counter:
    """(rule, def line) of every kernel of *path* whose simulation does not match its reference."""
    (work,) = run_work([str(path)], Options(mode=pipeline), (Stage.READ, Stage.LOWER, Stage.SIMULATE))
    found: Counter = Counter()
    for kernel in work.kernels:
        outcome = kernel.simulation
        if outcome is not None and outcome.status == "mismatch" and kernel.source is not None:
            found[(outcome.rule, kernel.source.span.line)] += 1
    return found


def static_findings(cold_check, pipeline: str) -> dict[str, Counter]:
    """The static findings of every defect file in *pipeline*: `{file stem: Counter((rule id, line))}` of the
    error and warning findings of one `check corpus/defects` run (one Datalog run for all of them), the
    session's cold run the check goldens pin (tests/shared_runs.py). Its dynamic findings (PV201, PV202)
    are left out: the files that expect them are simulated directly, below."""
    block, _ = cold_check("corpus/defects", *(("--pipeline", pipeline) if pipeline != "fixed" else ()))
    report = shared_runs.report(block)
    assert report["pipeline"] == pipeline
    found: dict[str, Counter] = {Path(f["path"]).stem: Counter() for f in report["files"]}
    for finding in report["findings"]:
        if finding["severity"] in ("error", "warning") and finding["rule"] not in IGNORED_RULES | DYNAMIC_RULES:
            found[Path(finding["path"]).stem][(finding["rule"], finding["line"])] += 1
    return found


def _cases():
    for path in FILES:
        for pipeline in PIPELINES:
            marks = []
            if (path.stem, pipeline) in KNOWN_TOOL_BUGS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_TOOL_BUGS[(path.stem, pipeline)]))
            yield pytest.param(path, pipeline, id=f"{path.stem}[{pipeline}]", marks=marks)


def _render(counter: Counter) -> list[str]:
    return sorted(f"line {line}: {rule}" + (f" x{n}" if n > 1 else "") for (rule, line), n in counter.items())


@pytest.mark.parametrize("path, pipeline", list(_cases()))
def test_defect_file_reports_exactly_its_expectations(path: Path, pipeline: str, cold_check) -> None:
    expected = expectations(path)
    found = Counter(static_findings(cold_check, pipeline)[path.stem])
    if any(rule in DYNAMIC_RULES for pipe in PIPELINES for rule, _ in expected[pipe]):
        found.update(dynamic_findings(path, pipeline))
    missing, unexpected = expected[pipeline] - found, found - expected[pipeline]
    assert not missing and not unexpected, (
        f"{path.name} [{pipeline}]: missing {_render(missing)}, unexpected {_render(unexpected)}")


def test_every_defect_file_says_what_it_plants() -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        assert text.startswith(('"""', "#")), f"{path.name} must start with a docstring or comment"


def test_manifest_lists_every_defect_file() -> None:
    manifest = (DEFECTS / "MANIFEST.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`([a-z0-9_]+\.py)`", manifest))
    assert listed == {p.name for p in FILES}


def test_every_rule_has_a_planted_defect() -> None:
    planted = {rule for path in FILES for pipe in expectations(path).values() for rule, _ in pipe}
    required = {"PV001", "PV002", "PV003", "PV004", "PV005", "PV006", "PV007", "PV008", "PV009", "PV011",
                "PV102", "PV103", "PV104", "PV201"}
    assert required <= planted, sorted(required - planted)
