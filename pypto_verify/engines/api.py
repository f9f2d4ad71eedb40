"""The one public entry to the Datalog engines: pick an engine, run a `.dl` program on a facts directory.

Input: a program path (with its `#include`s), a facts directory (one `<relation>.facts` TSV per `.input`
relation). Output: `{output relation: sorted typed rows}`, identical for both engines, and optionally one
sorted `<relation>.csv` per output in `out_dir`. Spec: ARCHITECTURE.md "Engines".

Every program goes through our parser and translator checks whichever engine runs it, so both engines
accept exactly the same subset and report the same errors. The parsed program and its translation are
cached per process, keyed by the path and the modification times of all its source files.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pypto_verify.engines import ENGINES, clingo_engine, engine_version, pick_engine, souffle_engine
from pypto_verify.engines.clingo_engine import Translation, translate
from pypto_verify.engines.souffle_lang import EngineError, Program, Row, load_program

__all__ = ["EngineError", "Row", "ENGINES", "pick_engine", "run_program", "run_rows", "engine_version",
           "write_outputs"]


_log = logging.getLogger("pypto_verify.engines")


@dataclass(frozen=True, slots=True)
class _Loaded:
    stamp: tuple[tuple[Path, int], ...]
    program: Program
    translation: Translation


_LOADED: dict[Path, _Loaded] = {}


def run_program(
    program: Path,
    facts_dir: Path,
    *,
    engine: str = "auto",
    out_dir: Path | None = None,
    timeout: float = 120.0,
    compiled: bool = False,
) -> dict[str, list[Row]]:
    """Run `program` on `facts_dir`; `{output relation: sorted rows}`, also written to `out_dir` if given."""
    chosen = pick_engine(engine)
    if not facts_dir.is_dir():
        raise EngineError(f"facts directory `{facts_dir}` does not exist")
    loaded = _load(program)
    for name in loaded.program.inputs:
        if not (facts_dir / f"{name}.facts").is_file():
            # Soufflé warns and treats the relation as empty; both engines do the same.
            _log.warning("%s is missing; input relation `%s` is empty", facts_dir / f"{name}.facts", name)
    if chosen == "clingo":
        result = clingo_engine.run(loaded.translation, facts_dir, timeout=timeout)
    else:
        result = souffle_engine.run(loaded.program, facts_dir, timeout=timeout, compiled=compiled)
    if out_dir is not None:
        write_outputs(loaded.program, result, out_dir)
    return result


def run_rows(program: Path, rows: Mapping[str, Iterable[Row]], *, engine: str = "auto",
             timeout: float = 120.0) -> dict[str, list[Row]]:
    """Run `program` on input rows held in memory (`{relation: rows}`, a missing relation empty); the same
    result as `run_program` on a facts directory of those rows. clingo takes them as ASP text directly;
    Soufflé reads them from a facts directory written for the run."""
    if pick_engine(engine) == "clingo":
        loaded = _load(program)
        return clingo_engine.solve(loaded.translation, clingo_engine.rows_text(loaded.translation, rows),
                                   timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="pypto-verify-") as tmp:
        facts_dir = Path(tmp)
        for name, relation_rows in rows.items():
            text = "".join("\t".join(map(str, row)) + "\n" for row in relation_rows)
            (facts_dir / f"{name}.facts").write_text(text, encoding="utf-8")
        return run_program(program, facts_dir, engine=engine, timeout=timeout)


def write_outputs(program: Program, result: dict[str, list[Row]], out_dir: Path) -> None:
    """One `<relation>.csv` per output relation, tab-separated, rows sorted (Soufflé's layout)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in program.outputs:
        rows = result[name]
        if not program.relations[name].columns:
            text = "()\n" if rows else ""
        else:
            text = "".join("\t".join(str(value) for value in row) + "\n" for row in rows)
        (out_dir / f"{name}.csv").write_text(text, encoding="utf-8")


def _load(path: Path) -> _Loaded:
    key = path.resolve()
    cached = _LOADED.get(key)
    if cached is not None and cached.stamp == _stamp(cached.program):
        return cached
    parsed = load_program(path)
    loaded = _Loaded(_stamp(parsed), parsed, translate(parsed))
    _LOADED[key] = loaded
    return loaded


def _stamp(program: Program) -> tuple[tuple[Path, int], ...]:
    stamps = []
    for source in program.sources:
        try:
            stamps.append((source.path, source.path.stat().st_mtime_ns))
        except OSError:
            stamps.append((source.path, -1))
    return tuple(stamps)
