"""Static evaluation of module constants, sibling-module imports included (KERNEL_LANGUAGE.md).

Owns: `ModuleScope` (the names a kernel file defines at module level, evaluated statically) and
`Evaluator` (a small interpreter over a pure subset of Python: literals, arithmetic, comparisons,
containers, comprehensions, f-strings, plain functions, `@dataclass` instances and their
properties, `dataclasses.replace`, allow-listed builtins, `math` and string methods).

Nothing is imported or executed: the file is read with `ast` and the subset above is interpreted
on our own values. The outside world is faked: `os.environ` is empty (`get` returns its default),
`sys.argv` is `["<kernel>"]`, `__name__` is not `"__main__"`, and every other module (`torch`,
`argparse`, ...) is opaque. Anything outside the subset is `NotStatic` with a reason; a module-level
name whose value is not static is bound to `Unknown`, which is an error when a kernel uses it and
importing the file would fail (a missing sibling module, an attribute a closed class does not define:
the error names where) and a symbolic value otherwise. Work is bounded by a step budget.

Input: the kernel file's `ast.Module` and its path (siblings resolve relative to its directory).
Output: values (`int`, `float`, `str`, `PlPath`, `Dynamic`, ...) by name.
"""

from __future__ import annotations

import ast
import math
import operator
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from pypto_verify.diagnostics import MAX_FILE_SIZE, UnreadableSource, read_source_bytes
from pypto_verify.imports import EXTERNAL_MODULES, find_module

# ---------------------------------------------------------------------------------------------- values


