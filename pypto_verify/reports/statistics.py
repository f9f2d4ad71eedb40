"""Per-rule counts of a run's findings (`check --statistics`, as ruff prints them): `count  id  name`,
most frequent first, then by rule id."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from pypto_verify.run.records import RunResult


def rule_counts(report: RunResult) -> list[tuple[int, str, str]]:
    """(count, rule id, rule name) for every rule with at least one finding, most frequent first."""
    counts = Counter((f.rule.id, f.rule.name) for f in report.findings)
    return sorted(((n, rule_id, name) for (rule_id, name), n in counts.items()), key=lambda row: (-row[0], row[1]))


def render(report: RunResult) -> str:
    """The table, one line per rule, counts right-aligned."""
    rows = rule_counts(report)
    width = max((len(str(n)) for n, _, _ in rows), default=1)
    return "".join(f"{n:>{width}}  {rule_id}  {name}\n" for n, rule_id, name in rows)


def write(report: RunResult, stream: TextIO) -> None:
    stream.write(render(report))
