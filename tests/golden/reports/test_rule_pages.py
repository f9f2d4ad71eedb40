"""Every rule has its page, `docs/rules/PVxxx.md`, which SARIF's `helpUri` points at: what, why, an
example, how to fix; an example taken from `corpus/defects/` names a file that plants that rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pypto_verify.rules import RULES

ROOT = Path(__file__).resolve().parents[3]
PAGES = ROOT / "docs" / "rules"


@pytest.mark.parametrize("rule_id", sorted(r.id for r in RULES.values() if not r.retired))
def test_every_rule_has_a_page_with_what_why_example_and_fix(rule_id: str) -> None:
    rule = RULES[rule_id]
    page = (PAGES / f"{rule.id}.md").read_text(encoding="utf-8")
    assert page.startswith(f"# {rule.id} {rule.name}\n")
    headings = re.findall(r"^## (.+)$", page, re.M)
    assert headings == ["What", "Why it matters", "Example", "How to fix"]
    assert rule.summary in page
    fix = page.split("## How to fix", 1)[1].strip()
    assert len(fix) > 40, "the fix section says how to fix it"
    for path in set(re.findall(r"\(\.\./\.\./(corpus/defects/[\w.]+\.py)\)", page)):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"#\s*expect(\[[a-z]+\])?:.*\b{rule.id}\b", source), f"{path} does not plant {rule.id}"


def test_no_page_for_a_rule_that_does_not_exist() -> None:
    assert {p.stem for p in PAGES.glob("*.md")} == {r.id for r in RULES.values() if not r.retired}