class NotStatic(Exception):
    """The expression has no static value. *missing* is set when running it would raise: the sibling
    module that was not found, or `Class.attribute` a closed class does not define; *where* is then the
    (path, line, col) of the failing expression, once known."""

    def __init__(self, reason: str, missing: str | None = None, where: tuple[str, int, int] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.missing = missing
        self.where = where


@dataclass(frozen=True)
class PlPath:
    """A path under `pypto.language`: `pl` itself is `PlPath("")`, `pl.FP32` is `PlPath("FP32")`."""

    path: str

    def child(self, name: str) -> PlPath:
        return PlPath(f"{self.path}.{name}" if self.path else name)


@dataclass(frozen=True)
class Dynamic:
    """`pl.dynamic("NAME")`: a symbolic dimension."""

    name: str


@dataclass(frozen=True)
class Unknown:
    """A module-level name whose value is not static: why, and (`NotStatic`) what running it raises on
    and where."""

    reason: str
    missing: str | None = None
    where: tuple[str, int, int] | None = None


@dataclass(eq=False)
class FunctionValue:
    """A `def` (or lambda) with the scope it was defined in."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    scope: Scope
    decorated: bool = False
    """True when a decorator we do not see through (`@pl.jit`, ...) wraps it: it cannot be called."""

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>")


@dataclass(eq=False)
class ClassValue:
    """A `class`: a `@dataclass` (fields in order, properties, methods) or a plain namespace."""

    node: ast.ClassDef
    scope: Scope
    is_dataclass: bool
    fields: list[tuple[str, ast.expr | None]]
    attrs: dict[str, Any]
    closed: bool = False
    """Every attribute it (and an instance) can have is in `attrs` / the fields: its bases are closed
    classes, its body only fields, constants, methods and properties, no dunder hook. Then a name that is
    not there is an `AttributeError` in Python."""


@dataclass(eq=False)
class Instance:
    """An instance of a `@dataclass` class."""

    cls: ClassValue
    values: dict[str, Any]


@dataclass(eq=False)
class BoundMethod:
    function: FunctionValue
    receiver: Any


@dataclass(eq=False)
class Builtin:
    """A pure function we apply to static arguments ourselves."""

    name: str
    impl: Callable[..., Any]


@dataclass(eq=False)
class External:
    """A module we do not read (`torch`, `os`, ...): only the attributes in `_EXTERNAL_ATTRS` exist."""

    name: str


@dataclass(eq=False)
class ModuleValue:
    """A sibling module bound by `import config` (read lazily)."""

    name: str
    loader: Loader
    directory: Path
    level: int = 0

    def scope(self) -> ModuleScope:
        return self.loader.load(self.name, self.directory, self.level)


@dataclass(eq=False)
class LazyImport:
    """`from config import X`: resolved on first use."""

    module: str
    attr: str | None
    loader: Loader
    directory: Path
    level: int


class _FakeEnviron:
    """`os.environ` as the static reader sees it: empty."""

    def get(self, key: Any, default: Any = None) -> Any:
        return default


_ENVIRON = _FakeEnviron()
_MARKER = object()


# ---------------------------------------------------------------------------------------------- limits

_STEP_BUDGET = 4_000_000
"""Steps for one file and the siblings it reads."""
_STATEMENT_BUDGET = 250_000
"""Steps for one module-level statement (a runaway loop costs that statement only)."""
_MAX_CALL_DEPTH = 48
_MAX_LEN = 1_000_000
_MAX_INT_BITS = 1 << 14


class Budget:
    """Step counters: one shared by a file and the siblings it reads, one per module-level statement."""

    def __init__(self, steps: int = _STEP_BUDGET) -> None:
        self.steps = steps
        self.statement = steps

    def tick(self, n: int = 1) -> None:
        self.steps -= n
        self.statement -= n
        if self.steps < 0 or self.statement < 0:
            raise NotStatic("static evaluation took too many steps")


# ---------------------------------------------------------------------------------------------- scopes


class Scope:
    """Name lookup for the evaluator."""

    def lookup(self, name: str) -> Any:
        raise NotImplementedError

    def assign(self, name: str, value: Any) -> None:
        raise NotImplementedError

    def delete(self, name: str) -> None:
        raise NotStatic("`del` is not static")

    @property
    def module(self) -> ModuleScope:
        raise NotImplementedError


class ModuleScope(Scope):
    """The names one file defines at module level, evaluated in order."""

    def __init__(self, path: Path, tree: ast.Module, loader: Loader) -> None:
        self.path = path
        self.directory = path.parent
        self.loader = loader
        self.values: dict[str, Any] = {"__name__": "__pypto_verify__", "__file__": str(path)}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.evaluator = Evaluator(loader.budget)
        for stmt in tree.body:
            self._run_top(stmt)

    @property
    def module(self) -> ModuleScope:
        return self

    def lookup(self, name: str) -> Any:
        if name not in self.values:
            if name in _BUILTINS:
                return _BUILTINS[name]
            raise NotStatic(f"`{name}` is not defined")
        value = self.values[name]
        if isinstance(value, LazyImport):
            value = self._resolve(name, value)
        if isinstance(value, Unknown):
            raise NotStatic(value.reason, value.missing, value.where)
        return value

    def raw(self, name: str) -> Any:
        """The binding of *name* without raising: a value, an `Unknown`, or `_MARKER` when unbound."""
        try:
            return self.lookup(name)
        except NotStatic as error:
            if name not in self.values and name not in _BUILTINS:
                return _MARKER
            return Unknown(error.reason, error.missing, error.where)

    def assign(self, name: str, value: Any) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        self.values.pop(name, None)

    def _resolve(self, name: str, lazy: LazyImport) -> Any:
        try:
            value = _resolve_import(lazy)
        except NotStatic as error:
            value = Unknown(error.reason, error.missing, error.where)
        self.values[name] = value
        return value

    # ------------------------------------------------------------------------------------------ statements

    def _run_top(self, stmt: ast.stmt) -> None:
        budget = self.loader.budget
        outer, budget.statement = budget.statement, _STATEMENT_BUDGET
        try:
            self._run_stmt(stmt)
        except NotStatic as error:
            for name in _assigned_names([stmt]):
                self.values[name] = Unknown(error.reason, error.missing, error.where)
        except RecursionError:
            for name in _assigned_names([stmt]):
                self.values[name] = Unknown("nested too deeply to evaluate")
        finally:
            budget.statement = outer

    def _run_stmt(self, stmt: ast.stmt) -> None:
        match stmt:
            case ast.Import() | ast.ImportFrom():
                _bind_imports(stmt, self, self.directory, self.loader)
            case ast.FunctionDef() | ast.AsyncFunctionDef():
                self.functions[stmt.name] = stmt
                self.values[stmt.name] = _function_value(stmt, self, self.evaluator)
            case ast.ClassDef():
                self.classes[stmt.name] = stmt
                self.values[stmt.name] = _class_value(stmt, self, self.evaluator)
            case ast.If():
                test = self.evaluator.eval(stmt.test, self)
                for inner in stmt.body if test else stmt.orelse:
                    self._run_top(inner)
            case ast.Try():
                for inner in (*stmt.body, *stmt.orelse, *stmt.finalbody):
                    self._run_top(inner)
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign():
                self.evaluator.exec_block([stmt], self)
            case ast.For() | ast.While() | ast.With() | ast.Delete():
                self.evaluator.exec_block([stmt], self)
            case _:
                # Expression statements, asserts, `global`: nothing a kernel can read.
                pass


class FactoryScope(Scope):
    """The names a program factory (`def build(batch=BATCH): @pl.program class X: ...`) binds before its
    nested program: its parameters at their defaults and its simple assignments, evaluated statically."""

    def __init__(self, parent: ModuleScope, node: ast.FunctionDef) -> None:
        self.parent = parent
        self.values: dict[str, Any] = {}
        spec = node.args
        positional = [*spec.posonlyargs, *spec.args]
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        pairs = [*zip(positional, defaults), *zip(spec.kwonlyargs, spec.kw_defaults)]
        for param, default in pairs:
            if default is None:
                self.values[param.arg] = Unknown(f"`{param.arg}` is a parameter of factory `{node.name}` without a default")
                continue
            try:
                self.values[param.arg] = parent.evaluator.eval(default, parent)
            except (NotStatic, RecursionError) as error:
                self.values[param.arg] = Unknown(getattr(error, "reason", "not static"))
        for stmt in node.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                try:
                    parent.evaluator.exec_block([stmt], self)
                except (NotStatic, RecursionError) as error:
                    for name in _assigned_names([stmt]):
                        self.values[name] = Unknown(getattr(error, "reason", "not static"))

    @property
    def module(self) -> ModuleScope:
        return self.parent

    def lookup(self, name: str) -> Any:
        if name in self.values:
            value = self.values[name]
            if isinstance(value, Unknown):
                raise NotStatic(value.reason, value.missing, value.where)
            return value
        return self.parent.lookup(name)

    def raw(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        return self.parent.raw(name)

    def assign(self, name: str, value: Any) -> None:
        self.values[name] = value


class LocalScope(Scope):
    """A function call's locals, then its enclosing scope."""

    def __init__(self, parent: Scope) -> None:
        self.parent = parent
        self.values: dict[str, Any] = {}

    @property
    def module(self) -> ModuleScope:
        return self.parent.module

    def lookup(self, name: str) -> Any:
        if name in self.values:
            return self.values[name]
        return self.parent.lookup(name)

    def assign(self, name: str, value: Any) -> None:
        self.values[name] = value

    def delete(self, name: str) -> None:
        self.values.pop(name, None)


# ---------------------------------------------------------------------------------------------- loader


class Loader:
    """Finds and reads sibling modules (relative to the kernel file's directory), once each."""

    def __init__(self, budget: Budget | None = None, max_file_size: int = MAX_FILE_SIZE,
                 modules: Mapping[Path, str] | None = None) -> None:
        self.budget = budget or Budget()
        self.max_file_size = max_file_size
        """Bytes a sibling module may have (`--max-file-size`); a bigger one is not read."""
        self.modules = {path.resolve(): text for path, text in (modules or {}).items()}
        """Texts read instead of a module's file (a size constant rewritten, `run/shrink.py`), by resolved path."""
        self._cache: dict[Path, ModuleScope | NotStatic] = {}
        self._loading: set[Path] = set()

    def module_scope(self, path: Path, tree: ast.Module) -> ModuleScope:
        path = path.resolve() if path.exists() else path
        self._loading.add(path)
        try:
            scope = ModuleScope(path, tree, self)
        finally:
            self._loading.discard(path)
        self._cache[path] = scope
        return scope

    def load(self, module: str, directory: Path, level: int) -> ModuleScope:
        found = _find_module(module, directory, level)
        if found is None:
            dots = "." * level
            where = "beside the kernel file" if level <= 1 else f"{level - 1} directories above the kernel file"
            stem = module.replace(".", "/") or "__init__"
            raise NotStatic(f"module `{dots}{module}` was not found (no `{stem}.py` or `{stem}/__init__.py` {where})",
                            missing=f"{dots}{module}")
        found = found.resolve()
        cached = self._cache.get(found)
        if isinstance(cached, NotStatic):
            raise cached
        if cached is not None:
            return cached
        if found in self._loading:
            raise NotStatic(f"module `{module}` imports itself (circular import)")
        try:
            given = self.modules.get(found)
            tree = _parse_cached(found, self.max_file_size) if given is None else ast.parse(given, str(found))
        except UnreadableSource as error:
            # as good as absent: a name it would define is an input error naming why, never a run-time symbol
            failure = NotStatic(f"module `{module}` ({found.name}) cannot be read: {error.what}; {error.why}",
                                missing=module)
            self._cache[found] = failure
            raise failure from None
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
            failure = NotStatic(f"module `{module}` ({found}) cannot be read: {type(error).__name__}")
            self._cache[found] = failure
            raise failure from None
        return self.module_scope(found, tree)


_TREES: dict[tuple[Path, bytes], ast.Module] = {}


def _parse_cached(path: Path, limit: int = MAX_FILE_SIZE) -> ast.Module:
    """The parsed sibling module (parsed once per process while its bytes are unchanged: keyed by the bytes,
    not the stat, since an edit may keep the size and the mtime)."""
    data = read_source_bytes(path, limit)
    key = (path, data)
    tree = _TREES.get(key)
    if tree is None:
        if len(_TREES) > 256:
            _TREES.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data.decode("utf-8-sig"), filename=str(path))
        _TREES[key] = tree
    return tree


