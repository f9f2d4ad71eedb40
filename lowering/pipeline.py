"""The pass lists of the two pipelines and the runner that lowers a module kernel by kernel.

Owns: `FIXED` and `LEGACY` (the PyPTO tile stage as pypto-verify mirrors it, ARCHITECTURE.md "Data
flow"), `lower`, `LowerResult`. Input: a Module from the frontend. Output: the lowered Module (kernels
lowered, every other function as given), the `LoweringError`s of the kernels that could not be lowered
(each drops its kernel only), and, on request, the module after every pass.

`FIXED` runs simplify-literal-conditions after lower-pipeline-loops; `LEGACY` leaves it out, because the
old compiler folded tail literals only after its memory passes (its InitMemRef and MemoryReuse saw the
live `if 128 == 0:` tail phis). Every other difference of the legacy pipeline is a named behaviour of
`pass_base.LEGACY_BEHAVIOURS`, which the passes read from `LowerOptions.behaviours`.

What is lowered: kernels (functions of kind InCore / AIC / AIV, and any function holding a tile op or a
tensor-level matmul) that carry no MemRef yet. Form 3 functions (already lowered: a tile with a MemRef
or a `tile.alloc`) and glue functions (Orchestration / Opaque with no tile op) pass through untouched.
Each kernel runs through the passes in a Module of its own (one Program, one function) and the results
are reassembled in source order. A pass raising anything but `LoweringError` is a bug and propagates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pypto_verify.ir import Function, Module, Program, replace

from pypto_verify.lowering import (
    allocate_memory_addr, auto_tile_matmul_l0, convert_tensor_to_tile_ops, infer_tile_memory_space, init_memref,
    lower_pipeline_loops, materialize_semantic_aliases, memory_reuse, simplify, simplify_literal_conditions,
)
from pypto_verify.lowering._pass_util import is_kernel, is_lowered
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass

__all__ = ["FIXED", "LEGACY", "LowerResult", "is_kernel", "is_lowered", "lower", "passes"]

FIXED: Final[tuple[Pass, ...]] = (
    simplify.PASS,
    convert_tensor_to_tile_ops.PASS,
    auto_tile_matmul_l0.PASS,
    infer_tile_memory_space.PASS,
    lower_pipeline_loops.PASS,
    simplify_literal_conditions.PASS,
    init_memref.PASS,
    materialize_semantic_aliases.PASS,
    memory_reuse.PASS,
    allocate_memory_addr.PASS,
)
"""The fixed pipeline: literal tail conditions folded before the memory passes."""

LEGACY: Final[tuple[Pass, ...]] = (
    simplify.PASS,
    convert_tensor_to_tile_ops.PASS,
    auto_tile_matmul_l0.PASS,
    infer_tile_memory_space.PASS,
    lower_pipeline_loops.PASS,
    init_memref.PASS,
    materialize_semantic_aliases.PASS,
    memory_reuse.PASS,
    allocate_memory_addr.PASS,
)
"""The old compiler's order: `FIXED` without simplify-literal-conditions (tail literals still live in
the memory passes)."""


_PIPELINES: Final[dict[str, tuple[Pass, ...]]] = {"fixed": FIXED, "legacy": LEGACY}


def passes(mode: str) -> tuple[Pass, ...]:
    """The pass list of *mode* (`fixed` or `legacy`)."""
    if mode not in _PIPELINES:
        raise ValueError(f"unknown pipeline {mode!r}; known: fixed, legacy")
    return _PIPELINES[mode]


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
    for number, pass_ in enumerate(pipeline, start=1):
        for p, program in enumerate(module.programs):
            for f in range(len(program.functions)):
                fn = slots[p][f]
                if fn is None or not lowerable[p][f]:
                    continue
                single = Module(module.path, (replace(program, functions=(fn,)),))
                try:
                    lowered = pass_.run(single, options)
                except LoweringError as error:
                    error.function = fn.name  # which kernel it dropped
                    errors.append(error)
                    slots[p][f] = None
                    continue
                (only,) = [g for _, g in lowered.functions()]
                slots[p][f] = only
        if keep_dumps:
            dumps.append((f"{number:02d}_after_{pass_.title}", _assemble(module, slots)))
        if pass_.name == stop_after:
            break
    errors += _check_as_given(module, options)
    return LowerResult(_assemble(module, slots), tuple(errors), tuple(dumps))


def _check_as_given(module: Module, options: LowerOptions) -> list[LoweringError]:
    """Form 3 kernels are not lowered, but what the allocator would reject is still an error: a memory
    space whose buffers need more bytes than the target has (PV008, as `allocate_memory_addr` reports
    it: L0A, L0B, UB and L1 as well as L0C). The kernel stays as given."""
    from pypto_verify.lowering.allocate_memory_addr import allocate_memory_addr

    errors: list[LoweringError] = []
    for _, fn in module.functions():
        if not (is_kernel(fn) and is_lowered(fn)):
            continue
        try:
            allocate_memory_addr(fn, options)
        except LoweringError as error:
            error.function = fn.name
            errors.append(error)
    return errors


def _assemble(module: Module, slots: list[list[Function | None]]) -> Module:
    programs: list[Program] = []
    for program, fns in zip(module.programs, slots):
        programs.append(replace(program, functions=tuple(fn for fn in fns if fn is not None)))
    return Module(module.path, tuple(programs))
