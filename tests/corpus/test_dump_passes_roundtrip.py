"""Every corpus kernel's per-pass dumps (`lower --dump-passes`) print and parse back without error to an
equal IR, and printing each is a fixed point.

The printed form of a multi-value yield (`a, b = pl.yield_(x, y)`) carries no types: its targets take
the yielded values' types (KERNEL_LANGUAGE.md, Form 3), or the type a bare annotation above it declares
where they differ (docs/ir-conventions.md). So the comparison drops those return types, after checking
that each one is exactly the type the reader derives for that name again.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pypto_verify import ir
from pypto_verify.frontend import read_file, read_source
from pypto_verify.lowering.pass_base import LowerOptions
from pypto_verify.lowering.pipeline import lower
from pypto_verify.printer import print_module

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
FILES = sorted(p for p in CORPUS.glob("*.py") if p.name != "model_config.py")


def _untyped_multi_yields(module: ir.Module) -> tuple[ir.Module, dict[str, ir.Type]]:
    """*module* with the return types of multi-value loops and ifs dropped, and the dropped types by name."""
    dropped: dict[str, ir.Type] = {}

    def strip(stmt: ir.Stmt):
        if isinstance(stmt, (ir.For, ir.If)) and len(stmt.return_vars) > 1:
            for var, t in zip(stmt.return_vars, stmt.return_types):
                if t is not None:
                    dropped[var.name] = t
            return (replace(stmt, return_types=(None,) * len(stmt.return_vars)),)
        return None

    stripped = ir.map_functions(module, lambda fn: replace(fn, body=ir.map_stmts(fn.body, strip)))
    return stripped, dropped


def _roundtrip_problem(path: Path, module: ir.Module) -> str | None:
    """Why printing *module* and reading it back does not give it again (None when it does)."""
    text = print_module(module)
    again = read_source(text, str(path))
    if again.errors:
        return f"does not parse back: {again.errors[0]}"
    if print_module(again.module) != text:
        return "printing is not a fixed point"
    expected, dropped = _untyped_multi_yields(module)
    actual, _ = _untyped_multi_yields(again.module)
    if actual != expected:
        return "structurally different"
    derived = {n: t for _, fn in again.module.functions() for n, t in ir.type_env(fn).items()}
    if {n: derived.get(n) for n in dropped} != dropped:
        return "a multi-value return var's type is not the yielded value's"
    return None


def _dumps(path: Path):
    parsed = read_file(path)
    assert not parsed.errors
    result = lower(parsed.module, LowerOptions(mode="fixed"), keep_dumps=True)
    assert not result.errors
    return result


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_pass_dump_parses_back_and_round_trips_structurally(path: Path) -> None:
    # A dump equal to the one before it (a pass that changed nothing here) has that one's answer.
    problems, before = [], None
    for name, module in _dumps(path).dumps:
        if module != before and (why := _roundtrip_problem(path, module)) is not None:
            problems.append((name, why))
        before = module
    assert problems == []
