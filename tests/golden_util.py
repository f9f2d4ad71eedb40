"""Golden-file comparison shared by every golden test (`tests/golden/<kind>/`).

`check_golden(path, actual, update)`: with *update* (pytest `--update-golden`), write *actual* to
*path*; otherwise compare it with the file. On a mismatch the actual text is written beside the
golden as `actual.<name>` (gitignored) and the test fails with a unified diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest


def check_golden(path: str | Path, actual: str, update: bool) -> None:
    """Assert that *actual* equals the golden file at *path* (or rewrite it when *update*)."""
    path = Path(path)
    actual_path = path.with_name(f"actual.{path.name}")
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        actual_path.unlink(missing_ok=True)
        return
    if not path.exists():
        actual_path.write_text(actual, encoding="utf-8")
        pytest.fail(f"golden file {path} is missing (actual output in {actual_path}); "
                    "run pytest with --update-golden to create it")
    expected = path.read_text(encoding="utf-8")
    if expected == actual:
        actual_path.unlink(missing_ok=True)
        return
    actual_path.write_text(actual, encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        fromfile=str(path), tofile=str(actual_path)))
    pytest.fail(f"output differs from {path} (actual in {actual_path}; --update-golden to accept):\n{diff}")