def _resolve_import(lazy: LazyImport) -> Any:
    """The value `from module import attr` binds: a name of the module, or a submodule."""
    loader, directory, level = lazy.loader, lazy.directory, lazy.level
    if lazy.attr is None:
        loader.load(lazy.module, directory, level)
        return ModuleValue(lazy.module, loader, directory, level)
    scope: ModuleScope | None = None
    failure: NotStatic | None = None
    try:
        scope = loader.load(lazy.module, directory, level)
    except NotStatic as error:
        failure = error
    if scope is not None and lazy.attr in scope.values:
        return scope.lookup(lazy.attr)
    sub = f"{lazy.module}.{lazy.attr}" if lazy.module else lazy.attr
    if _find_module(sub, directory, level) is not None:
        loader.load(sub, directory, level)
        return ModuleValue(sub, loader, directory, level)
    if failure is not None:
        raise failure
    raise NotStatic(f"module `{lazy.module}` defines no `{lazy.attr}`")


_PL_MODULES = ("pypto.language",)
_EXTERNAL_MODULES = EXTERNAL_MODULES
_find_module = find_module  # one resolution for the frontend and the result cache's key (imports.py)


def _bind_imports(stmt: ast.Import | ast.ImportFrom, scope: Scope, directory: Path, loader: Loader) -> None:
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            scope.assign(alias.asname or alias.name.split(".")[0], _import_value(alias, directory, loader))
        return
    module = stmt.module or ""
    for alias in stmt.names:
        name = alias.asname or alias.name
        if alias.name == "*":
            _bind_star(module, stmt.level, scope, directory, loader)
            continue
        try:
            value = _from_import_value(module, alias.name, stmt.level, directory, loader)
        except NotStatic as error:
            value = Unknown(error.reason, error.missing, error.where)
        scope.assign(name, value)


def _import_value(alias: ast.alias, directory: Path, loader: Loader) -> Any:
    full = alias.name
    if full == "pypto.language" or full.startswith("pypto.language."):
        if alias.asname is None:
            return External("pypto")
        rest = full[len("pypto.language"):].lstrip(".")
        return PlPath(rest)
    root = full.split(".")[0]
    if root == "pypto" or root in _EXTERNAL_MODULES:
        return External(full if alias.asname else root)
    if alias.asname is None and "." in full:
        return ModuleValue(root, loader, directory)
    return ModuleValue(full, loader, directory)


def _from_import_value(module: str, name: str, level: int, directory: Path, loader: Loader) -> Any:
    if level == 0 and module == "pypto" and name == "language":
        return PlPath("")
    if level == 0 and (module == "pypto.language" or module.startswith("pypto.language.")):
        rest = module[len("pypto.language"):].lstrip(".")
        return PlPath(f"{rest}.{name}" if rest else name)
    root = module.split(".")[0]
    if level == 0 and (root == "pypto" or root in _EXTERNAL_MODULES):
        return _external_attr(External(module), name)
    return LazyImport(module, name, loader, directory, level)


def _bind_star(module: str, level: int, scope: Scope, directory: Path, loader: Loader) -> None:
    try:
        source = loader.load(module, directory, level)
    except NotStatic:
        return
    for key in list(source.values):
        if not key.startswith("_"):
            scope.assign(key, source.raw(key) if source.raw(key) is not _MARKER else Unknown("unbound"))


