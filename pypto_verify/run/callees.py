"""What the calls of a file's kernels name, for the simulation to splice in (`pypto_verify/callees.py`).

Owns: `file_callees` — for each `call.f` (a function of the file) and `extern.f` (a function imported with
`from module import f`, the module found as the frontend finds it, `imports.find_module`) the called function as
read and lowered, with what its own calls name in its module; or, in the callee's place, why it cannot be spliced
(it has error findings, it does not lower, its module is not found). Every function a kernel reaches through
calls, transitively, is resolved, kernel or not: a kernel is lowered by the static stages (its findings stop its
splicing); any other function (scalar code only, tensor-level ops only, further calls) is lowered here for the
simulation alone (`_lower_inline`), so what the static stages report — kernels, sites, findings — does not move.
A callee that reaches another rank's window is spliced like any other: the multi-rank run follows the kernel's calls
(`reference_ranks.reached_calls`).
An imported module is read and lowered once per file, only when a kernel calls into it.
Input: a lowered `FileWork`. Output: `{op: Callee | reason}`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pypto_verify.callees import Callee
from pypto_verify.imports import find_module
from pypto_verify.ir import Call, Function, FunctionKind, Module, Program, stmt_exprs, walk_exprs, walk_stmts

if TYPE_CHECKING:
    from pypto_verify.run.chain import FileWork
    from pypto_verify.sizes import TripCount
    from pypto_verify.run.records import Options

Callees = dict[str, "Callee | str"]

_MAX_MODULES = 8
"""How many imported modules one file's simulation reads for its callees (each read and lowered once)."""


def file_callees(work: FileWork, options: Options, texts: Mapping[Path, str] | None = None) -> Callees:
    """`{op: Callee or why not}` for every call of another function in *work*'s kernels and, transitively, in the
    functions they call (module docstring); an imported module of *texts* is read at the text given for it (a size
    constant shrunk, `run/shrink.py`)."""
    return _Resolver(options, texts or {}).kernels(work)


class _Resolver:
    def __init__(self, options: Options, texts: Mapping[Path, str]) -> None:
        self.options = options
        self.texts = {path.resolve(): text for path, text in texts.items()}
        """The imported modules read at a text given for them (every module read sees them all)."""
        self.modules: dict[str, Callees] = {}
        """Path -> its callees (filled while it is built: a module importing itself back finds it)."""
        self.works: dict[str, FileWork] = {}
        """Path -> the module as read and lowered (its other functions are lowered from it when reached)."""
        self.reached: set[tuple[str, str]] = set()
        """(path, function) of each callee whose own calls are resolved."""

    def module(self, work: FileWork) -> Callees:
        key = str(Path(work.path).resolve())
        found: Callees = {}
        self.modules[key], self.works[key] = found, work
        failed = work.failed()
        for k in work.kernels:
            if k.function in failed:
                found[f"call.{k.read.name}"] = f"`{k.read.name}` has error findings"
            elif k.lowered is None or k.source is None:
                found[f"call.{k.read.name}"] = f"`{k.read.name}` does not lower"
            else:
                found[f"call.{k.read.name}"] = Callee(k.source, k.lowered, found)
        return found

    def kernels(self, work: FileWork) -> Callees:
        """The callees of *work*'s own kernels: every function they reach."""
        found = self.module(work)
        key = str(Path(work.path).resolve())
        for k in work.kernels:
            if k.source is not None:
                self.resolve_calls(key, k.source)
        return found

    def resolve_calls(self, key: str, fn: Function) -> None:
        """Resolve every call *fn* makes, in the module of *key*."""
        work, found = self.works[key], self.modules[key]
        kernels = {k.read.name for k in work.kernels}
        called = sorted({c.op for c in _calls(fn)})
        for op in called:
            if op.startswith("call."):
                self.function(key, op[len("call."):])
        externs = [c for c in called if c.startswith("extern.") and "." not in c[len("extern."):] and c not in found]
        imports = _imports(work, self.options.max_file_size) if externs else {}
        for op in externs:
            name = op[len("extern."):]
            if name not in kernels:
                found[op] = self.imported(work, name, imports.get(name))

    def function(self, key: str, name: str) -> Callee | str:
        """Function *name* of the module of *key* as a callee: a kernel as the static stages lowered it, any other
        function lowered for the simulation (`_lower_inline`), its own calls resolved in turn."""
        found = self.modules[key]
        op = f"call.{name}"
        if (key, name) in self.reached:
            return found[op]
        self.reached.add((key, name))
        callee = found.get(op)
        if isinstance(callee, Callee):
            self.resolve_calls(key, callee.source)
        if op in found:
            return found[op]
        work = self.works[key]
        defined = [(program, fn) for program, fn in work.module.functions() if fn.name == name]
        if len(defined) != 1:
            found[op] = (f"`{name}` is not a function read from `{Path(work.path).name}`"
                         + _bound_at_import(work, name, self.options.max_file_size) if not defined else
                         f"`{name}` is defined by several programs of `{Path(work.path).name}`")
            return found[op]
        program, fn = defined[0]
        lowered = _lower_inline(work.path, program, fn, self.options)
        found[op] = Callee(fn, lowered, found) if isinstance(lowered, Function) else lowered
        self.resolve_calls(key, fn)
        return found[op]

    def imported(self, work: FileWork, alias: str, origin: tuple[str, int, str] | None) -> Callee | str:
        if origin is None:
            return f"`{alias}` is not imported with `from module import {alias}`"
        module, level, name = origin
        path = find_module(module, Path(work.path).parent, level)
        if path is None:
            return f"`{alias}` comes from `{module}`, which is not found beside the file"
        key = str(path.resolve())
        if key not in self.modules:
            if len(self.modules) > _MAX_MODULES:
                return f"`{alias}` comes from `{module}`: too many modules to read for one file's callees"
            from pypto_verify.run.chain import _file_text, lower_stage, read_stage

            limit = self.options.max_file_size
            text = self.texts.get(path.resolve()) or (_file_text(str(path), limit) if self.texts else None)
            read = read_stage(str(path), limit, text=text, modules=self.texts) if text is not None \
                else read_stage(str(path), limit)
            self.module(lower_stage(read, self.options))
        return self.function(key, name)


