"""Reading the test kernels, lowering them, mutating a lowering, and reading `# expect:` markers."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from pypto_verify.ir import Assign, Call, Module, Stmt, map_stmts

KERNELS = Path(__file__).parent / "kernels"
ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
REAL_IR = ROOT.parent / "shared" / "real-ir"


def read(path: Path) -> Module:
    """The parsed module of a kernel file (the test fails on an input error)."""
    from pypto_verify.frontend import read_file

    parsed = read_file(path)
    assert not parsed.errors, [str(e) for e in parsed.errors]
    return parsed.module


def lower_fixed(module: Module) -> Module:
    """*module* through the fixed pipeline (skips when the pipeline is not importable yet)."""
    pipeline = pytest.importorskip("pypto_verify.lowering.pipeline")
    from pypto_verify.lowering.pass_base import LowerOptions

    result = pipeline.lower(module, LowerOptions(mode="fixed"))
    assert not result.errors, [str(e) for e in result.errors]
    return result.module


def kernel(name: str) -> Module:
    return read(KERNELS / name)


def only(module: Module, function: str) -> Module:
    """*module* with one function."""
    programs = tuple(replace(p, functions=tuple(f for f in p.functions if f.name == function))
                     for p in module.programs)
    return replace(module, programs=tuple(p for p in programs if p.functions))


def mutate(module: Module, function: str, change: Callable[[Stmt], Stmt | None]) -> Module:
    """*module* with *change* applied to every statement of *function* (None keeps a statement);
    the test fails when nothing changed."""
    changed = []

    def visit(stmt: Stmt):
        new = change(stmt)
        if new is None or new == stmt:
            return None
        changed.append(stmt)
        return (new,)

    programs = tuple(replace(p, functions=tuple(replace(f, body=map_stmts(f.body, visit)) if f.name == function else f
                                                for f in p.functions)) for p in module.programs)
    assert changed, f"no statement of {function} was mutated"
    return replace(module, programs=programs)


def mad_named(target: str, change: Callable[[Call], Call]) -> Callable[[Stmt], Stmt | None]:
    """A `mutate` change for the MAD (or any call) assigned to *target*."""
    def visit(stmt: Stmt) -> Stmt | None:
        if isinstance(stmt, Assign) and stmt.target.name == target and isinstance(stmt.value, Call):
            return replace(stmt, value=change(stmt.value))
        return None
    return visit


def init_cond_of(module: Module, function: str, target: str):
    """The `init_cond` of the `matmul_acc` assigned to *target*."""
    from pypto_verify import ops
    from pypto_verify.ir import walk_stmts

    for _, fn in module.functions():
        if fn.name == function:
            for stmt in walk_stmts(fn.body):
                if isinstance(stmt, Assign) and stmt.target.name == target:
                    return ops.matmul_parts(stmt.value).init_cond
    raise AssertionError(f"no {target} in {function}")


_EXPECT = re.compile(r"#\s*expect(?:\[([a-z-]+)\])?:\s*([A-Z0-9, ]+)")


def expectations(path: Path, mode: str = "fixed") -> set[tuple[str, int]]:
    """The `(rule, line)` pairs a kernel file's `# expect: PVnnn` comments name; `# expect[MODE]:`
    applies to one mode only (`fixed`: through the fixed lowering; `as-given`: no source)."""
    out = set()
    with path.open() as f:
        for tok in tokenize.generate_tokens(io.StringIO(f.read()).readline):
            if tok.type == tokenize.COMMENT:
                match = _EXPECT.search(tok.string)
                if match and match.group(1) in (None, mode):
                    for rule in match.group(2).replace(",", " ").split():
                        out.add((rule, tok.start[0]))
    return out