# ---------------------------------------------------------------------------------------------- evaluator

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_PLAIN = (int, float, bool, str, type(None))


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Evaluator:
    """Interprets the pure subset on static values; raises `NotStatic` outside it."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.depth = 0

    # ------------------------------------------------------------------------------------------ expressions

    def eval(self, node: ast.expr, scope: Scope) -> Any:
        self.budget.tick()
        method = getattr(self, f"_eval_{type(node).__name__}", None)
        if method is None:
            raise NotStatic(f"`{type(node).__name__}` has no static value")
        return method(node, scope)

    def _eval_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            raise NotStatic("not a static constant")
        return node.value

    def _eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        return scope.lookup(node.id)

    def _eval_Tuple(self, node: ast.Tuple, scope: Scope) -> Any:
        return tuple(self._eval_items(node.elts, scope))

    def _eval_List(self, node: ast.List, scope: Scope) -> Any:
        return self._eval_items(node.elts, scope)

    def _eval_Set(self, node: ast.Set, scope: Scope) -> Any:
        return set(_hashable(v) for v in self._eval_items(node.elts, scope))

    def _eval_items(self, elts: list[ast.expr], scope: Scope) -> list[Any]:
        out: list[Any] = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                out.extend(_iterate(self.eval(elt.value, scope), self.budget))
            else:
                out.append(self.eval(elt, scope))
        _check_len(out)
        return out

    def _eval_Dict(self, node: ast.Dict, scope: Scope) -> Any:
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                merged = self.eval(value, scope)
                if not isinstance(merged, dict):
                    raise NotStatic("`**` of a non-dict")
                out.update(merged)
            else:
                out[_hashable(self.eval(key, scope))] = self.eval(value, scope)
        return out

    def _eval_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        lhs = self.eval(node.left, scope)
        rhs = self.eval(node.right, scope)
        return binop(type(node.op), lhs, rhs)

    def _eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        value = self.eval(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return not _truth(value)
        if not isinstance(value, (int, float)):
            raise NotStatic("unary operator on a non-number")
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        if isinstance(node.op, ast.Invert) and isinstance(value, int):
            return ~value
        raise NotStatic("unsupported unary operator")

    def _eval_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.eval(operand, scope)
            if isinstance(node.op, ast.And) and not _truth(value):
                return value
            if isinstance(node.op, ast.Or) and _truth(value):
                return value
        return value

    def _eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        lhs = self.eval(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators):
            rhs = self.eval(comparator, scope)
            if not _comparable(lhs) or not _comparable(rhs):
                raise NotStatic("comparison of values that are not plain data")
            try:
                ok = _CMPOPS[type(op)](lhs, rhs)
            except TypeError as error:
                raise NotStatic(f"comparison fails: {error}") from None
            if not ok:
                return False
            lhs = rhs
        return True

    def _eval_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        return self.eval(node.body if _truth(self.eval(node.test, scope)) else node.orelse, scope)

    def _eval_JoinedStr(self, node: ast.JoinedStr, scope: Scope) -> Any:
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            assert isinstance(value, ast.FormattedValue)
            item = self.eval(value.value, scope)
            if not isinstance(item, _PLAIN):
                raise NotStatic("f-string of a value that is not plain data")
            spec = self.eval(value.format_spec, scope) if value.format_spec is not None else ""
            if value.conversion == ord("r"):
                item = repr(item)
            elif value.conversion == ord("s"):
                item = str(item)
            try:
                parts.append(format(item, spec))
            except (ValueError, TypeError) as error:
                raise NotStatic(f"bad format: {error}") from None
        text = "".join(parts)
        _check_len(text)
        return text

    def _eval_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        value = self.eval(node.value, scope)
        if isinstance(value, (External, PlPath)):
            raise NotStatic("subscript of a module")
        index = self.eval(node.slice, scope)
        if not isinstance(value, (str, list, tuple, dict, range)):
            raise NotStatic("subscript of a value that is not a container")
        try:
            return value[_hashable(index) if isinstance(value, dict) else index]
        except (IndexError, KeyError, TypeError) as error:
            raise NotStatic(f"subscript fails: {type(error).__name__}") from None

    def _eval_Slice(self, node: ast.Slice, scope: Scope) -> Any:
        parts = [self.eval(p, scope) if p is not None else None for p in (node.lower, node.upper, node.step)]
        if not all(p is None or isinstance(p, int) for p in parts):
            raise NotStatic("slice bounds are not ints")
        return slice(*parts)

    def _eval_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        value = self.eval(node.value, scope)
        try:
            return get_attribute(value, node.attr, self)
        except NotStatic as error:
            if error.missing is None or error.where is not None:
                raise
            where = (str(scope.module.path), node.lineno, node.col_offset + 1)
            raise NotStatic(f"`{ast.unparse(node)}`: {error.reason}", error.missing, where) from None

    def _eval_Call(self, node: ast.Call, scope: Scope) -> Any:
        fn = self.eval(node.func, scope)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(_iterate(self.eval(arg.value, scope), self.budget))
            else:
                args.append(self.eval(arg, scope))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.eval(keyword.value, scope)
            if keyword.arg is None:
                if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                    raise NotStatic("`**` of a non-dict")
                kwargs.update(value)
            else:
                kwargs[keyword.arg] = value
        return self.call(fn, args, kwargs)

    def _eval_Lambda(self, node: ast.Lambda, scope: Scope) -> Any:
        return FunctionValue(node, scope)

    def _eval_ListComp(self, node: ast.ListComp, scope: Scope) -> Any:
        out: list[Any] = []
        self._comprehend(node.generators, 0, scope, lambda s: out.append(self.eval(node.elt, s)))
        return out

    def _eval_GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Any:
        out: list[Any] = []
        self._comprehend(node.generators, 0, scope, lambda s: out.append(self.eval(node.elt, s)))
        return tuple(out)

    def _eval_SetComp(self, node: ast.SetComp, scope: Scope) -> Any:
        out: set[Any] = set()
        self._comprehend(node.generators, 0, scope, lambda s: out.add(_hashable(self.eval(node.elt, s))))
        return out

    def _eval_DictComp(self, node: ast.DictComp, scope: Scope) -> Any:
        out: dict[Any, Any] = {}

        def add(s: Scope) -> None:
            out[_hashable(self.eval(node.key, s))] = self.eval(node.value, s)

        self._comprehend(node.generators, 0, scope, add)
        return out

    def _comprehend(self, generators: list[ast.comprehension], i: int, scope: Scope,
                    emit: Callable[[Scope], None]) -> None:
        if i == len(generators):
            emit(scope)
            return
        gen = generators[i]
        inner = LocalScope(scope) if i == 0 else scope
        for item in _iterate(self.eval(gen.iter, scope), self.budget):
            self.budget.tick()
            self._bind_target(gen.target, item, inner)
            if all(_truth(self.eval(cond, inner)) for cond in gen.ifs):
                self._comprehend(generators, i + 1, inner, emit)

    # ------------------------------------------------------------------------------------------ calls

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self.budget.tick()
        if isinstance(fn, Builtin):
            for value in (*args, *kwargs.values()):
                if isinstance(value, (External, ModuleValue)):
                    raise NotStatic(f"`{fn.name}` of a module")
            try:
                result = fn.impl(*args, **kwargs)
            except NotStatic:
                raise
            except (TypeError, ValueError, ArithmeticError, KeyError, IndexError, AttributeError) as error:
                raise NotStatic(f"`{fn.name}(...)` fails: {type(error).__name__}") from None
            _check_value(result)
            return result
        if isinstance(fn, BoundMethod):
            return self.call_function(fn.function, [fn.receiver, *args], kwargs)
        if isinstance(fn, FunctionValue):
            return self.call_function(fn, args, kwargs)
        if isinstance(fn, ClassValue):
            return self._instantiate(fn, args, kwargs)
        if isinstance(fn, PlPath):
            if fn.path == "dynamic" and len(args) >= 1 and isinstance(args[0], str):
                return Dynamic(args[0])
            raise NotStatic(f"`pl.{fn.path}(...)` has no static value")
        raise NotStatic("call of something that is not a static function")

    def call_function(self, fn: FunctionValue, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if fn.decorated:
            raise NotStatic(f"`{fn.name}` is a decorated function")
        node = fn.node
        if isinstance(node, ast.AsyncFunctionDef):
            raise NotStatic(f"`{fn.name}` is async")
        if self.depth >= _MAX_CALL_DEPTH:
            raise NotStatic("static evaluation nests calls too deeply")
        local = LocalScope(fn.scope)
        self._bind_params(fn, node.args, args, kwargs, local)
        self.depth += 1
        try:
            if isinstance(node, ast.Lambda):
                return self.eval(node.body, local)
            try:
                self.exec_block(node.body, local)
            except _Return as ret:
                return ret.value
            return None
        finally:
            self.depth -= 1

    def _bind_params(self, fn: FunctionValue, spec: ast.arguments, args: list[Any], kwargs: dict[str, Any],
                     local: LocalScope) -> None:
        positional = [*spec.posonlyargs, *spec.args]
        defaults = [None] * (len(positional) - len(spec.defaults)) + list(spec.defaults)
        kwargs = dict(kwargs)
        for i, param in enumerate(positional):
            if i < len(args):
                value = args[i]
            elif param.arg in kwargs:
                value = kwargs.pop(param.arg)
            elif (default := defaults[i]) is not None:
                value = self.eval(default, fn.scope)
            else:
                raise NotStatic(f"`{fn.name}` called without `{param.arg}`")
            local.assign(param.arg, value)
        extra = args[len(positional):]
        if spec.vararg is not None:
            local.assign(spec.vararg.arg, tuple(extra))
        elif extra:
            raise NotStatic(f"`{fn.name}` called with too many arguments")
        for param, default in zip(spec.kwonlyargs, spec.kw_defaults):
            if param.arg in kwargs:
                local.assign(param.arg, kwargs.pop(param.arg))
            elif default is not None:
                local.assign(param.arg, self.eval(default, fn.scope))
            else:
                raise NotStatic(f"`{fn.name}` called without `{param.arg}`")
        if spec.kwarg is not None:
            local.assign(spec.kwarg.arg, kwargs)
        elif kwargs:
            raise NotStatic(f"`{fn.name}` called with unknown keyword `{next(iter(kwargs))}`")

    def _instantiate(self, cls: ClassValue, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if not cls.is_dataclass:
            raise NotStatic(f"instance of `{cls.node.name}`, which is not a dataclass")
        values: dict[str, Any] = {}
        kwargs = dict(kwargs)
        for i, (name, default) in enumerate(cls.fields):
            if i < len(args):
                values[name] = args[i]
            elif name in kwargs:
                values[name] = kwargs.pop(name)
            elif default is not None:
                values[name] = self._field_default(default, cls.scope)
            else:
                raise NotStatic(f"`{cls.node.name}(...)` without `{name}`")
        if len(args) > len(cls.fields) or kwargs:
            raise NotStatic(f"`{cls.node.name}(...)` with unexpected arguments")
        return Instance(cls, values)

    def _field_default(self, default: ast.expr, scope: Scope) -> Any:
        if isinstance(default, ast.Call) and _call_name(default) == "field":
            for keyword in default.keywords:
                if keyword.arg == "default":
                    return self.eval(keyword.value, scope)
                if keyword.arg == "default_factory":
                    return self.call(self.eval(keyword.value, scope), [], {})
            raise NotStatic("`field()` without a default")
        return self.eval(default, scope)

    # ------------------------------------------------------------------------------------------ statements

    def exec_block(self, body: list[ast.stmt], scope: Scope) -> None:
        for stmt in body:
            self.budget.tick()
            self._exec(stmt, scope)

    def _exec(self, stmt: ast.stmt, scope: Scope) -> None:
        match stmt:
            case ast.Assign():
                value = self.eval(stmt.value, scope)
                for target in stmt.targets:
                    self._bind_target(target, value, scope)
            case ast.AnnAssign():
                if stmt.value is not None:
                    self._bind_target(stmt.target, self.eval(stmt.value, scope), scope)
            case ast.AugAssign():
                current = self.eval(_load(stmt.target), scope)
                self._bind_target(stmt.target, binop(type(stmt.op), current, self.eval(stmt.value, scope)), scope)
            case ast.Return():
                raise _Return(self.eval(stmt.value, scope) if stmt.value is not None else None)
            case ast.If():
                self.exec_block(stmt.body if _truth(self.eval(stmt.test, scope)) else stmt.orelse, scope)
            case ast.For():
                self._exec_for(stmt, scope)
            case ast.While():
                self._exec_while(stmt, scope)
            case ast.Break():
                raise _Break()
            case ast.Continue():
                raise _Continue()
            case ast.Pass():
                pass
            case ast.Expr():
                if not isinstance(stmt.value, ast.Constant):
                    self.eval(stmt.value, scope)
            case ast.Assert():
                if not _truth(self.eval(stmt.test, scope)):
                    raise NotStatic("an assertion fails")
            case ast.FunctionDef():
                scope.assign(stmt.name, _function_value(stmt, scope, self))
            case ast.Import() | ast.ImportFrom():
                module = scope.module
                _bind_imports(stmt, scope, module.directory, module.loader)
            case ast.Delete():
                for target in stmt.targets:
                    if not isinstance(target, ast.Name):
                        raise NotStatic("`del` of something other than a name")
                    scope.delete(target.id)
            case ast.Raise():
                raise NotStatic("raises an exception")
            case _:
                raise NotStatic(f"`{type(stmt).__name__}` statement is not evaluated statically")

    def _exec_for(self, stmt: ast.For, scope: Scope) -> None:
        for item in _iterate(self.eval(stmt.iter, scope), self.budget):
            self.budget.tick()
            self._bind_target(stmt.target, item, scope)
            try:
                self.exec_block(stmt.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        self.exec_block(stmt.orelse, scope)

    def _exec_while(self, stmt: ast.While, scope: Scope) -> None:
        while _truth(self.eval(stmt.test, scope)):
            self.budget.tick()
            try:
                self.exec_block(stmt.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        self.exec_block(stmt.orelse, scope)

    def _bind_target(self, target: ast.expr, value: Any, scope: Scope) -> None:
        match target:
            case ast.Name():
                scope.assign(target.id, value)
            case ast.Tuple() | ast.List():
                items = list(_iterate(value, self.budget))
                starred = [i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)]
                if starred:
                    s = starred[0]
                    after = len(target.elts) - s - 1
                    if len(items) < len(target.elts) - 1:
                        raise NotStatic("unpacking length mismatch")
                    head, mid, tail = items[:s], items[s:len(items) - after], items[len(items) - after:]
                    for t, v in zip(target.elts[:s], head):
                        self._bind_target(t, v, scope)
                    star = target.elts[s]
                    assert isinstance(star, ast.Starred)  # s indexes a Starred (above)
                    self._bind_target(star.value, list(mid), scope)
                    for t, v in zip(target.elts[s + 1:], tail):
                        self._bind_target(t, v, scope)
                    return
                if len(items) != len(target.elts):
                    raise NotStatic("unpacking length mismatch")
                for t, v in zip(target.elts, items):
                    self._bind_target(t, v, scope)
            case ast.Subscript():
                container = self.eval(target.value, scope)
                index = self.eval(target.slice, scope)
                if isinstance(container, dict):
                    container[_hashable(index)] = value
                elif isinstance(container, list):
                    try:
                        container[index] = value
                    except (IndexError, TypeError) as error:
                        raise NotStatic(f"item assignment fails: {type(error).__name__}") from None
                else:
                    raise NotStatic("item assignment to a value that is not a list or dict")
            case _:
                raise NotStatic(f"assignment to `{type(target).__name__}`")


# ---------------------------------------------------------------------------------------------- helpers


def binop(op: type, lhs: Any, rhs: Any) -> Any:
    """`lhs op rhs` on plain data, refusing results too large to be a real constant."""
    fn = _BINOPS.get(op)
    if fn is None:
        raise NotStatic("unsupported operator")
    if not _operand_ok(lhs) or not _operand_ok(rhs):
        raise NotStatic("arithmetic on values that are not plain data")
    if op is ast.Pow and isinstance(lhs, int) and isinstance(rhs, int) and not isinstance(rhs, bool):
        if rhs > 4096 or (abs(lhs) > 1 and lhs.bit_length() * abs(rhs) > _MAX_INT_BITS):
            raise NotStatic("power too large")
    if op is ast.LShift and isinstance(rhs, int) and rhs > _MAX_INT_BITS:
        raise NotStatic("shift too large")
    if op is ast.Mult and (isinstance(lhs, (str, list, tuple)) or isinstance(rhs, (str, list, tuple))):
        count = rhs if isinstance(lhs, (str, list, tuple)) else lhs
        seq = lhs if isinstance(lhs, (str, list, tuple)) else rhs
        if isinstance(count, int) and len(seq) * max(count, 0) > _MAX_LEN:
            raise NotStatic("repetition too large")
    try:
        result = fn(lhs, rhs)
    except (TypeError, ValueError, ArithmeticError) as error:
        raise NotStatic(f"arithmetic fails: {type(error).__name__}") from None
    _check_value(result)
    return result


def _operand_ok(value: Any) -> bool:
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return True
    return isinstance(value, dict)


def _comparable(value: Any) -> bool:
    return isinstance(value, (*_PLAIN, list, tuple, set, frozenset, dict, range, PlPath, Dynamic))


def _check_value(value: Any) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        raise NotStatic("integer too large")
    if isinstance(value, (str, list, tuple, dict, set)):
        _check_len(value)


def _check_len(value: Any) -> None:
    if len(value) > _MAX_LEN:
        raise NotStatic("container too large")


def _truth(value: Any) -> bool:
    if isinstance(value, (*_PLAIN, list, tuple, dict, set, frozenset, range)):
        return bool(value)
    raise NotStatic("truth value of a value that is not plain data")


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    try:
        hash(value)
    except TypeError:
        raise NotStatic("unhashable key") from None
    return value


def _iterate(value: Any, budget: Budget) -> list[Any]:
    if isinstance(value, range):
        if len(value) > _MAX_LEN:
            raise NotStatic("range too large")
        budget.tick(len(value) // 16)
        return list(value)
    if isinstance(value, (list, tuple, str)):
        return list(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, dict):
        return list(value)
    raise NotStatic("iteration over a value that is not a static container")


def _load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, ast.Load())
    if isinstance(target, ast.Subscript):
        return ast.Subscript(target.value, target.slice, ast.Load())
    raise NotStatic("augmented assignment to this target")


def _call_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


_TRANSPARENT_DECORATORS = frozenset({
    "functools.lru_cache", "lru_cache", "functools.cache", "cache", "staticmethod",
})


def _function_value(node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, evaluator: Evaluator) -> FunctionValue:
    decorated = any(_decorator_name(d) not in _TRANSPARENT_DECORATORS for d in node.decorator_list)
    return FunctionValue(node, scope, decorated=decorated)


def _class_value(node: ast.ClassDef, scope: Scope, evaluator: Evaluator) -> ClassValue:
    names = {_decorator_name(d) for d in node.decorator_list}
    is_dataclass = bool(names & {"dataclass", "dataclasses.dataclass"})
    fields: list[tuple[str, ast.expr | None]] = []
    attrs: dict[str, Any] = {}
    closed = _closed_body(node) and names <= {"dataclass", "dataclasses.dataclass"}
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        try:
            parent = evaluator.eval(base, scope)
        except NotStatic:
            closed = False
            continue
        if isinstance(parent, ClassValue):
            fields.extend(parent.fields)
            attrs.update(parent.attrs)
            is_dataclass = is_dataclass or parent.is_dataclass
            closed = closed and parent.closed
        else:
            closed = False
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if "ClassVar" in ast.unparse(stmt.annotation):
                if stmt.value is not None:
                    attrs[stmt.target.id] = _lazy_attr(stmt.value, scope, evaluator)
                continue
            fields = [f for f in fields if f[0] != stmt.target.id]
            fields.append((stmt.target.id, stmt.value))
            if stmt.value is not None and not isinstance(stmt.value, ast.Call):
                attrs[stmt.target.id] = _lazy_attr(stmt.value, scope, evaluator)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            attrs[stmt.targets[0].id] = _lazy_attr(stmt.value, scope, evaluator)
        elif isinstance(stmt, ast.FunctionDef):
            decorators = {_decorator_name(d) for d in stmt.decorator_list}
            if "property" in decorators or "functools.cached_property" in decorators or "cached_property" in decorators:
                attrs[stmt.name] = _Property(FunctionValue(stmt, scope))
            elif decorators <= {"staticmethod"}:
                attrs[stmt.name] = _Method(FunctionValue(stmt, scope), static="staticmethod" in decorators)
            elif decorators <= {"classmethod"}:
                attrs[stmt.name] = _Method(FunctionValue(stmt, scope), classmethod=True)
    return ClassValue(node, scope, is_dataclass, fields, attrs, closed)


_PLAIN_DUNDERS = frozenset({"__repr__", "__str__", "__eq__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__"})
_PLAIN_DECORATORS = frozenset({"property", "staticmethod", "classmethod", "functools.cached_property",
                               "cached_property"})


def _closed_body(node: ast.ClassDef) -> bool:
    """A class body that defines every attribute in the open: a docstring, `pass`, fields and constants
    bound to plain names, methods and properties; no metaclass, no `__getattr__` / `__init__` /
    `__post_init__` / `__slots__` (or any other dunder that could add or fetch attributes at run time)."""
    if node.keywords:
        return False
    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and not stmt.target.id.startswith("__"):
            continue
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and not stmt.targets[0].id.startswith("__")):
            continue
        if (isinstance(stmt, ast.FunctionDef) and (not stmt.name.startswith("__") or stmt.name in _PLAIN_DUNDERS)
                and {_decorator_name(d) for d in stmt.decorator_list} <= _PLAIN_DECORATORS
                and not _sets_attributes(stmt)):
            continue
        return False
    return True


def _sets_attributes(fn: ast.FunctionDef) -> bool:
    """The method may add an attribute at run time: it stores to one (`self.x = ...`) or calls `setattr`."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, ast.Call) and _decorator_name(node).endswith("setattr"):
            return True
    return False


