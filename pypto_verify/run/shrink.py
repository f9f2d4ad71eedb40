"""Sizes that fit a pre-commit budget (issue 14, item 4): the kernel simulated with module size constants made
smaller, only where the smaller lowering is the verified one but for trip counts and GM extents.

Owns: the search for smaller values of a kernel's size constants (`shrink_kernel`). A kernel whose tensor
parameters hold more than `sizes.SIM_BUDGET_ELEMENTS` elements has each module constant written as one of
their dimensions (`sizes.size_constants`, largest first) tried at a smaller value: the file is read again with
that constant's assignment rewritten (`sizes.with_constant`, no line moves) and the kernel lowered again, and
the value is kept only when that lowering is the real one but for loop stops and GM tensor extents
(`sizes.plan_difference`) and each changed loop still runs the real one's kinds of iteration
(`sizes.trips_kept`). The first value tried is two windows of the constant's dimension in the real value's
remainder class modulo the windows along it and the divisors the file divides it by (`sizes.window_unit`,
`sizes.divisor_unit`: `VOCAB // CHUNK`, `assert VOCAB % 64 == 0`; `sizes.first_value`); when a loop needs more iterations, one more value is fitted from the
loop stops seen (`sizes.fitted_value`) and checked the same way. Nothing is guessed: a value is kept only
after its own lowering was compared.
A constant the file imports (`from config import VOCAB`) is followed to the module that assigns it
(`constant_home`, through modules that import it in turn) and rewritten there, the file read again with that
module's text (`read_source`'s *modules*); the same checks decide, and the text names the module.
Before trying constants one at a time, one lowering with every constant at its least value says whether any
shrink can fit the budget (`_least_inputs`): a kernel still too large there is refused at the cost of one
lowering, not one per constant (`prefill_cp_fwd_draft.py`: ~50).
Input: the file's text, the kernel as read and lowered, and a function that reads and lowers a text.
Output: a `Shrunk` kernel pair with the values, or why no constant could be shrunk.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pypto_verify import ops
from pypto_verify.diagnostics import MAX_FILE_SIZE, UnreadableSource, read_source_bytes
from pypto_verify.imports import find_module, is_external
from pypto_verify.ir import Function, TensorType
from pypto_verify.sizes import (
    IMPORTED, SIM_BUDGET_ELEMENTS, SizeConstant, divisor_unit, first_value, fitted_value, input_elements,
    TripCount, plan_difference, size_constants, trips_kept, window_unit, with_constant,
)

if TYPE_CHECKING:
    from pypto_verify.dynamic import SimOutcome

Relower = Callable[[str, Mapping[Path, str]],
                   "tuple[Function, Function] | tuple[Function, Function, tuple[TripCount, ...]] | str"]
"""Read a file's text (its imported modules at the texts given for them) and lower the kernel again: its
source and lowered functions (and the loops whose stops differ in the functions it calls, when it calls any), or
why not."""

_IMPORT_HOPS = 8
"""Modules an imported constant is followed through (`from a import X` in a module that imports it from b)."""


@dataclass(frozen=True, slots=True)
class Home:
    """The module file that assigns a constant the kernel's file imports, and the constant's name there."""

    path: Path
    name: str


def constant_home(text: str, name: str, path: Path, max_file_size: int = MAX_FILE_SIZE) -> Home | str:
    """Where the name *name* that the file *text* at *path* imports (`from config import X`, through modules
    importing it in turn) is assigned exactly once (a plain `X = value`), or why it cannot be rewritten."""
    for _ in range(_IMPORT_HOPS):
        tree = _tree(text)
        if tree is None:
            return f"{path.name} does not parse"
        bindings = _bindings(tree, name)
        if len(bindings) != 1:
            return f"bound {len(bindings)} times in {path.name}"
        (binding,) = bindings
        if isinstance(binding, ast.Assign) and len(binding.targets) == 1 and isinstance(binding.targets[0], ast.Name):
            return Home(path, name)
        if not isinstance(binding, ast.ImportFrom):
            return f"not a plain assignment in {path.name}"
        (alias,) = [a for a in binding.names if (a.asname or a.name) == name]
        module = binding.module or ""
        if is_external(module, binding.level):
            return f"imported from `{module}`, which is not read"
        found = find_module(module, path.parent, binding.level)
        if found is None or alias.name == "*":
            return f"imported from `{'.' * binding.level}{module}`, which is not found"
        try:
            text = read_source_bytes(found, max_file_size).decode("utf-8-sig")
        except (UnreadableSource, UnicodeDecodeError):
            return f"{found.name} cannot be read"
        path, name = found, alias.name
    return f"imported through more than {_IMPORT_HOPS} modules"


@lru_cache(maxsize=4)
def _tree(text: str) -> ast.Module | None:
    """*text* parsed (None: it does not parse), once: every size constant a kernel imports is followed from its
    file's one text (a layer's kernel: a parse per constant and kernel, ~4 ms each). Only read (`_bindings`)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _bindings(tree: ast.Module, name: str) -> list[ast.stmt]:
    """The top-level statements of *tree* that may bind *name*: a store to it, an import of it, a `*` import,
    a function or class of that name."""
    found: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.extend([stmt] if stmt.name == name else [])
            continue
        found.extend(stmt for node in ast.walk(stmt)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name
                     or isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) in (name, "*"))
    return found


