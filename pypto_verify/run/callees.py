"""What the calls of a file's kernels name, for the simulation to splice in (`pypto_verify/callees.py`).

Owns: `file_callees` — for each `call.f` (a function of the file) and `extern.f` (a function imported with
`from module import f`, the module found as the frontend finds it, `imports.find_module`) the called function as
read and lowered, with what its own calls name in its module; or, in the callee's place, why it cannot be spliced
(it has error findings, it does not lower, its module is not found). An imported module is read and lowered once
per file, only when a kernel calls into it.
Input: a lowered `FileWork`. Output: `{op: Callee | reason}`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pypto_verify.callees import Callee
from pypto_verify.imports import find_module
from pypto_verify.ir import Call, Function, stmt_exprs, walk_exprs, walk_stmts

if TYPE_CHECKING:
    from pypto_verify.run.chain import FileWork
    from pypto_verify.run.records import Options

Callees = dict[str, "Callee | str"]

_MAX_MODULES = 8
"""How many imported modules one file's simulation reads for its callees (each read and lowered once)."""


def file_callees(work: FileWork, options: Options, texts: Mapping[Path, str] | None = None) -> Callees:
    """`{op: Callee or why not}` for every call of another function in *work*'s kernels (module docstring);
    an imported module of *texts* is read at the text given for it (a size constant shrunk, `run/shrink.py`)."""
    return _Resolver(options, texts or {}).module(work)


class _Resolver:
    def __init__(self, options: Options, texts: Mapping[Path, str]) -> None:
        self.options = options
        self.texts = {path.resolve(): text for path, text in texts.items()}
        """The imported modules read at a text given for them (every module read sees them all)."""
        self.modules: dict[str, Callees] = {}
        """Path -> its callees (filled while it is built: a module importing itself back finds it)."""

    def module(self, work: FileWork) -> Callees:
        found: Callees = {}
        self.modules[str(Path(work.path).resolve())] = found
        failed = work.failed()
        kernels = {k.read.name: k for k in work.kernels}
        for k in work.kernels:
            if k.function in failed:
                found[f"call.{k.read.name}"] = f"`{k.read.name}` has error findings"
            elif k.lowered is None or k.source is None:
                found[f"call.{k.read.name}"] = f"`{k.read.name}` does not lower"
            else:
                found[f"call.{k.read.name}"] = Callee(k.source, k.lowered, found)
        called = {c.op for k in work.kernels if k.source is not None for c in _calls(k.source)}
        for op in sorted(c for c in called if c.startswith("call.") and c not in found):
            found[op] = (f"`{op[len('call.'):]}` is not lowered: it holds no tile op and no matmul, so the static "
                         "stages do not take it for a kernel")
        externs = sorted(c for c in called if c.startswith("extern.") and "." not in c[len("extern."):])
        imports = _imports(work, self.options.max_file_size) if externs else {}
        for op in externs:
            name = op[len("extern."):]
            if name in kernels:
                continue
            found[op] = self.imported(work, name, imports.get(name))
        return found

    def imported(self, work: FileWork, alias: str, origin: tuple[str, int, str] | None) -> Callee | str:
        if origin is None:
            return f"`{alias}` is not imported with `from module import {alias}`"
        module, level, name = origin
        path = find_module(module, Path(work.path).parent, level)
        if path is None:
            return f"`{alias}` comes from `{module}`, which is not found beside the file"
        key = str(path.resolve())
        callees = self.modules.get(key)
        if callees is None:
            if len(self.modules) > _MAX_MODULES:
                return f"`{alias}` comes from `{module}`: too many modules to read for one file's callees"
            from pypto_verify.run.chain import _file_text, lower_stage, read_stage

            limit = self.options.max_file_size
            text = self.texts.get(path.resolve()) or (_file_text(str(path), limit) if self.texts else None)
            read = read_stage(str(path), limit, text=text, modules=self.texts) if text is not None \
                else read_stage(str(path), limit)
            callees = self.module(lower_stage(read, self.options))
        callee = callees.get(f"call.{name}")
        if callee is None:
            return f"`{alias}` is not a kernel of `{module}` (it holds no tile op, or it is not read)"
        return callee


def _calls(fn: Function) -> list[Call]:
    return [e for stmt in walk_stmts(fn.body) for top in stmt_exprs(stmt) for e in walk_exprs(top)
            if isinstance(e, Call)]


def _imports(work: FileWork, max_file_size: int) -> dict[str, tuple[str, int, str]]:
    """Each name the file binds with a module-level `from module import name [as alias]`: alias -> (module,
    level, name)."""
    from pypto_verify.run.chain import _file_text

    text = work.text if work.text is not None else _file_text(work.path, max_file_size)
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[str, int, str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                found[alias.asname or alias.name] = (stmt.module or "", stmt.level, alias.name)
    return found