@dataclass(eq=False)
class _Property:
    getter: FunctionValue


@dataclass(eq=False)
class _Method:
    function: FunctionValue
    static: bool = False
    classmethod: bool = False


@dataclass(eq=False)
class _LazyAttr:
    node: ast.expr
    scope: Scope
    evaluator: Evaluator
    value: Any = field(default=_MARKER)

    def get(self) -> Any:
        if self.value is _MARKER:
            self.value = self.evaluator.eval(self.node, self.scope)
        return self.value


def _lazy_attr(node: ast.expr, scope: Scope, evaluator: Evaluator) -> _LazyAttr:
    return _LazyAttr(node, scope, evaluator)


def get_attribute(value: Any, name: str, evaluator: Evaluator) -> Any:
    """`value.name` for the values the evaluator models; `NotStatic` otherwise."""
    if name.startswith("__"):
        raise NotStatic(f"attribute `{name}` is not static")
    if isinstance(value, PlPath):
        return value.child(name)
    if isinstance(value, ModuleValue):
        return value.scope().lookup(name)
    if isinstance(value, External):
        return _external_attr(value, name)
    if isinstance(value, Instance):
        if name in value.values:
            return value.values[name]
        return _class_attr(value.cls, name, value, evaluator)
    if isinstance(value, ClassValue):
        return _class_attr(value, name, None, evaluator)
    if isinstance(value, Dynamic):
        raise NotStatic(f"attribute `{name}` of a dynamic dimension")
    methods = _METHODS.get(type(value))
    if methods is not None and name in methods:
        bound = getattr(value, name)
        return Builtin(f"{type(value).__name__}.{name}", bound)
    if isinstance(value, float) and name in ("real", "imag"):
        return getattr(value, name)
    raise NotStatic(f"attribute `{name}` is not static")


