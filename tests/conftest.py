"""Shared pytest configuration: `--update-golden` regenerates expected outputs (STYLE.md §1.6)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# `from golden_util import check_golden` works from any test folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files from the actual output instead of comparing")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was started with `--update-golden`."""
    return bool(request.config.getoption("--update-golden"))