@dataclass(frozen=True, slots=True)
class Shrunk:
    """The kernel at smaller values of its size constants, the lowering checked against the real one."""

    source: Function
    lowered: Function
    values: tuple[tuple[str, int, int], ...]
    """`(name, value simulated, real value)` of each constant shrunk."""
    unshrunk: str = ""
    """Why the other size constants tried were not shrunk (empty: none was left)."""
    file_text: str = ""
    """The file's text at the shrunk values (the functions the kernel calls are read from it too)."""
    modules: tuple[tuple[Path, str], ...] = ()
    """The imported modules rewritten: each file and its text at the shrunk values."""
    homes: tuple[tuple[str, str], ...] = ()
    """`(name, module file)` of each shrunk constant assigned in an imported module."""

    @property
    def text(self) -> str:
        """`VOCAB=13824 (real 152064: trip counts only)`, `CP_SIZE=2 (real 8, in config.py: trip counts
        only)`: what the simulation ran at."""
        homes = dict(self.homes)
        return ", ".join(f"{name}={value} (real {real}{f', in {homes[name]}' if name in homes else ''}: "
                         "trip counts only)" for name, value, real in self.values)


def shrink_kernel(text: str, source: Function, lowered: Function, relower: Relower,
                  budget: int = SIM_BUDGET_ELEMENTS, path: Path | None = None,
                  max_file_size: int = MAX_FILE_SIZE) -> Shrunk | str:
    """The kernel with its size constants shrunk until its inputs fit *budget* (module docstring), or why
    none could be; *path* is the file's (its imports resolve from it; default: the kernel's span)."""
    path = path if path is not None else Path(source.span.path)
    real_values = {p.name: p.type.shape for p in source.params if isinstance(p.type, TensorType)}
    constants: list[tuple[SizeConstant, int, Home | None]] = []
    blocked: dict[str, str] = {}
    for constant in size_constants(text, source):
        value = ops.const_int(real_values[constant.param][constant.axis])
        home: Home | None = None
        if constant.blocked == IMPORTED:
            followed = constant_home(text, constant.name, path, max_file_size)
            if isinstance(followed, str):
                blocked.setdefault(constant.name, f"{IMPORTED}: {followed}")
                continue
            home = followed
        elif constant.blocked:
            blocked.setdefault(constant.name, constant.blocked)
            continue
        if value is not None and value > 1 and constant.name not in (c.name for c, _, _ in constants):
            constants.append((constant, value, home))
    cannot = [f"{', '.join(n for n, w in blocked.items() if w == why)}: {why}"
              for why in dict.fromkeys(blocked.values())]
    if not constants:
        return "; ".join(cannot) or "no module constant names a dimension of its tensor parameters"
    constants.sort(key=lambda item: -item[1])
    kept: list[tuple[str, int, int]] = []
    why: list[str] = []
    texts = _Texts(text, {})
    units = {c.name: _unit(c, home, texts, lowered, text, max_file_size) for c, _, home in constants}
    least = _least_inputs(texts, constants, units, relower, max_file_size)
    if least is not None and least > budget:  # one lowering instead of one per constant (module docstring)
        return "; ".join([f"with every size constant at its least value the kernel's tensors still hold {least} "
                          f"elements (limit {budget})", *cannot])
    current_pair = (source, lowered)
    for constant, real, home in constants:
        if input_elements(current_pair[0]) <= budget:
            break
        unit = units[constant.name]
        if unit is None:
            assert home is not None  # _unit
            why.append(f"{constant.name}: {home.path.name} cannot be read")
            continue
        found = _shrink_one(texts, constant.name, home, real, unit, (source, lowered), relower, max_file_size)
        if isinstance(found, str):
            why.append(f"{constant.name}: {found}")
            continue
        value, texts, current_pair = found
        kept.append((constant.name, value, real))
    if not kept:
        return "; ".join([*why, *cannot])
    shrunk_names = {name for name, _, _ in kept}
    homes = tuple((c.name, h.path.name) for c, _, h in constants if h is not None and c.name in shrunk_names)
    return Shrunk(current_pair[0], current_pair[1], tuple(kept), "; ".join([*why, *cannot]), texts.file,
                  tuple(texts.modules.items()), homes)