def _class_attr(cls: ClassValue, name: str, receiver: Instance | None, evaluator: Evaluator) -> Any:
    attr = cls.attrs.get(name, _MARKER)
    if attr is _MARKER and cls.closed:
        kind = "field or attribute" if cls.is_dataclass else "attribute"
        path = getattr(cls.scope.module, "path", None)
        defined = f" ({Path(path).name}:{cls.node.lineno})" if path is not None else ""
        raise NotStatic(f"class `{cls.node.name}`{defined} has no {kind} `{name}`: importing this file raises "
                        f"AttributeError", missing=f"{cls.node.name}.{name}")
    if attr is _MARKER:
        raise NotStatic(f"`{cls.node.name}` has no static attribute `{name}`")
    if isinstance(attr, _LazyAttr):
        return attr.get()
    if isinstance(attr, _Property):
        if receiver is None:
            raise NotStatic(f"property `{name}` of the class itself")
        return evaluator.call_function(attr.getter, [receiver], {})
    if isinstance(attr, _Method):
        if attr.static:
            return attr.function
        if attr.classmethod:
            return BoundMethod(attr.function, cls)
        if receiver is None:
            return attr.function
        return BoundMethod(attr.function, receiver)
    return attr


_METHODS: dict[type, frozenset[str]] = {
    str: frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "split", "rsplit", "startswith",
                    "endswith", "replace", "join", "find", "rfind", "count", "isdigit", "isalpha",
                    "title", "capitalize", "zfill", "partition", "rpartition", "removeprefix",
                    "removesuffix", "index"}),
    list: frozenset({"append", "extend", "pop", "index", "count", "copy", "insert", "remove", "reverse"}),
    dict: frozenset({"get", "keys", "values", "items", "copy", "update", "setdefault", "pop"}),
    tuple: frozenset({"index", "count"}),
    int: frozenset({"bit_length"}),
    float: frozenset({"is_integer"}),
}


