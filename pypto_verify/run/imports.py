"""Which files of a project import a given module: the reverse of the frontend's local imports.

Owns `importers`. The frontend reads a kernel's constants from the sibling modules it imports
(`frontend/constants.py`: `import config`, `from .model_config import BATCH`, `from pkg import mod`,
resolved against the importing file's directory, one directory up per extra dot). A change to such a
module changes the verdicts of the kernels that import it, directly or through another module; a
pre-commit run that is given only the module must check those kernels too (`check` calls this for the
files named on its command line).

Linear in the project: one walk of its tree (`project_files`: hidden directories, virtual environments
and `__pycache__` pruned), each file read and parsed once for its imports, then one breadth-first walk
of the reverse edges. Modules resolve as the frontend resolves them (`pypto_verify.imports.find_module`,
which imports no IR: a warm-cache `check` stays light).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from pypto_verify.diagnostics import UnreadableSource, read_source_bytes
from pypto_verify.imports import find_module as _find_module
from pypto_verify.imports import imports_of


_MARKERS = (".git", "pyproject.toml")
"""What marks a project's root directory."""


def project_root(path: Path) -> Path | None:
    """The nearest directory at or above *path*'s directory that holds `.git` or `pyproject.toml`."""
    start = path.resolve().parent
    return next((d for d in (start, *start.parents) if any((d / m).exists() for m in _MARKERS)), None)


def project_files(root: Path, skip: Callable[[Path], bool] = lambda p: False) -> list[Path]:
    """Every `*.py` below *root*, sorted, but not in hidden directories, virtual environments (a
    `pyvenv.cfg`), `__pycache__`, `site-packages`, nor those *skip* rejects."""
    out: list[Path] = []
    for directory, dirs, names in os.walk(root):
        here = Path(directory)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "site-packages")
                         and not (here / d / "pyvenv.cfg").exists())
        out.extend(here / n for n in sorted(names) if n.endswith(".py") and not skip(here / n))
    return out


def imported(path: Path, data: bytes) -> set[Path]:
    """The local modules (resolved paths) the file *path* with bytes *data* imports, as the frontend and the
    cache key read them (`pypto_verify.imports.imports_of`); nothing when it does not parse."""
    found = (_find_module(module, path.parent, level) for module, level in imports_of(data))
    return {p.resolve() for p in found if p is not None}


def importers(modules: Iterable[Path], project: Iterable[Path]) -> list[Path]:
    """The files of *project* that import one of *modules*, directly or through other files of *project*,
    in *project*'s order (the modules themselves left out)."""
    targets = {m.resolve() for m in modules}
    files = list(project)
    if not targets or not files:
        return []
    reverse: dict[Path, list[Path]] = {}
    for file in files:
        try:
            data = read_source_bytes(file)
        except UnreadableSource:
            continue
        for dependency in imported(file, data):
            reverse.setdefault(dependency, []).append(file.resolve())
    reached: set[Path] = set()
    queue = deque(targets)
    while queue:
        for user in reverse.get(queue.popleft(), ()):
            if user not in reached and user not in targets:
                reached.add(user)
                queue.append(user)
    return [f for f in files if f.resolve() in reached]