def _unit(constant: SizeConstant, home: Home | None, texts: _Texts, lowered: Function, text: str,
          max_file_size: int) -> int | None:
    """The step a value of *constant* must keep (its windows and divisors; None: its home cannot be read)."""
    unit = math.lcm(window_unit(lowered, constant.param, constant.axis), divisor_unit(text, constant.name))
    if home is None:
        return unit
    module_text = texts.module(home.path, max_file_size)
    return None if module_text is None else math.lcm(unit, divisor_unit(module_text, home.name))


def _least_inputs(texts: _Texts, constants: list[tuple[SizeConstant, int, Home | None]],
                  units: Mapping[str, int | None], relower: Relower, max_file_size: int) -> int | None:
    """How many elements the kernel's tensors hold with every size constant at its least value (each stays at
    least there: `_shrink_one` only fits upward), from one lowering; None when that lowering fails (a module
    assert, say): the constants are then tried one at a time."""
    for constant, real, home in constants:
        unit = units[constant.name]
        if unit is not None and first_value(real, unit) < real:
            texts = texts.with_constant(constant.name, home, first_value(real, unit), max_file_size)
    pair = relower(texts.file, texts.modules)
    return None if isinstance(pair, str) else input_elements(pair[0])


@dataclass(frozen=True, slots=True)
class _Texts:
    """The file's text and the imported modules rewritten so far (by resolved path)."""

    file: str
    modules: dict[Path, str]

    def module(self, path: Path, max_file_size: int) -> str | None:
        """The text of the module at *path*: as rewritten so far, else its file."""
        if path.resolve() in self.modules:
            return self.modules[path.resolve()]
        try:
            return read_source_bytes(path, max_file_size).decode("utf-8-sig")
        except (UnreadableSource, UnicodeDecodeError):
            return None

    def with_constant(self, name: str, home: Home | None, value: int, max_file_size: int) -> _Texts:
        """These texts with *name* assigned *value*: in the file, or in its *home* module."""
        if home is None:
            return _Texts(with_constant(self.file, name, value), self.modules)
        module_text = self.module(home.path, max_file_size)
        assert module_text is not None  # read once already (shrink_kernel)
        return _Texts(self.file, {**self.modules, home.path.resolve(): with_constant(module_text, home.name, value)})


def _shrink_one(texts: _Texts, name: str, home: Home | None, real: int, unit: int,
                verified: tuple[Function, Function], relower: Relower, max_file_size: int
                ) -> tuple[int, _Texts, tuple[Function, Function]] | str:
    """The least value of constant *name* (assigned in the file, or in its *home* module) tried (at most two)
    whose source and lowering are the *verified* ones but for trip counts and GM extents, with the texts and
    kernel at it; or why there is none."""
    value = first_value(real, unit)
    if value >= real:
        return f"{real} is already at most two windows of {unit}"
    for _ in range(2):
        if value >= real:
            return f"no smaller value keeps its loops' iterations (it would be {value})"
        shrunk = texts.with_constant(name, home, value, max_file_size)
        pair = relower(shrunk.file, shrunk.modules)
        if isinstance(pair, str):
            return f"at {value}: {pair}"
        # The source too, not only its lowering: the reference runs the source, and what the lowering drops
        # (a slice's `valid_shape`) must not change with the value either.
        source_different, _ = plan_difference(verified[0], pair[0])
        if source_different:
            return f"at {value} the source differs: {source_different}"
        different, loops = plan_difference(verified[1], pair[1])
        if different:
            return f"at {value} the lowering differs: {different}"
        loops = (*loops, *(pair[2] if len(pair) > 2 else ()))  # its callees' loops keep their kinds too
        short = trips_kept(loops)
        if short is None:
            return value, shrunk, (pair[0], pair[1])
        fitted = fitted_value(real, value, loops, unit)
        if fitted is None or fitted <= value:
            return f"at {value}: {short}"
        value = fitted
    return f"at {value}: {short}"


def shrunk_outcome(outcome: SimOutcome, shrunk: Shrunk) -> SimOutcome:
    """*outcome*, simulated at *shrunk*'s values, saying so: `match at VOCAB=13824 (real 152064: trip counts
    only)`, `match at T=32; T=40 with VOCAB=...`, `with VOCAB=... : <difference or reason>`."""
    if outcome.status == "match":
        samples = outcome.message[len("match at "):] if outcome.message.startswith("match at ") else ""
        message = f"match at {samples} with {shrunk.text}" if samples else f"match at {shrunk.text}"
        return replace(outcome, message=message)
    message = f"with {shrunk.text}: {outcome.message}"
    if outcome.status == "skipped" and shrunk.unshrunk and outcome.reason.startswith("the kernel's tensors"):
        message += f"; not shrunk: {shrunk.unshrunk}"
    return replace(outcome, message=message, reason=message if outcome.reason else "")