def _replace(obj: Any, **changes: Any) -> Any:
    if not isinstance(obj, Instance):
        raise NotStatic("`replace` of a value that is not a dataclass instance")
    unknown = set(changes) - set(obj.values)
    if unknown:
        raise NotStatic(f"`replace` with unknown field `{sorted(unknown)[0]}`")
    return Instance(obj.cls, {**obj.values, **changes})


def _checked_range(*args: Any) -> range:
    if not all(isinstance(a, int) for a in args):
        raise NotStatic("range of non-ints")
    return range(*args)


def _static_list(value: Any = ()) -> list[Any]:
    return list(_iterate(value, Budget(_MAX_LEN)))


def _static_tuple(value: Any = ()) -> tuple[Any, ...]:
    return tuple(_iterate(value, Budget(_MAX_LEN)))


def _static_sorted(value: Any, reverse: bool = False) -> list[Any]:
    return sorted(_iterate(value, Budget(_MAX_LEN)), reverse=reverse)


def _static_sum(value: Any, start: Any = 0) -> Any:
    total = start
    for item in _iterate(value, Budget(_MAX_LEN)):
        total = binop(ast.Add, total, item)
    return total


def _plain(fn: Callable[..., Any], name: str) -> Builtin:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if not isinstance(value, (*_PLAIN, list, tuple, dict, set, frozenset, range)):
                raise NotStatic(f"`{name}` of a value that is not plain data")
        return fn(*args, **kwargs)

    return Builtin(name, guarded)


