"""PTO-AS parser and interpreter on one byte arena per memory space (PV201, PV202).

Public API: `parse_pto(text) -> Module`, `simulate(text_or_module, function, args, *, target=None,
strict_undef=False) -> {arg name: final GM array}`, `simulate_ranks(...)` (a multi-rank run over shared windows,
`comm`), `store_line(...)` (the PTO line of the last store
to one GM element) and `SimError` (`.line`, `.rule`: "PV202" for an
illegal program, "" for a parse error). Modules: `parser` (text -> AST), `arena` (byte arenas and
tile views), `dtypes` (encodings and rounding), `interpreter` (execution and the PV202 checks).
"""

from __future__ import annotations

import numpy as np

from .errors import SimError
from .interpreter import block_dim, last_store_line, run_function, run_ranks, runs_blocks
from .parser import Module, parse_pto

__all__ = ["Module", "SimError", "block_dim", "parse_pto", "runs_blocks", "simulate", "simulate_ranks", "store_line"]


def simulate(text_or_module: str | Module, function: str, args: dict[str, object], *,
             target: str | None = None, strict_undef: bool = False,
             blocks_in_order: bool = False) -> dict[str, np.ndarray]:
    """Run @*function* on *args* (GM arrays / ints by argument name without `%`); final GM arrays.

    *target* defaults to the module's `pto.target_arch` (and to "a2a3" when it has none);
    *strict_undef* rejects (PV202) any read of acc bytes never written since the start of the run;
    *blocks_in_order* runs a launch's blocks first to last instead of last to first (whether a difference
    is the order of the blocks).
    """
    module = parse_pto(text_or_module) if isinstance(text_or_module, str) else text_or_module
    chosen = target or module.target_arch or "a2a3"
    return run_function(module.function(function), args, chosen, strict_undef, blocks_in_order)


def simulate_ranks(text_or_module: str | Module, function: str, args: list[dict[str, object]],
                   windows: frozenset[str], *, target: str | None = None, in_order: bool = False
                   ) -> list[dict[str, np.ndarray]]:
    """Run @*function* once per rank of a run of `len(args)` ranks (rank r on `args[r]`), the arguments named in
    *windows* one storage per rank that `pto.comm` ops reach (`comm.py`); the final GM arrays of each rank. The
    ranks start last to first, or first to last with *in_order*; a deadlock is a PV202 `SimError`."""
    module = parse_pto(text_or_module) if isinstance(text_or_module, str) else text_or_module
    return run_ranks(module.function(function), args, target or module.target_arch or "a2a3", windows, in_order)


def store_line(text_or_module: str | Module, function: str, args: dict[str, object], arg: str, element: int, *,
               target: str | None = None) -> int | None:
    """The PTO line of the last `pto.tstore` that wrote element *element* (row-major) of argument *arg*
    when @*function* runs on *args* (None: no store wrote it); the producer of a differing element."""
    module = parse_pto(text_or_module) if isinstance(text_or_module, str) else text_or_module
    return last_store_line(module.function(function), args, target or module.target_arch or "a2a3", arg, element)
