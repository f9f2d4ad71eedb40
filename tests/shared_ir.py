"""A kernel file read, and lowered, once per test session: the IR is frozen, so the tests that walk the
corpus (`tests/smt`, `tests/lowering/memory`) share one reading and one lowering of each file instead of
making their own (issue 18, item 7)."""

from __future__ import annotations

import functools
from pathlib import Path


@functools.lru_cache(maxsize=None)
def read(path: Path):
    """`frontend.read_file(path)`: its module, errors and warnings."""
    from pypto_verify.frontend import read_file

    return read_file(path)


@functools.lru_cache(maxsize=None)
def lowered(path: Path, mode: str = "fixed"):
    """`lower(read(path).module)` in *mode*, without dumps."""
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower

    return lower(read(path).module, LowerOptions(mode=mode))
