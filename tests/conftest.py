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


@pytest.fixture(scope="session")
def cold_check(tmp_path_factory: pytest.TempPathFactory):
    """`cold_check(folder) -> (block, cache)`: one cold `check <folder> --format json` per session
    (tests/shared_runs.py)."""
    from shared_runs import cold_checks

    return cold_checks(tmp_path_factory)


@pytest.fixture(autouse=True)
def _no_user_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """`$PYPTO_VERIFY_CACHE_DIR` overrides `$XDG_CACHE_HOME`: unset, so a test that points the cache at its
    own directory never reads nor writes the user's."""
    monkeypatch.delenv("PYPTO_VERIFY_CACHE_DIR", raising=False)
