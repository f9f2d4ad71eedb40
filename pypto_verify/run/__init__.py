"""One spine for a run (ARCHITECTURE.md, "The run: one spine").

- `records`: frozen options, stages and results — what reporters read;
- `inputs`: file collection, excludes, suppressions, baselines and rule filters;
- `cache`: the result cache (stored by content, replayed onto the path as given);
- `spine`: `run`, what `check` runs: the cache first, then the chain for the files it missed, then the
  importers of a named module that defines no kernel;
- `imports`: which files of a project import a module (the reverse of the frontend's local imports);
- `chain`: the stages in order: `check_files` and `run_work`, which every other command calls with the
  stages it needs.

`run`, `run_work` and `chain` are loaded on first use, so a warm-cache `check` never imports the chain.
"""

import importlib
from typing import Any

from pypto_verify.run.records import FileResult, KernelResult, Options, RunResult, Stage

__all__ = ["FileResult", "KernelResult", "Options", "RunResult", "Stage", "run", "run_work"]

_LAZY = {"run": ("pypto_verify.run.spine", "run"), "run_work": ("pypto_verify.run.chain", "run_work")}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    if name in ("chain", "spine", "cache", "inputs", "imports"):
        return importlib.import_module(f"pypto_verify.run.{name}")
    raise AttributeError(f"module 'pypto_verify.run' has no attribute {name!r}")
