"""Layers point one way (STYLE.md §1.2): a walk over the imports of every module of the installed
`pypto_verify` package (the stage folders included, wherever the install maps them from) fails on a
back-edge.

Ranks, bottom to top: `span` and `ir` (`ir` imports `span` only) → the leaf helpers → the stages → `run` (the chain)
and what runs slices of it (`graph`, `fix`) → `reports` → `cli`. A module imports only modules of its own rank or below; reporters read the run's
records (`run.records`) and nothing else of it.
"""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import pypto_verify

RANKS = {
    "ir": 0, "span": 0,
    "idiom": 1, "rules": 1, "diagnostics": 1, "imports": 1, "target": 1, "ops": 1, "scalar": 1, "printer": 1,
    "__version__": 1, "cache_root": 1, "source": 1, "sizes": 1, "callees": 1, "ranks": 1,
    "frontend": 2, "lowering": 2, "facts": 2, "engines": 2, "smt": 2, "sim": 2, "emit": 2, "census": 2,
    "findings": 2, "reference": 2, "reference_ranks": 2, "dynamic": 2, "dynamic_ranks": 2, "datalog": 2,
    "codemod": 1,
    "run": 3, "graph": 3, "fix": 3,
    "reports": 4,
    "cli": 5, "__main__": 5,
}


def _imports(name: str, origin: str) -> set[str]:
    """Every `pypto_verify...` module *name* imports, at any depth of its code (lazy imports included)."""
    tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
    package = name if origin.endswith("__init__.py") else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m.startswith("pypto_verify.")}


def _modules() -> dict[str, str]:
    """name -> source file of every module reachable from `pypto_verify` (its folders and its imports)."""
    seen: dict[str, str] = {}
    todo = ["pypto_verify"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:  # `from pypto_verify.ir import MemSpace`: a name, not a module
            continue
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue  # an attribute imported from a module (`from pypto_verify.ir import Span`)
        seen[name] = spec.origin
        if spec.submodule_search_locations:
            todo += [f"{name}.{m.name}" for m in pkgutil.iter_modules(spec.submodule_search_locations)]
        todo += sorted(_imports(name, spec.origin))
    return seen


MODULES = _modules()


def _layer(name: str) -> str:
    return name.split(".")[1]


def test_the_walk_sees_every_stage_folder() -> None:
    layers = {_layer(n) for n in MODULES if n != "pypto_verify"}
    assert {"lowering", "smt", "sim", "run", "reports", "cli", "frontend", "engines"} <= layers
    assert layers <= set(RANKS), f"a layer without a rank: {sorted(layers - set(RANKS))}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "pypto_verify"))
def test_no_module_imports_a_layer_above_its_own(name: str) -> None:
    mine = RANKS[_layer(name)]
    above = sorted(m for m in _imports(name, MODULES[name])
                   if m in MODULES and RANKS[_layer(m)] > mine)
    assert not above, f"{name} (rank {mine}) imports {above}"


def test_ir_imports_nothing_of_ours_but_its_spans() -> None:
    assert _imports("pypto_verify.ir", MODULES["pypto_verify.ir"]) <= {
        "pypto_verify.span", "pypto_verify.span.NO_SPAN", "pypto_verify.span.Span", "pypto_verify.span.display_name",
        "pypto_verify.span.pickled_as_fields", "pypto_verify.span.slotted_init", "pypto_verify.span.generated_init"}
    assert _imports("pypto_verify.span", MODULES["pypto_verify.span"]) == set()


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("pypto_verify.reports")))
def test_reporters_read_only_the_run_records(name: str) -> None:
    run_modules = {m for m in _imports(name, MODULES[name]) if m in MODULES and _layer(m) == "run"}
    assert run_modules <= {"pypto_verify.run.records"}, f"{name} imports {sorted(run_modules)}"