def callees_differ(fn: Function, real: Mapping[str, Callee | str], small: Mapping[str, Callee | str]
                   ) -> tuple[str | None, tuple[TripCount, ...]]:
    """Why a function *fn* reaches through calls is not, in *small* (the file read at smaller size constants), what
    it is in *real* but for loop trip counts and GM extents (`sizes.plan_difference`, the check a shrunk kernel
    itself passes; None when none), and the loops of theirs whose stops differ (the shrink checks them with the
    kernel's own: each must keep its kinds of iteration, `sizes.trips_kept`)."""
    from pypto_verify.sizes import plan_difference

    seen: set[str] = set()
    changed: list[TripCount] = []
    pending = [(op, real, small) for op in sorted({c.op for c in _calls(fn)})]
    while pending:
        op, real_map, small_map = pending.pop()
        big, little = real_map.get(op), small_map.get(op)
        if op in seen or big is None or isinstance(big, str):
            continue  # not spliced at the real sizes either: the simulation says so there
        seen.add(op)
        name = op.split(".", 1)[1]
        if not isinstance(little, Callee):
            return f"`{name}`, which the kernel calls, is not spliced at that value: {little}", ()
        for what, a, b in (("read", big.source, little.source), ("lowered", big.lowered, little.lowered)):
            different, loops = plan_difference(a, b)
            if different is not None:
                return f"`{name}`, which the kernel calls, is {what} differently: {different}", ()
            if what == "lowered":
                changed.extend(loops)
        pending.extend((inner, big.callees, little.callees) for inner in sorted({c.op for c in _calls(big.source)}))
    return None, tuple(changed)


def _lower_inline(path: str, program: Program, fn: Function, options: Options) -> Function | str:
    """*fn*, which is not a kernel, lowered as the code a kernel runs where it calls it, or why it cannot be.
    A function with no InCore scope of its own is one region as a whole (`incore_scopes`), as an InCore function
    is, so it runs through the pipeline as one; one with InCore scopes of its own (but no tile op) would be outlined
    into orchestration code and kernels, which the pipeline only does for a kernel, so it is not lowered."""
    from pypto_verify.lowering.incore_scopes import has_orchestration_level
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.run.chain import find_lowered
    from pypto_verify.target import get_target

    if has_orchestration_level(fn):
        return (f"`{fn.name}` is not lowered: it holds InCore scopes but no tile op and no matmul, so the static "
                "stages do not take it for a kernel")
    single = Module(path, (replace(program, functions=(replace(fn, kind=FunctionKind.INCORE),)),))
    result = lower(single, LowerOptions(mode=options.mode, target=get_target(options.target)))
    if result.errors:
        error = result.errors[0]
        return f"`{fn.name}` does not lower: {error.rule} at line {error.span.line}: {error.message}"
    lowered = find_lowered(fn.name, result.module)
    if lowered is None:
        return f"`{fn.name}` does not lower: the pipeline dropped it"
    return replace(lowered, kind=fn.kind)


def _calls(fn: Function) -> list[Call]:
    return [e for stmt in walk_stmts(fn.body) for top in stmt_exprs(stmt) for e in walk_exprs(top)
            if isinstance(e, Call)]


def _bound_at_import(work: FileWork, name: str, max_file_size: int) -> str:
    """`: the module binds it when imported (`f = make_f()`), which is not run` when the module's top level assigns
    *name* the result of a call (a function chosen and defined when the module is imported); else empty."""
    tree = _tree(work, max_file_size)
    for stmt in tree.body if tree is not None else ():
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return (f": the module binds it when imported (`{ast.unparse(stmt)}`), a call the static reader does "
                    "not run")
    return ""


def _tree(work: FileWork, max_file_size: int) -> ast.Module | None:
    from pypto_verify.run.chain import _file_text

    text = work.text if work.text is not None else _file_text(work.path, max_file_size)
    if text is None:
        return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _imports(work: FileWork, max_file_size: int) -> dict[str, tuple[str, int, str]]:
    """Each name the file binds with a module-level `from module import name [as alias]`: alias -> (module,
    level, name)."""
    tree = _tree(work, max_file_size)
    if tree is None:
        return {}
    found: dict[str, tuple[str, int, str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                found[alias.asname or alias.name] = (stmt.module or "", stmt.level, alias.name)
    return found
