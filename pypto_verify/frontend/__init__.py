"""The frontend: a kernel file (any of the three forms of KERNEL_LANGUAGE.md) → `ir.Module`.

Owns: the public API — `read_file`, `read_source`, `ParseResult`, `kernels`, `is_lowered`. The file is
read with `ast` only, never imported or executed; module constants (and constants imported from
sibling modules) are evaluated statically (`constants.py`), Form 1 rebinding becomes SSA (`ssa.py`),
annotations are read and checked (`types.py`), the walk itself is `reader.py`. Rule: PV000 — every
input problem is one `InputError`; a function with one is left out, the rest of the file is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pypto_verify import ir, ops
from pypto_verify.diagnostics import MAX_FILE_SIZE, InputError, UnreadableSource, read_source_bytes
from pypto_verify.frontend.reader import ModuleReader, parse_tree

__all__ = ["ParseResult", "read_file", "read_source", "kernels", "is_lowered"]


@dataclass(frozen=True)
class ParseResult:
    module: ir.Module
    """Every function that parsed (a function with an input error is left out)."""
    errors: tuple[InputError, ...]
    """One per problem, in source order."""
    warnings: tuple[InputError, ...]
    """E.g. an unknown op made opaque, a runtime scalar made symbolic."""


def read_file(path: str | Path, max_size: int = MAX_FILE_SIZE) -> ParseResult:
    """Read the kernel file at *path* (a regular file of at most *max_size* bytes); never raises for bad
    input (an unreadable file is one error)."""
    name = str(path)
    try:
        data = read_source_bytes(path, max_size)
    except UnreadableSource as error:
        return _failed(name, error.what, error.why)
    if b"\x00" in data:
        return _failed(name, "binary file", "it contains NUL bytes; a kernel file is Python source text")
    try:
        text = data.decode("utf-8-sig")  # a UTF-8 BOM is accepted, as Python accepts it
    except UnicodeDecodeError as error:
        return _failed(name, "binary file", f"it is not UTF-8 text (byte {error.start})")
    return read_source(text, name, max_size)


def read_source(text: str, path: str = "<string>", max_size: int = MAX_FILE_SIZE,
                modules: Mapping[Path, str] | None = None) -> ParseResult:
    """Read kernel source *text* (reported as *path*; siblings resolve relative to its directory, a module
    of *modules* read from the text given for it instead of its file)."""
    tree, error = parse_tree(path, text)
    if tree is None:
        assert error is not None
        return ParseResult(ir.Module(path, ()), (error,), ())
    if not tree.body and Path(path).name != "__init__.py":
        return _failed(path, "empty file", "it holds no statements; a kernel file defines `@pl.program` classes "
                                           "or `@pl.jit` / `@pl.function` functions")
    result = ModuleReader(path, text, tree, max_size, modules).read()
    errors = tuple(sorted(result.errors, key=_order))
    warnings = tuple(sorted(result.warnings, key=_order))
    return ParseResult(result.module, errors, warnings)


def kernels(module: ir.Module) -> list[tuple[ir.Program, ir.Function]]:
    """The functions that are kernels: kind InCore / AIC / AIV, or any function holding a tile op or a
    tensor-level matmul (docs/ir-conventions.md, "Functions and programs")."""
    return [(program, fn) for program, fn in module.functions() if ops.is_kernel(fn)]


is_lowered = ops.is_lowered
"""True when a function carries MemRefs or `tile.alloc` roots (Form 3): `ops.is_lowered`."""


def _failed(path: str, what: str, why: str) -> ParseResult:
    return ParseResult(ir.Module(path, ()), (InputError(ir.Span(path, 1, 1), what, why),), ())


def _order(error: InputError) -> tuple[int, int]:
    return (error.span.line, error.span.col)
