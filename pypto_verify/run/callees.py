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
from pypto_verify.diagnostics import UnreadableSource, read_source_bytes
from pypto_verify.imports import find_module, is_external
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
                         "stages do not take it for a kernel") + self._on_other_ranks(Path(work.path), op[len("call."):])
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
            if _RankScan(self.options.max_file_size).defines(path, name):
                return (f"`{alias}` is not a kernel of `{module}`: it holds no tile op and no matmul, so the static "
                        "stages do not take it for a kernel") + self._on_other_ranks(path, name)
            return f"`{alias}` is not a kernel of `{module}` (it holds no tile op, or it is not read)"
        return callee

    def _on_other_ranks(self, path: Path, name: str) -> str:
        """`; it calls `g`, which acts on the window of another rank (...)` when function *name* of the module at *path*,
        no kernel itself, reaches a distributed op (`pld.tile.remote_store`, `pld.system.wait`, ...) through the
        functions it calls, in its module or in modules it imports from (read as text, `_RankScan`); else empty.
        Such a call is not spliced at any size: the simulation runs one rank (`emit/pto.py`)."""
        found = _RankScan(self.options.max_file_size).reach(path, name)
        if found is None:
            return ""
        via, op = found
        return (f"; it calls `{via}`, which acts on the window of another rank (`{op}`): the simulation runs one "
                "rank, so it is not simulated at any size")


_SCAN_FUNCTIONS = 64
"""How many functions `_RankScan` reads before it gives up (an import chain is read as text, never lowered)."""


class _RankScan:
    """Whether a function reaches a distributed op through the functions it calls: a search of the modules' text."""

    def __init__(self, max_file_size: int) -> None:
        self.max_file_size = max_file_size
        self.trees: dict[Path, ast.Module | None] = {}

    def reach(self, path: Path, name: str) -> tuple[str, str] | None:
        """(the function *name* calls on the way, the distributed op it reaches), or None: breadth first, each
        function once."""
        todo: list[tuple[Path, str, str | None]] = [(path, name, None)]
        seen: set[tuple[Path, str]] = set()
        while todo and len(seen) < _SCAN_FUNCTIONS:
            module, function, via = todo.pop(0)
            if (module, function) in seen:
                continue
            seen.add((module, function))
            found = self._function(module, function)
            if found is None:
                continue
            fn, tree = found
            aliases = _distributed_aliases(tree)
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    op = _distributed_call(node.func, aliases)
                    if op is not None:
                        return (via or function, op)
            for called in _called_names(fn):
                target = self._defined(module, tree, called)
                if target is not None:
                    todo.append((target[0], target[1], via or called))
        return None

    def defines(self, path: Path, name: str) -> bool:
        """Whether the module at *path* defines a function *name* at its top level."""
        return self._function(path, name) is not None

    def _tree(self, path: Path) -> ast.Module | None:
        key = path.resolve()
        if key not in self.trees:
            try:
                self.trees[key] = ast.parse(read_source_bytes(key, self.max_file_size).decode("utf-8-sig"))
            except (UnreadableSource, UnicodeDecodeError, SyntaxError, ValueError):
                self.trees[key] = None
        return self.trees[key]

    def _function(self, path: Path, name: str) -> tuple[ast.FunctionDef, ast.Module] | None:
        tree = self._tree(path)
        if tree is None:
            return None
        fn = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
        return None if fn is None else (fn, tree)

    def _defined(self, path: Path, tree: ast.Module, name: str) -> tuple[Path, str] | None:
        """Where the name *name* called in *tree* (the module at *path*) is defined: this module, or the module a
        `from module import name` reads; None for anything else (a builtin, `pypto`)."""
        if any(isinstance(s, ast.FunctionDef) and s.name == name for s in tree.body):
            return (path, name)
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and not is_external(stmt.module or "", stmt.level):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        found = find_module(stmt.module or "", path.parent, stmt.level)
                        return None if found is None else (found, alias.name)
        return None


def _distributed_aliases(tree: ast.Module) -> dict[str, str]:
    """Names the module binds to PyPTO's language modules: `pld` -> `distributed.` (`import
    pypto.language.distributed as pld`), `pl` -> `` (`import pypto.language as pl`)."""
    found: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "pypto.language.distributed" and alias.asname:
                    found[alias.asname] = "distributed."
                elif alias.name == "pypto.language" and alias.asname:
                    found[alias.asname] = ""
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "pypto.language":
            for alias in stmt.names:
                if alias.name == "distributed":
                    found[alias.asname or alias.name] = "distributed."
    return found


def _distributed_call(func: ast.expr, aliases: dict[str, str]) -> str | None:
    """`distributed.tile.remote_store` for a call of `pld.tile.remote_store` (or `pl.distributed.tile...`), else
    None."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in aliases or not parts:
        return None
    op = aliases[func.id] + ".".join(parts)
    return op if op.startswith("distributed.") and "." in op[len("distributed."):] else None


def _called_names(fn: ast.FunctionDef) -> list[str]:
    """The plain names *fn* calls (`dispatch(...)`), in order, once each."""
    return list(dict.fromkeys(n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call)
                              and isinstance(n.func, ast.Name)))


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
