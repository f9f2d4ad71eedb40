"""The result cache: one file's result stored by content, replayed onto the path as given.

Owns: the key (sha256 of the tool version, the rules and the code of every stage, the engine and its
version, the options, the file's bytes and those of every local module it may import, transitively, as the
frontend resolves them: `imports.local_closure`; a warm run reads it from the file's manifest when the
files' stat still matches, `run/manifest.py`) and the stored form of a `FileResult`, checked field by field
when read back (an entry of any other shape is a miss, and is rewritten). A location in the file
itself is stored without its path, so a copy, a rename or another working directory gets its findings
under the path it was given (ARCHITECTURE.md, "Caching"). A result with a PV999 is never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path

from pypto_verify import __version__, rules
from pypto_verify.cache_root import cache_root
from pypto_verify.findings import Finding, Note
from pypto_verify.span import Span
from pypto_verify.rules import RULES
from pypto_verify.idiom import IdiomSite
from pypto_verify.run.records import DEADLINE, FileResult, KernelResult, Options


def cache_dir() -> Path:
    """`cache_root()`: `$PYPTO_VERIFY_CACHE_DIR`, else `$XDG_CACHE_HOME/pypto-verify` (or `~/.cache/...`)."""
    return cache_root()


_PACKAGES = ("pypto_verify", "pypto_verify.lowering", "pypto_verify.emit", "pypto_verify.smt", "pypto_verify.sim",
             "pypto_verify.datalog")
"""Where the code and rules that decide a result live (the stage folders are packages of their own)."""


def _code_digest() -> str:
    """A digest of the rules (`.dl`) and of every module of the stages: a result computed by other code
    is another key, so an upgrade (or a local edit) never replays a stale verdict."""
    import importlib.util

    h = hashlib.sha256()
    seen: set[Path] = set()
    stack: list[Path] = []
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)  # locates the folder without running the package
        if spec is not None:
            stack += [Path(p) for p in spec.submodule_search_locations or ()]
    while stack:
        node = stack.pop()
        for entry in sorted(node.iterdir(), key=lambda e: e.name):
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append(entry)
            elif entry.suffix in (".dl", ".py") and entry.resolve() not in seen:
                seen.add(entry.resolve())
                h.update(entry.name.encode() + b"\0" + entry.read_bytes())
    return h.hexdigest()


class ResultCache:
    """Per-file results under `cache_dir()/results`, keyed by content (module docstring)."""

    def __init__(self, options: Options) -> None:
        from pypto_verify.engines import engine_version, pick_engine

        engine = pick_engine(options.engine)
        self.salt = "\0".join((__version__, _code_digest(), engine_version(engine), options.key()))
        self.root = cache_dir() / "results"
        self.max_file_size = options.max_file_size
        from pypto_verify.run.manifest import RunDisk

        self.disk = RunDisk(options.max_file_size)
        """The disk as this run sees it: each file read and hashed at most once (`run/manifest.py`)."""
        self.keys: dict[str, str | None] = {}
        """The key of each file as `get` read it: `put` stores the result of exactly those contents."""

    def _key(self, path: Path) -> str | None:
        """The file's bytes and every local module it may import, transitively, as the frontend resolves
        them (`imports.local_closure`); None (no caching) when the file itself cannot be read. Read from the
        file's manifest when the disk still gives every answer it was computed from (`run/manifest.py`)."""
        from pypto_verify.run import manifest

        where = os.path.abspath(path)
        name = hashlib.sha256(f"{self.salt}\0{self.max_file_size}\0{where}".encode()).hexdigest()
        entry = self.root.parent / "manifests" / name[:2] / f"{name}.json"
        kept = manifest.load(entry)
        if kept is not None and kept.still_holds(self.disk) and kept.trusted:
            return kept.key
        fresh = manifest.compute(where, self.salt, self.disk)
        if fresh != kept:
            manifest.store(entry, fresh)
        return fresh.key

    def get(self, path: str) -> FileResult | None:
        """The stored result of *path*'s current contents, replayed onto *path*, or None."""
        key = self.keys[path] = self._key(Path(path))
        if key is None:
            return None
        entry = self.root / key[:2] / f"{key}.json"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            return _from_json(data, path)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None  # absent, unreadable or of another shape: the file is checked again (and rewritten)

    def put(self, result: FileResult) -> None:
        if any(f.rule.id == rules.INTERNAL_ERROR.id or (f.rule.id == rules.INCONCLUSIVE.id and DEADLINE in f.message)
               for f in result.findings):
            return  # a crash, or a file that ran out of time (--timeout: the machine's load), is no result to keep
        key = self.keys[result.path] if result.path in self.keys else self._key(Path(result.path))
        if key is None:
            return
        entry = self.root / key[:2] / f"{key}.json"
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(_to_json(result)), encoding="utf-8")
            tmp.replace(entry)
        except OSError:
            pass


