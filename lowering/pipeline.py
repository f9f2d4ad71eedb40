"""The pass lists of the two pipelines and the runner that lowers a module kernel by kernel.

Owns: `FIXED` and `LEGACY` (the PyPTO tile stage as pypto-verify mirrors it, ARCHITECTURE.md "Data
flow"), `lower`, `LowerResult`. Input: a Module from the frontend. Output: the lowered Module (kernels
lowered, every other function as given), the `LoweringError`s of the kernels that could not be lowered
(each drops its kernel only), and, on request, the module after every pass.

`FIXED` runs simplify-literal-conditions after lower-pipeline-loops; `LEGACY` leaves it out, because the
old compiler folded tail literals only after its memory passes (its InitMemRef and MemoryReuse saw the
live `if 128 == 0:` tail phis). The four memory passes (init-memref, materialize-semantic-aliases,
memory-reuse, allocate-memory-addr) live in their own modules; until a module exists its entry is
*unavailable*: `lower` skips it, so the result is whatever the last available pass gives.

What is lowered: kernels (functions of kind InCore / AIC / AIV, and any function holding a tile op or a
tensor-level matmul) that carry no MemRef yet. Form 3 functions (already lowered: a tile with a MemRef
or a `tile.alloc`) and glue functions (Orchestration / Opaque with no tile op) pass through untouched.
Each kernel runs through the passes in a Module of its own (one Program, one function) and the results
are reassembled in source order. A pass raising anything but `LoweringError` is a bug and propagates.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, replace
from typing import Final

from pypto_verify.ir import Function, Module, Program

from pypto_verify.lowering import (
    auto_tile_matmul_l0, convert_tensor_to_tile_ops, infer_tile_memory_space, lower_pipeline_loops,
    simplify, simplify_literal_conditions,
)
from pypto_verify.lowering._pass_util import is_kernel, is_lowered
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass

__all__ = ["FIXED", "LEGACY", "LowerResult", "available", "is_kernel", "is_lowered", "lower", "passes"]

_PACKAGE = "pypto_verify.lowering"


_MODULE_OF: dict[str, str] = {}
"""pass name -> module name of the deferred passes"""


def _deferred(module_name: str, name: str, mirrors: str) -> Pass:
    """A pass whose module is imported when it first runs (the memory passes, written separately)."""

    def run(module: Module, options: LowerOptions) -> Module:
        return importlib.import_module(f"{_PACKAGE}.{module_name}").PASS.run(module, options)

    _MODULE_OF[name] = module_name
    return Pass(name, run, mirrors=mirrors)


INIT_MEMREF: Final = _deferred("init_memref", "init-memref", "PyPTO 31 InitMemRef")
MATERIALIZE_SEMANTIC_ALIASES: Final = _deferred("materialize_semantic_aliases", "materialize-semantic-aliases",
                                                "PyPTO 32 MaterializeSemanticAliases")
MEMORY_REUSE: Final = _deferred("memory_reuse", "memory-reuse", "PyPTO 33 MemoryReuse")
ALLOCATE_MEMORY_ADDR: Final = _deferred("allocate_memory_addr", "allocate-memory-addr",
                                        "PyPTO 34 AllocateMemoryAddr")

FIXED: Final[tuple[Pass, ...]] = (
    simplify.PASS,
    convert_tensor_to_tile_ops.PASS,
    auto_tile_matmul_l0.PASS,
    infer_tile_memory_space.PASS,
    lower_pipeline_loops.PASS,
    simplify_literal_conditions.PASS,
    INIT_MEMREF,
    MATERIALIZE_SEMANTIC_ALIASES,
    MEMORY_REUSE,
    ALLOCATE_MEMORY_ADDR,
)
"""The fixed pipeline: literal tail conditions folded before the memory passes."""

LEGACY: Final[tuple[Pass, ...]] = tuple(p for p in FIXED if p is not simplify_literal_conditions.PASS)
"""The old compiler's order: no literal folding before the memory passes."""


def passes(mode: str) -> tuple[Pass, ...]:
    """The pass list of *mode* (`fixed` or `legacy`)."""
    if mode == "fixed":
        return FIXED
    if mode == "legacy":
        return LEGACY
    raise ValueError(f"unknown pipeline {mode!r}; known: fixed, legacy")


def available(pass_: Pass) -> bool:
    """Whether *pass_* can run: its module exists (always true for the passes of this package)."""
    module_name = _MODULE_OF.get(pass_.name)
    if module_name is None:
        return True
    return importlib.util.find_spec(f"{_PACKAGE}.{module_name}") is not None


@dataclass(frozen=True)
class LowerResult:
    """What `lower` made: the module, the errors of the kernels it dropped, and the dumps."""

    module: Module
    errors: tuple[LoweringError, ...]
    """One per dropped kernel, in pass then source order; each carries `function` (the kernel's name)."""
    dumps: tuple[tuple[str, Module], ...]
    """`("00_frontend", m)`, `("01_after_Simplify", m)`, ... when `keep_dumps`; else empty."""


def lower(module: Module, options: LowerOptions, *, keep_dumps: bool = False,
          stop_after: str | None = None) -> LowerResult:
    """Run the pipeline of `options.mode` over every kernel of *module* (module docstring)."""
    pipeline = passes(options.mode)
    if stop_after is not None and stop_after not in {p.name for p in pipeline}:
        raise ValueError(f"unknown pass {stop_after!r} for the {options.mode} pipeline; known: "
                         + ", ".join(p.name for p in pipeline))
    # slots[p][f]: the current version of function f of program p (None once dropped)
    slots: list[list[Function | None]] = [list(program.functions) for program in module.programs]
    lowerable = [[is_kernel(fn) and not is_lowered(fn) for fn in program.functions]
                 for program in module.programs]
    errors: list[LoweringError] = []
    dumps: list[tuple[str, Module]] = [("00_frontend", module)] if keep_dumps else []
    number = 0
    for pass_ in pipeline:
        if available(pass_):
            number += 1
            for p, program in enumerate(module.programs):
                for f in range(len(program.functions)):
                    fn = slots[p][f]
                    if fn is None or not lowerable[p][f]:
                        continue
                    single = Module(module.path, (replace(program, functions=(fn,)),))
                    try:
                        lowered = pass_.run(single, options)
                    except LoweringError as error:
                        error.function = fn.name  # type: ignore[attr-defined]  # which kernel it dropped
                        errors.append(error)
                        slots[p][f] = None
                        continue
                    (only,) = [g for _, g in lowered.functions()]
                    slots[p][f] = only
            if keep_dumps:
                dumps.append((f"{number:02d}_after_{pass_.title}", _assemble(module, slots)))
        if pass_.name == stop_after:
            break
    return LowerResult(_assemble(module, slots), tuple(errors), tuple(dumps))


def _assemble(module: Module, slots: list[list[Function | None]]) -> Module:
    programs: list[Program] = []
    for program, fns in zip(module.programs, slots):
        programs.append(replace(program, functions=tuple(fn for fn in fns if fn is not None)))
    return Module(module.path, tuple(programs))
