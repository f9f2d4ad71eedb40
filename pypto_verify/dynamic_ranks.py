"""PV201 / PV202 for a multi-rank kernel (`pypto.language.distributed`; issue 14, item 2).

Owns: `simulate_ranks_kernel` — the emitted PTO simulated once per rank over shared windows (`sim.simulate_ranks`)
against the source's reference run the same way (`reference_ranks.run_reference_ranks`), every rank's tensors
compared (`dynamic.first_difference`).

Conventions (beyond `dynamic`'s):
- The kernel's distributed ops are those of its own body and of every function it calls, spliced
  (`reference_ranks.reached_calls`): both sides run the same callees on every rank.
- The world size is the extent of the kernel's loops over its peers (`reference_ranks.world_size`); the rank
  parameter the scalar the kernel compares with a peer (`reference_ranks.rank_param`), bound to r on rank r (the
  host launcher passes the `r` of `for r in pl.range(pld.world_size())`). Unknown: skipped with the reason.
- Rank r's tensors are drawn as `dynamic.make_inputs` draws them with seed `seed + r` (so the ranks differ); its
  window parameters start zero-filled (PyPTO's window buffers are). The other scalars take one sample value, the
  same on every rank: the first of `dynamic.scalar_candidates` at which the reference keeps every window in range
  and does not deadlock (a wait for credits an earlier launch would have left is not a run of the kernel).
- The reference runs the ranks first to last, the simulator last to first; a mismatch that goes away when the
  simulator runs them first to last is reported as a race between ranks (a missing wait), unless the kernel reads
  tables at run time (their sample values need not be consistent across ranks: skipped). A deadlock of the
  simulated PTO is a PV202 naming every waiting rank.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pypto_verify.callees import Callee, block_launched
from pypto_verify.dynamic import (
    MAX_INPUT_ELEMENTS, PV201, PV202, SimOutcome, _drawn, _filled, _input_elements, _match_params, _sim_input,
    _skipped, describe, first_difference, on_grid, read_tensors, scalar_candidates,
)
from pypto_verify.emit import EmitError, emit_function, emit_module
from pypto_verify.ir import Function, ScalarType, TensorType
from pypto_verify.reference import ReferenceError, ReferenceResult, WindowError
from pypto_verify.reference_ranks import (
    RankDeadlock, rank_param, reached_calls, run_reference_ranks, tabled_peer_write, window_params,
    world_size,
)
from pypto_verify.sizes import dynamic_names


def is_multi_rank(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> bool:
    """Whether *fn* uses a distributed op, itself or in a function it calls (its simulation runs every rank)."""
    return bool(reached_calls(fn, callees))


def simulate_ranks_kernel(source_fn: Function, lowered_fn: Function, *, seed: int = 0, target: str = "a2a3",
                          scalars: Mapping[str, int] | None = None,
                          callees: Mapping[str, Callee | str] | None = None) -> SimOutcome:
    """PV201 for a multi-rank kernel (module docstring)."""
    from pypto_verify.sim import SimError, simulate_ranks
    from pypto_verify.sim.errors import LIMIT

    world = world_size(source_fn, callees)
    if isinstance(world, str):
        return _skipped(f"the number of ranks is not known: {world}")
    rank = rank_param(source_fn, callees)
    if rank is None:
        return _skipped("no single scalar parameter is compared with the peers: the rank each rank runs as is not "
                        "known")
    if dynamic_names(source_fn) or block_launched(source_fn, callees):
        return _skipped("a multi-rank kernel with `pl.dynamic` sizes, or whose launcher gives its block index, is "
                        "not simulated (its ranks run at one sample, which is not chosen)")
    size = _input_elements(source_fn) * world
    if size > MAX_INPUT_ELEMENTS:
        return _skipped(f"the tensors of the kernel's {world} ranks hold more elements than the simulation's limit "
                        f"of {MAX_INPUT_ELEMENTS} ({size})")
    tabled = tabled_peer_write(source_fn, callees)
    if tabled is not None:
        return _skipped(tabled)
    windows = window_params(source_fn, callees)
    try:
        emitted = emit_function(lowered_fn, target, callees=callees)
    except EmitError as error:
        return _skipped(f"emit: {error.message}")
    chosen = _reference(source_fn, seed, world, rank, windows, dict(scalars or {}), callees)
    if isinstance(chosen, SimOutcome):
        return chosen
    values, inputs, references = chosen
    mapping = _match_params(source_fn, lowered_fn)
    args: list[dict[str, object]] = []
    outputs: dict[str, tuple[str, object]] = {}
    dtypes = {p.name: p.type.dtype for p in source_fn.params if isinstance(p.type, TensorType)}
    window_args = frozenset(b.name for b in emitted.args if mapping.get(b.param, b.param) in windows)
    for r in range(world):
        rank_args: dict[str, object] = {}
        for binding in emitted.args:
            name = mapping.get(binding.param, binding.param)
            if binding.kind == "workspace":  # a tensor the kernel (or a callee) creates: zero-filled on each rank
                is_float = any(f"<{f}>" in binding.type for f in ("f32", "f16", "bf16"))
                rank_args[binding.name] = np.zeros(binding.shape, dtype=np.float32 if is_float else np.int64)
            elif binding.kind == "tensor" and name in windows:
                zero = references[r].outputs[name]
                rank_args[binding.name] = np.zeros(zero.shape, np.float32 if dtypes[name].is_float else np.int64)
                outputs[name] = (binding.name, dtypes[name])
            elif binding.kind == "tensor" and name in inputs[r]:
                rank_args[binding.name] = _sim_input(inputs[r][name], dtypes.get(name))
                outputs[name] = (binding.name, dtypes[name])
            elif binding.kind == "read" and binding.type == "f32" and name in inputs[r]:
                rank_args[binding.name] = float(np.asarray(inputs[r][name]).flat[0])  # the filled value
            elif binding.kind in ("scalar", "read") and name in values[r]:
                rank_args[binding.name] = int(values[r][name])
            else:
                return _skipped(f"lowered parameter `{binding.param}` ({binding.kind}) has no source value")
        args.append(rank_args)
    text = emit_module([emitted], target)
    try:
        finals = simulate_ranks(text, emitted.name, args, window_args, target=target)
    except SimError as error:
        if error.rule == LIMIT:
            return _skipped(f"simulator: {error}")
        if error.rule != PV202:
            raise  # our own emitter wrote text outside the subset: fail fast (STYLE.md §1)
        spans = {1 + line: span for line, span in emitted.spans}  # emit_module puts its header line above
        at = spans.get(error.line) if error.line is not None else None
        if at is None:
            return SimOutcome("mismatch", f"PV202 the simulator rejected the PTO at ranks={world}: {error}", None,
                              "", PV202, values[0])
        return SimOutcome("mismatch", f"PV202 the simulator rejected the PTO emitted for line {at.line} at "
                                      f"ranks={world}: {error.message} (PTO line {error.line})", None, "", PV202,
                          values[0], at)
    outcome = _compare(finals, args, outputs, references, inputs, world, values[0])
    if outcome.status == "mismatch":
        in_order = simulate_ranks(text, emitted.name, args, window_args, target=target, in_order=True)
        if _compare(in_order, args, outputs, references, inputs, world, values[0]).status == "match":
            tables = read_tensors(source_fn, callees)
            if tables:  # which rank waits for which may follow the tables: sample values need not be consistent
                shown = ", ".join(f"`{t}`" for t in tables)
                return _skipped(f"at ranks={world} the result depends on the order the ranks run in, and the kernel "
                                f"reads {shown} at run time, which another kernel fills: with sample values that need "
                                "not be consistent across ranks (who owns what, who waits for whom) a race is no "
                                "finding")
            return SimOutcome("mismatch", f"{outcome.message}; the result depends on the order the ranks run in (a "
                                          "race between ranks): run first to last, as the reference runs them, "
                                          "they match", outcome.first_difference, "", PV201, values[0])
    return outcome


def _reference(fn: Function, seed: int, world: int, rank: str, windows: frozenset[str], given: dict[str, int],
               callees: Mapping[str, Callee | str] | None):
    """The scalar values, inputs and reference results of each rank (module docstring), or a skip."""
    reads = read_tensors(fn, callees)
    names = [p.name for p in fn.params if isinstance(p.type, ScalarType) and p.name != rank] + reads
    missing = [n for n in names if n not in given]
    drawn = [{n: a for n, a in _drawn(fn, seed + r).items() if n not in windows} for r in range(world)]
    last = ""
    for candidate in (scalar_candidates(fn) if missing else [0]):
        values = [{**{n: given.get(n, candidate) for n in names}, rank: r} for r in range(world)]
        inputs = [_filled(fn, drawn[r], {n: values[r][n] for n in reads}) for r in range(world)]
        given_scalars = [{n: v for n, v in values[r].items() if n not in reads} for r in range(world)]
        try:
            results = run_reference_ranks(fn, inputs, given_scalars, windows, grid=on_grid(fn), callees=callees)
        except RankDeadlock as error:
            if not missing:  # no sample value is in play: the kernel as written deadlocks
                return SimOutcome("mismatch", f"PV202 the kernel deadlocks at ranks={world} (the reference's own "
                                              f"run): {error}", None, "", PV202, values[0])
            last = str(error)
            continue
        except WindowError as error:
            last = str(error)
            if not missing:
                return _skipped(f"reference: {error}")
            continue
        except ReferenceError as error:
            return _skipped(f"reference: {error}")
        return values, inputs, results
    return _skipped(f"reference: no sample value runs every rank to its end with every window in range ({last})")


def _compare(finals: list[dict[str, np.ndarray]], args: list[dict[str, object]],
             outputs: Mapping[str, tuple[str, object]], references: list[ReferenceResult],
             inputs: list[dict[str, np.ndarray]], world: int, scalars: dict[str, int]) -> SimOutcome:
    for r, (final, reference) in enumerate(zip(finals, references)):
        for name, want in reference.outputs.items():
            if name not in outputs and name not in final:
                continue
            arg, dtype = outputs.get(name, (name, None))
            got = final.get(arg)
            if got is None:
                continue
            if got is args[r].get(arg):
                if name not in reference.written:
                    continue
                got = inputs[r].get(name, got)
            diff = first_difference(f"{name}@rank{r}", dtype, got, want, reference.max_k,  # type: ignore[arg-type]
                                    reference.sigma.get(name))
            if diff is not None:
                return SimOutcome("mismatch", f"at ranks={world}: {describe(diff)}", diff, "", PV201, scalars)
    return SimOutcome("match", f"match at ranks={world}", None, "", PV201, scalars)
