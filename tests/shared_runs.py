"""`check` runs that several tests make of the same folder, made once per test session (issue 18, item 7).

`cold_check(folder, *options)` (the `cold_check` fixture of tests/conftest.py): `pypto-verify check <folder>
<options> --format json`, run in-process from the repository root with a cache directory of its own that is empty before the
run (a cold run: every stage computed, then cached), as `(block, cache)`: the command's block as the
command goldens record it (tests/golden/commands) and that cache directory, warm afterwards, as a user's
would be. The check goldens pin the block and replay it from the warm cache; the corpus-clean test reads
its findings from the same run instead of checking the corpus once more; likewise the legacy pipeline's
run (`--pipeline legacy`) for the legacy golden and tests/corpus/test_corpus_legacy.py.

Under pytest-xdist the workers share each run: the first worker to ask makes it, under a lock, in the run's
common temporary directory, and the others read its block and use its cache.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
_TIMING = re.compile(r"(solver time )\d+\.\d+( s)")


def report(block: str) -> dict:
    """The JSON report of a `check --format json` block (after its `==` line, before any `-- stderr`)."""
    return json.loads(block.split("\n", 1)[1].split("\n-- stderr\n")[0])


def invoke(*args: str) -> str:
    """`pypto-verify *args*` in-process (run from the root, the cache as the environment says): its block,
    `== pypto-verify <args> (exit N)`, stdout, then `-- stderr` and stderr when there is any; solver
    timings replaced by `<t>`, the root's file URI by `file:///<root>/`."""
    from pypto_verify.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    out = _TIMING.sub(r"\1<t>\2", result.stdout).replace(ROOT.as_uri() + "/", "file:///<root>/")
    err = _TIMING.sub(r"\1<t>\2", result.stderr)
    block = f"== pypto-verify {' '.join(args)} (exit {result.exit_code})\n{out}"
    if err:
        block += f"-- stderr\n{err}"
    return block


def cold_checks(factory: pytest.TempPathFactory) -> Callable[..., tuple[str, Path]]:
    """The session's `cold_check(folder, *options)` (module docstring): each run made at its first call."""
    base = factory.getbasetemp()
    shared = base.parent if "PYTEST_XDIST_WORKER" in os.environ else base  # xdist: the workers' common directory
    runs: dict[tuple[str, ...], tuple[str, Path]] = {}

    def cold_check(folder: str, *options: str) -> tuple[str, Path]:
        key = (folder, *options)
        if key not in runs:
            name = "cold-check-" + hashlib.sha256("\0".join(key).encode()).hexdigest()[:16]
            cache, block = shared / name, shared / f"{name}.txt"
            with open(shared / f"{name}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if not block.exists():
                    shutil.rmtree(cache, ignore_errors=True)  # a run that raised left it part-filled
                    cache.mkdir()
                    with pytest.MonkeyPatch.context() as patch:
                        patch.chdir(ROOT)
                        patch.delenv("PYPTO_VERIFY_CACHE_DIR", raising=False)
                        patch.setenv("XDG_CACHE_HOME", str(cache))
                        text = invoke("check", folder, *options, "--format", "json")
                    block.write_text(text, encoding="utf-8")
            runs[key] = (block.read_text(encoding="utf-8"), cache)
        return runs[key]

    return cold_check
