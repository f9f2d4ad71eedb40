"""Where every cache of pypto-verify lives.

Owns `cache_root`: `$PYPTO_VERIFY_CACHE_DIR` when it is set, else `$XDG_CACHE_HOME/pypto-verify`, else
`~/.cache/pypto-verify`. The result cache (`run/cache.py`, `results/`), the Z3 verdict cache
(`smt/solver.py`, `smt/`) and Soufflé's compiled binaries (`engines/souffle_engine.py`, `souffle-bin/`)
all sit below it; `check --cache-dir DIR` sets the variable for the run and its worker processes, and
`pypto-verify cache dir` / `cache clean` print and empty it. Standard library only: a warm-cache run
imports it.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "PYPTO_VERIFY_CACHE_DIR"
"""The environment variable that moves every cache (`--cache-dir` sets it)."""


def cache_root() -> Path:
    """The directory that holds every cache (module docstring)."""
    chosen = os.environ.get(ENV)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pypto-verify"
