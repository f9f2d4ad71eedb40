"""Skip helpers for tests that need the frontend and the lowering pipeline (written concurrently)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = Path(__file__).parent / "kernels"


def require_stages() -> None:
    """Skip the calling test unless `frontend.read_file` and `lowering.pipeline.lower` exist."""
    try:
        from pypto_verify import frontend
        from pypto_verify.lowering import pipeline
    except ImportError as error:
        pytest.skip(f"stage not importable yet: {error}")
    if not hasattr(frontend, "read_file") or not hasattr(pipeline, "lower"):
        pytest.skip("frontend.read_file / pipeline.lower not there yet")


def check_text(tmp_path: Path, text: str, sim: bool = False):
    """`run` over *text* written to a file under *tmp_path* (clingo, no cache): the file's result and its
    error findings as (rule id, message)."""
    from pypto_verify.rules import Severity
    from pypto_verify.run import Options, run

    path = tmp_path / "kernel.py"
    path.write_text(text)
    (file,) = run([str(path)], Options(engine="clingo", cache=False, sim=sim)).files
    return file, [(f.rule.id, f.message) for f in file.findings if f.rule.severity is Severity.ERROR]


def lowered_kernels(path: Path, text: str | None = None) -> dict:
    """The kernels of the file at *path* (or of *text* read as that file), read and lowered, by name."""
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(path), text=text), Options())
    return {k.name: k for k in work.kernels}


def rewrite_call(fn, op: str, target: str, change):
    """*fn* with the call of the one `Assign` to *target* whose op is *op* replaced by `change(call)`."""
    from dataclasses import replace

    from pypto_verify.ir import Assign, Call, map_stmts

    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and stmt.target.name == target and isinstance(stmt.value, Call) \
                and stmt.value.op == op:
            hits.append(stmt)
            return (replace(stmt, value=change(stmt.value)),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten
