"""The install instructions name what exists (issue 16): pypto-verify is on no package index and no release is
tagged, so the CI example and the pre-commit snippet install from the repository and pin no invented tag."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", ROOT / "docs" / "ci-workflow.yml")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_install_from_a_package_index(doc: Path) -> None:
    text = doc.read_text()
    assert not re.search(r"pip install\s+['\"]?pypto-verify\b", text)


def test_the_ci_example_installs_the_checkout() -> None:
    assert re.search(r"^\s*- run: pip install \.(\s+#.*)?$", (ROOT / "docs" / "ci-workflow.yml").read_text(), re.M)


def test_a_pre_commit_rev_is_a_tag_that_exists_or_a_documented_placeholder() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tags = set(subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    revs = re.findall(r"^\s*rev:\s*(\S+)", (ROOT / "README.md").read_text(), re.M)
    assert revs
    for rev in revs:
        assert rev in tags or rev == "<commit-sha>", rev


def test_the_hook_passes_the_staged_files_to_check() -> None:
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: pypto-verify check" in hook and "pass_filenames: false" not in hook
