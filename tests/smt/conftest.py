"""Fixtures for the SMT tests: every test gets its own verdict cache (never the user's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


class Batches(list):
    """The z3 batches a test made, each as `(its number of queries, how many it checked)`; `real` is the batch
    function itself."""

    real: Callable[..., Any]

    def sizes(self) -> list[int]:
        return [size for size, _ in self]


@pytest.fixture
def batches(monkeypatch) -> Batches:
    """Every `solver._solve_batch` call of the test, recorded (and run as always)."""
    from pypto_verify.smt import solver

    made = Batches()
    made.real = real = solver._solve_batch

    def recorded(queries, timeout_ms, checked=None):
        made.append((len(queries), checked))
        return real(queries, timeout_ms, checked)

    monkeypatch.setattr(solver, "_solve_batch", recorded)
    return made