def _isinstance(value: Any, kinds: Any) -> bool:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    types = []
    for kind in kinds:
        if not isinstance(kind, Builtin) or kind.name not in _TYPE_NAMES:
            raise NotStatic("`isinstance` with a class we do not model")
        types.append(_TYPE_NAMES[kind.name])
    return isinstance(value, tuple(types))


_TYPE_NAMES = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "tuple": tuple, "dict": dict}

_BUILTINS: dict[str, Any] = {
    "int": _plain(int, "int"), "float": _plain(float, "float"), "bool": _plain(bool, "bool"),
    "str": _plain(str, "str"), "abs": _plain(abs, "abs"), "min": _plain(min, "min"), "max": _plain(max, "max"),
    "len": _plain(len, "len"), "round": _plain(round, "round"), "divmod": _plain(divmod, "divmod"),
    "range": Builtin("range", _checked_range), "list": Builtin("list", _static_list),
    "tuple": Builtin("tuple", _static_tuple), "sorted": Builtin("sorted", _static_sorted),
    "sum": Builtin("sum", _static_sum), "any": _plain(any, "any"), "all": _plain(all, "all"),
    "dict": _plain(dict, "dict"), "set": _plain(set, "set"), "frozenset": _plain(frozenset, "frozenset"),
    "reversed": _plain(lambda v: list(reversed(v)), "reversed"),
    "enumerate": _plain(lambda v, start=0: list(enumerate(v, start)), "enumerate"),
    "zip": _plain(lambda *vs: list(zip(*vs)), "zip"), "ord": _plain(ord, "ord"), "chr": _plain(chr, "chr"),
    "isinstance": Builtin("isinstance", _isinstance), "None": None, "True": True, "False": False,
}

_MATH: dict[str, Any] = {name: _plain(getattr(math, name), f"math.{name}") for name in (
    "sqrt", "ceil", "floor", "log", "log2", "log10", "exp", "pow", "isqrt", "gcd", "lcm", "prod",
    "fabs", "trunc", "isclose", "fsum", "comb", "factorial", "sin", "cos", "tan", "atan", "hypot",
)}
_MATH.update({"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau})

_EXTERNAL_ATTRS: dict[str, dict[str, Any]] = {
    "math": _MATH,
    "os": {"environ": _ENVIRON, "getenv": Builtin("os.getenv", lambda key, default=None: default),
           "sep": "/"},
    "sys": {"argv": ["<kernel>"], "version_info": (3, 11), "maxsize": 2 ** 63 - 1},
    "dataclasses": {"dataclass": Builtin("dataclass", lambda *a, **k: _MARKER), "field": _MARKER,
                    "replace": Builtin("replace", _replace)},
    "functools": {"lru_cache": _MARKER, "cache": _MARKER},
    "pypto": {"language": PlPath("")},
}


def _external_attr(module: External, name: str) -> Any:
    table = _EXTERNAL_ATTRS.get(module.name)
    if table is not None and name in table:
        value = table[name]
        # A fresh copy each time: a kernel file's module code may mutate `sys.argv`.
        return list(value) if isinstance(value, list) else value
    if module.name == "os" and name == "path":
        return External("os.path")
    raise NotStatic(f"`{module.name}.{name}` is outside what is read statically")


_METHODS[_FakeEnviron] = frozenset({"get"})


def _assigned_names(body: list[ast.stmt]) -> list[str]:
    """Names a statement list binds in its own scope (nested blocks, not nested function bodies)."""
    names: list[str] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, ast.alias):
            names.append((node.asname or node.name).split(".")[0])
        stack.extend(ast.iter_child_nodes(node))
    return names
