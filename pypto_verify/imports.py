"""Where a kernel file's local imports lead: the one resolution the frontend's static evaluation and the
result cache's key share.

Owns: `find_module` (a dotted module at an import level → the `.py` file it names, beside the importing
file or in a subpackage or parent package of it), `EXTERNAL_MODULES` (the modules never read: the standard
library the kernels use, torch, numpy, `pypto`), `imported_modules` (every local module an `import` or
`from ... import` statement of a tree may read) and `local_closure` (those, transitively, with their bytes).
`local_closure` asks the disk only through a `Disk` (is this a file, where does this path lead, its bytes),
so the result cache can memoise those answers for a run and record them (`run/manifest.py`).
Imports nothing of ours but `diagnostics`, so a warm-cache run computes its keys without the frontend.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from pypto_verify.diagnostics import MAX_FILE_SIZE, UnreadableSource, read_source_bytes

EXTERNAL_MODULES = frozenset({
    "os", "sys", "math", "dataclasses", "functools", "typing", "typing_extensions", "enum", "torch",
    "numpy", "argparse", "pathlib", "collections", "itertools", "re", "json", "time", "logging", "abc",
    "warnings", "subprocess", "shutil", "random", "copy", "contextlib", "importlib", "inspect",
    "textwrap", "__future__", "golden", "pytest", "struct", "ctypes", "tempfile", "glob", "io",
})
"""Top-level modules the frontend never reads (with `pypto` itself)."""


def is_external(module: str, level: int) -> bool:
    """True when `import module` (at *level*) names a module that is never read: `pypto...` or one of
    `EXTERNAL_MODULES`."""
    root = module.split(".")[0]
    return level == 0 and (root == "pypto" or root in EXTERNAL_MODULES)


def _is_file(path: Path) -> bool:
    return path.is_file()


def find_module(module: str, directory: Path, level: int,
                is_file: Callable[[Path], bool] = _is_file) -> Path | None:
    """The file `module` names from *directory* at import *level* (0 and 1: beside it; 2: one up, ...):
    `a/b.py` or `a/b/__init__.py` for `a.b`, the package's `__init__.py` for `from . import x`. *is_file*
    is the only question asked of the disk."""
    base = directory
    for _ in range(max(level - 1, 0)):
        base = base.parent
    parts = [p for p in module.split(".") if p]
    if not parts:
        candidate = base / "__init__.py"
        return candidate if is_file(candidate) else None
    stem = base.joinpath(*parts)
    for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
        if is_file(candidate):
            return candidate
    return None


def imported_modules(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """`(module, level)` of every local module an import in *tree* (at any depth) may make the frontend
    read: for `import a.b` both `a` and `a.b`; for `from m import x` both `m` and the submodule `m.x`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                for end in range(1, len(parts) + 1):
                    name = ".".join(parts[:end])
                    if not is_external(name, 0):
                        yield name, 0
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if is_external(module, node.level):
                continue
            yield module, node.level
            for alias in node.names:
                if alias.name != "*":
                    yield (f"{module}.{alias.name}" if module else alias.name), node.level


class Disk:
    """The three questions `local_closure` asks of the disk, answered plainly; `run/manifest.py` memoises
    them for a run and records them, so a later run can ask them again instead of reading."""

    def is_file(self, path: Path) -> bool:
        """Whether *path* is a file (symlinks followed), as `Path.is_file`."""
        return path.is_file()

    def real(self, path: Path) -> str:
        """*path* with every symlink resolved, absolute."""
        return _real(path)

    def read(self, path: str, limit: int) -> bytes:
        """`read_source_bytes(path, limit)`: raises `UnreadableSource`."""
        return read_source_bytes(path, limit)


def local_closure(path: Path, data: bytes, limit: int = MAX_FILE_SIZE,
                  disk: Disk = Disk()) -> list[tuple[str, bytes]]:
    """Every local module the file at *path* (with contents *data*) may read, transitively, as `(how it
    was named, its bytes)`, sorted; a module that is absent or unreadable is listed with a marker instead
    of its bytes, so creating or repairing it changes the list too. Never raises for bad input. *disk*
    answers every question asked of the file system, so the list is a function of its answers."""
    out: dict[str, bytes] = {}
    seen: set[str] = set()
    todo = [(disk.real(path), data, "")]
    while todo:
        where, text, via = todo.pop()
        for module, level in imports_of(text):
            name = f"{via}{'.' * level}{module}@{level}"
            found = find_module(module, Path(where).parent, level, disk.is_file)
            if found is None:
                out.setdefault(name, b"\0absent")
                continue
            real = disk.real(found)
            try:
                content = disk.read(real, limit)
            except UnreadableSource as error:
                out.setdefault(name, b"\0unreadable: " + error.why.encode())
                continue
            out.setdefault(name, content)
            if real not in seen:
                seen.add(real)
                todo.append((real, content, f"{name}>"))
    return sorted(out.items())


_IMPORTS: dict[str, tuple[tuple[str, int], ...]] = {}
"""`imports_of` by the sha256 of a file's bytes, for this process."""


def imports_of(data: bytes) -> tuple[tuple[str, int], ...]:
    """`imported_modules` of the file whose bytes are *data* (none when it does not parse: the frontend reports
    it). A pure function of the bytes, so it is kept by their digest, in the process and beside the result
    cache (`imports/`): a warm check hashes a file and its modules instead of parsing them."""
    import hashlib
    import json

    digest = hashlib.sha256(data).hexdigest()
    found = _IMPORTS.get(digest)
    if found is not None:
        return found
    from pypto_verify.cache_root import cache_root

    kept = cache_root() / "imports" / digest[:2] / f"{digest}.json"
    try:
        rows = json.loads(kept.read_text(encoding="utf-8"))
        if isinstance(rows, list) and all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str)
                                          and isinstance(r[1], int) for r in rows):
            found = _IMPORTS[digest] = tuple((r[0], r[1]) for r in rows)
            return found
    except (OSError, ValueError):
        pass  # absent or ill-shaped: parse again, and keep it anew
    try:
        found = tuple(imported_modules(ast.parse(data.decode("utf-8-sig"))))
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        found = ()
    _IMPORTS[digest] = found
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([list(r) for r in found]), encoding="utf-8")
        tmp.replace(kept)
    except OSError:
        pass
    return found


def _real(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        return os.path.abspath(path)