# A span in the file itself is stored with this path and replayed onto the path as given.
_HERE = ""


def _span_json(span: Span, path: str) -> dict:
    return {"path": _HERE if span.path == path else span.path, "line": span.line, "col": span.col}


def _span(data: dict, path: str) -> Span:
    where, line, col = data["path"], data["line"], data["col"]
    if not isinstance(where, str) or type(line) is not int or type(col) is not int:
        raise TypeError("a stored span of another shape")
    return Span(path if where == _HERE else where, line, col)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a stored text of another shape")
    return value


def _texts(values: object) -> tuple[str, ...]:
    if not isinstance(values, list):
        raise TypeError("a stored list of another shape")
    return tuple(_text(v) for v in values)


_VERDICTS = frozenset({"verified", "conditional", "findings", "inconclusive"})


def _to_json(result: FileResult) -> dict:
    path = result.path
    return {
        "status": result.status,
        "sites": [{**s.to_json(), "path": _HERE} for s in result.sites],
        "kernels": [k.to_json() for k in result.kernels],
        "findings": [{**f.to_json(), **_span_json(f.span, path),
                      "notes": [{**_span_json(n.span, path), "message": n.message} for n in f.notes]}
                     for f in result.findings],
    }


def _from_json(data: dict, path: str) -> FileResult:
    """The stored result, replayed onto *path*; `TypeError`/`KeyError`/`ValueError` for any entry of another
    shape than `_to_json` writes (the caller's miss)."""
    if not isinstance(data, dict) or data.get("status") not in ("ok", "input-error"):
        raise TypeError("a stored result of another shape")
    sites = tuple(IdiomSite(path, s["line"], s["function"], s["form"], s["loop"], s["condition"],
                            s["accumulators"], s["nesting"], s["consumer"], _text(s["removed"]))
                  for s in data["sites"])
    kernels = tuple(KernelResult(_text(k["name"]), _text(k["function"]), k["verdict"], _text(k["sim"]),
                                 _text(k["sim_reason"]), _counts(k["obligations"]), _texts(k["conditions"]))
                    for k in data["kernels"])
    if any(k.verdict not in _VERDICTS for k in kernels):
        raise ValueError("a stored verdict of another kind")
    findings = tuple(Finding(RULES[f["rule"]], _span(f, path), _text(f["message"]), _text(f["kernel"]),
                             _text(f["function"]), tuple(Note(_span(n, path), _text(n["message"])) for n in f["notes"]),
                             _texts(f["windows"]), tuple(f["values"]), tuple(f["producers"]), f["counterexample"])
                     for f in data["findings"])
    return replace(FileResult(path, data["status"], sites, kernels, findings), cached=True)


def _counts(data: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(data, dict) or not all(isinstance(k, str) and type(v) is int for k, v in data.items()):
        raise TypeError("stored obligation counts of another shape")
    return tuple(data.items())
