"""The dynamic check PV201: simulate the emitted PTO and compare it with the source's reference.

Owns: the comparison of L0C_RULES.md "Dynamic check" — seeded inputs, sample values for runtime
scalars, running `emit.pto` + `sim` against `pypto_verify.reference`, and the tolerance.
Input: a source kernel (Form 1 / Form 2) and its lowered function. Output: a `SimOutcome`
(`match` / `mismatch` / `skipped`, with the first differing element and the store that wrote it). PV202 (the simulator
rejecting the PTO as illegal) is reported as a `mismatch` with `rule == "PV202"`, at the source
statement the rejected PTO line was emitted for (`EmittedFunction.spans`) when it has one.
It checks one kernel; the chain (`run/chain.py`, SIMULATE) runs it on every kernel of a run.

Conventions:
- Inputs: one array per tensor parameter, shapes and dtypes from the *source* kernel's parameters,
  drawn from `numpy.random.default_rng(seed)` in parameter order, one uniform byte per element (the
  little-endian bytes of its raw 64-bit words: the same on every machine, a tenth of the cost of a normal
  draw).
  Floats are the odd multiples of 2**-8 in (-1, 1), `(2 u + 1) / 256`: 256 values, never zero,
  each exact in bf16, f16 and f32, so every input is on its dtype's grid; a product of two is a
  multiple of 2**-16, so every partial sum of a matmul below 256 in magnitude is exact in f32, in
  whatever order it is summed: the reference's f64 sum and the simulator's f32 one then agree
  exactly, and a lost partial sum, a wrong window or a missed reset moves an element by a sum of
  such products, not by a rounding. Integers are uniform in [-8, 7] (the byte's high nibble), held
  in the dtype's own width (int8 / int32 tensors as int8 / int32 arrays, the others as int64); `UINT8`
  takes every code [0, 255] (the byte itself, held as uint8), the other unsigned dtypes [0, 15] (its high
  nibble).
  Output tensors get random contents too, so an element the kernel never writes, or an atomic add,
  is compared as well. A tensor that neither the simulated program stores to nor the reference
  writes holds its input on both sides and is not compared.
- Runtime scalars (scalar parameters, and tensors read by `tensor.read`) get one sample value,
  the same for all of them: the first candidate for which the reference runs with every slice in
  range. Candidates, in order: each distinct tensor dimension (largest first), its half and its
  quarter, then 16, 1 and 0. A tensor that `tensor.read` reads is filled with that value
  everywhere (so every read returns it, wherever it reads; the emitter turns each read tensor
  into one scalar argument, `f32` for a float tensor, bound to the filled element). `scalars=` overrides by parameter name.
  A GM scratch tensor whose shape names a scalar parameter is emitted once the values are chosen, at them.
- `pl.dynamic` sizes: a kernel whose tensor parameters have them is checked at each sample binding of
  `pypto_verify.sizes` (a user's `--sim-bind` value replacing a size's samples), the kernel and its
  lowering both with the sizes made constants; a sample at which the reference leaves a window out of
  range, or the PTO cannot be emitted, is not simulated and is named with the reason. The outcome names
  the samples (`match at T=32; T=40`); the first mismatch ends the check, naming its binding.
- Tolerance: `|sim - ref| <= atol + rtol * |ref| + 6 * sigma`, with rtol 1e-4 (fp32) or 1e-2
  (bf16 / fp16), `atol = 1e-6 * max(K, 16)` (fp32) or `1e-3 + 1e-6 * max(K, 16)` (bf16 / fp16), K
  the longest reduction the reference accumulated into a stored value, and sigma the reference's
  deviation of the element (`reference.Value.sigma`): how far a faithful f32 implementation may
  stray from the reference's own f32 arithmetic — the reordering of every matmul's K additions
  (`2**-24 * sqrt(2 K) * (|A| @ |B|)`, so a result that cancels to near zero is judged against the
  size of its terms, not of itself), carried to first order through every op, plus half a spacing
  of the dtype at each rounding of an uncertain value (a bf16 intermediate may round to the other
  neighbour). Integers are exact unless they come from an uncertain float. NaN on one side only is
  a difference; NaN on both sides, or the same infinity, is not. `check` runs the reference without
  the deviations first (they cost as much as its values): every element within tolerance with sigma
  0 is within it with any sigma, so that is a match; only a kernel with a difference runs the
  reference again with them, and is judged by that run (`PreparedRun.with_deviations`).
- A launch (docs/pto-subset.md "Launches") runs its blocks last to first, the reference first to last; a
  launch that mismatches is simulated again first to last, and when that matches the mismatch says that
  the result depends on the order of the blocks (a race between blocks).
- A source given as Form 3 (lowered IR, no source) is `skipped` ("no source to compare").
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import numpy as np

from pypto_verify import ops, rules
from pypto_verify.ir import (
    Call, DType, Function, ScalarType, Span, TensorType, display_name,
    var_like, walk_exprs, walk_stmts, stmt_exprs,
)
from pypto_verify.lowering.pipeline import is_lowered
from pypto_verify.callees import Callee, CallError, block_launched, call_arguments
from pypto_verify.sizes import (
    BLOCKS, bind_sizes, dynamic_names, launch_blocks, module_value_samples, module_values, sample_bindings,
)
from pypto_verify.emit import EmitError, EmittedFunction, NeedsScalars, emit_function, emit_module
from pypto_verify.reference import (
    DEVIATIONS, GRID, ReferenceError, ReferenceResult, WindowError, run_reference, to_dtype,
)

PV201 = rules.SIM_MISMATCH.id
PV202 = rules.ILLEGAL_PTO.id

RTOL = {DType.FP32: 1e-4, DType.BF16: 1e-2, DType.FP16: 1e-2}
ATOL_PER_K = 1e-6
ATOL_LOW_PRECISION = 1e-3
INT_RANGE = (-8, 7)
"""The integer inputs' range (inclusive): `[-8, 7]`, the high nibble of a byte."""
FLOAT_STEP = 2.0 ** -8
"""Float inputs are the odd multiples of this in (-1, 1) (module docstring)."""
_INT_HOLDER = {DType.INT8: np.int8, DType.INT32: np.int32, DType.UINT8: np.uint8}
_UNSIGNED = frozenset({DType.UINT8, DType.UINT16, DType.UINT32, DType.UINT64})
"""Unsigned dtypes: `UINT8` takes every code (the high bit set on half of them, as packed codes are), a wider
one the byte's high nibble [0, 15]."""


@dataclass(frozen=True, slots=True)
class SimOutcome:
    """The verdict of the dynamic check for one kernel."""

    status: str
    """`match`, `mismatch` or `skipped`."""
    message: str
    """One line for the report: the first difference, or why it was skipped."""
    first_difference: dict | None = None
    """`{"tensor", "index", "sim", "reference", "magnitude", "count", "total", "producer"}` on a mismatch
    (`producer`: the source statement whose store wrote the simulated element, or that none did)."""
    reason: str = ""
    """Why the check was skipped (empty otherwise)."""
    rule: str = PV201
    """`PV201`, or `PV202` when the simulator rejected the PTO as illegal."""
    scalars: dict[str, int] = field(default_factory=dict)
    """The sample values given to runtime scalars."""
    span: Span | None = None
    """The source statement a PV202 rejected (None: the kernel as a whole)."""
    sizes: dict[str, int] = field(default_factory=dict)
    """The values the kernel's `pl.dynamic` sizes were bound to (a mismatch: the binding it was found at)."""


def _skipped(reason: str) -> SimOutcome:
    return SimOutcome("skipped", reason, None, reason)


# ---------------------------------------------------------------------------------------------- forms


def read_tensors(fn: Function, callees: Mapping[str, Callee | str] | None = None, depth: int = 0) -> list[str]:
    """The tensor parameters *fn* reads runtime scalars from (`tensor.read`), in first-read order: by itself, or by a
    function of *callees* it calls, which reads the parameter the call passes (the spliced callee's reads are the
    kernel's)."""
    params = {p.name for p in fn.params if isinstance(p.type, TensorType)}
    found: list[str] = []
    for stmt in walk_stmts(fn.body):
        for expr in stmt_exprs(stmt):
            for x in walk_exprs(expr):
                if not isinstance(x, Call):
                    continue
                named: list[str] = []
                if x.op == ops.T_READ and x.args and (v := var_like(x.args[0])) is not None:
                    named.append(v.name)
                callee = (callees or {}).get(x.op)
                if isinstance(callee, Callee) and depth < _MAX_CALL_DEPTH:
                    try:
                        given = call_arguments(callee.source, x)
                    except CallError:
                        given = {}
                    for inner in read_tensors(callee.source, callee.callees, depth + 1):
                        v = var_like(given[inner]) if inner in given else None
                        if v is not None:
                            named.append(v.name)
                found.extend(n for n in named if n in params and n not in found)
    return found


_MAX_CALL_DEPTH = 16
"""How deep the reads of called functions are followed (as deep as `callees` follows a call chain)."""


# ---------------------------------------------------------------------------------------------- inputs


def make_inputs(fn: Function, seed: int = 0, fill: Mapping[str, int] | None = None
                ) -> dict[str, np.ndarray]:
    """Seeded inputs for every tensor parameter of *fn* (see the module docstring); tensors named
    in *fill* are filled with that value instead."""
    return _filled(fn, _drawn(fn, seed), fill or {})


def _drawn(fn: Function, seed: int) -> dict[str, np.ndarray]:
    """The seeded draw of every tensor parameter of *fn*, before any fill (a fill replaces a
    tensor after its draw, so the draws of the others never depend on it)."""
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray] = {}
    for p in fn.params:
        if not isinstance(p.type, TensorType):
            continue
        shape = ops.static_shape(p.type.shape)
        if shape is None:
            raise ReferenceError(f"tensor parameter `{p.name}` has a symbolic shape")
        dtype = p.type.dtype
        drawn = _random_bytes(rng, shape)
        if dtype.is_float:
            data = np.empty(shape, np.float32)
            np.multiply(drawn, np.float32(2 * FLOAT_STEP), out=data, dtype=np.float32)  # 2u / 256, exact
            data += np.float32(FLOAT_STEP)
            if dtype not in (DType.FP32, DType.BF16, DType.FP16):
                data = to_dtype(data, dtype)  # a dtype the reference does not round to: its error
        else:
            # Held in the dtype's own width (the simulator then binds it without a conversion).
            holder = _INT_HOLDER.get(dtype, np.int64)
            if dtype is DType.UINT8:
                data = drawn.view(np.uint8)
            elif dtype in _UNSIGNED:
                data = (drawn.view(np.uint8) >> 4).astype(holder)
            else:
                drawn >>= 4  # the high nibble: uniform in [-8, 7]
                data = drawn if holder is np.int8 else drawn.astype(holder)
            if dtype is DType.BOOL:
                data = (data > 0).astype(np.int64)
        inputs[p.name] = data
    return inputs


def on_grid(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> frozenset[str]:
    """The float tensor parameters of *fn* whose inputs lie on the reference's `GRID` (every drawn one:
    a tensor `tensor.read` reads, itself or through *callees*, is filled with a sample value instead)."""
    return _grid_of(fn, read_tensors(fn, callees))


def _grid_of(fn: Function, reads: list[str]) -> frozenset[str]:
    """`on_grid`, given the tensors *fn* reads scalars from (`read_tensors`)."""
    assert FLOAT_STEP == GRID  # one grid: the draw's is the one the reference sums exactly
    return frozenset(p.name for p in fn.params
                     if isinstance(p.type, TensorType) and p.type.dtype.is_float and p.name not in reads)


def _random_bytes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Uniform int8 values of *shape*: the little-endian bytes of the bit generator's raw 64-bit words (the
    same on every machine; an eighth of a draw per element, where `Generator.integers` takes one)."""
    count = int(np.prod(shape, dtype=np.int64))
    words = rng.bit_generator.random_raw((count + 7) // 8).astype("<u8", copy=False)
    return words.view(np.int8)[:count].reshape(shape)


def _filled(fn: Function, drawn: Mapping[str, np.ndarray], fill: Mapping[str, int]) -> dict[str, np.ndarray]:
    """*drawn* with the tensors named in *fill* filled with their value (the others shared)."""
    inputs = dict(drawn)
    for p in fn.params:
        if isinstance(p.type, TensorType) and p.name in fill:
            dtype = p.type.dtype
            data = np.full(inputs[p.name].shape, fill[p.name], dtype=np.float32 if dtype.is_float else np.int64)
            if dtype.is_float:
                data = to_dtype(data, dtype)  # on the dtype's grid, as every float input is
            inputs[p.name] = data
    return inputs


def scalar_names(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> list[str]:
    """Every runtime scalar of *fn*: its scalar parameters, then the tensors it (or a function of *callees* it
    calls) reads scalars from."""
    return _names_of(fn, read_tensors(fn, callees))


def _names_of(fn: Function, reads: list[str]) -> list[str]:
    """`scalar_names`, given the tensors *fn* reads scalars from (`read_tensors`)."""
    return [p.name for p in fn.params if isinstance(p.type, ScalarType)] + reads


def scalar_candidates(fn: Function) -> list[int]:
    """Sample values to try for runtime scalars, in order (module docstring)."""
    dims = sorted({d for p in fn.params if isinstance(p.type, TensorType)
                   for d in (ops.static_shape(p.type.shape) or ()) if d > 1}, reverse=True)
    out: list[int] = []
    for d in dims:
        for value in (d, d // 2, d // 4):
            if value > 0 and value not in out:
                out.append(value)
    for value in (16, 1, 0):
        if value not in out:
            out.append(value)
    return out


def _choose_scalars(fn: Function, seed: int, given: Mapping[str, int], deviations: bool = True,
                    callees: Mapping[str, Callee | str] | None = None, blocks: int | None = None):
    """The scalar values, the inputs and the reference result for *fn* (with its *deviations*, or not; its calls of
    *callees* run in place, over *blocks* when its launcher gives its block index)."""
    read = read_tensors(fn, callees)  # one walk of the kernel (and its callees) for the names, reads and grid
    names = _names_of(fn, read)
    reads, grid = set(read), _grid_of(fn, read)
    missing = [n for n in names if n not in given]
    candidates = scalar_candidates(fn) if missing else [0]  # one pass; the value is unused: every scalar is given
    drawn = _drawn(fn, seed)  # the same for every candidate: only the filled tensors change
    last: WindowError | None = None
    for candidate in candidates:
        values = {n: (given[n] if n in given else candidate) for n in names}
        inputs = _filled(fn, drawn, {n: values[n] for n in names if n in reads})
        try:
            result = run_reference(fn, inputs, {n: values[n] for n in names if n not in reads}, deviations=deviations,
                                   grid=grid, callees=callees, blocks=blocks)
        except WindowError as error:  # only an out-of-range window makes the next value worth a try
            last = error
            if not missing:
                raise
            continue
        return values, inputs, result
    assert last is not None
    raise ReferenceError(f"no sample value keeps every slice in range ({last})")


# ---------------------------------------------------------------------------------------------- comparison


def tolerance(dtype: DType, max_k: int) -> tuple[float, float]:
    """`(atol, rtol)` for a tensor of *dtype* after reductions of length up to *max_k*."""
    if not dtype.is_float:
        return 0.0, 0.0
    atol = ATOL_PER_K * max(max_k, 16)
    if dtype is not DType.FP32:
        atol += ATOL_LOW_PRECISION
    return atol, RTOL.get(dtype, 1e-2)


def first_difference(name: str, dtype: DType, got: np.ndarray, want: np.ndarray, max_k: int,
                     sigma: np.ndarray | None = None) -> dict | None:
    """The first element (row-major) where *got* and *want* differ beyond tolerance, or None.
    *sigma* is the reference's deviation of each element (module docstring, "Tolerance")."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want):
        return None  # equal element for element: within every tolerance (a NaN equals nothing: judged below)
    slack = 0.0 if sigma is None or np.shape(sigma) != want.shape else \
        DEVIATIONS * np.asarray(sigma, dtype=np.float64)
    if got.shape != want.shape:
        return {"tensor": name, "index": None, "sim": list(got.shape), "reference": list(want.shape),
                "magnitude": None, "count": int(want.size), "total": int(want.size)}
    if dtype.is_float:
        g, w = got.astype(np.float64), want.astype(np.float64)
        atol, rtol = tolerance(dtype, max_k)
        with np.errstate(invalid="ignore"):
            finite = np.isfinite(g) & np.isfinite(w)
            close = (g == w) | (finite & (np.abs(g - w) <= atol + rtol * np.abs(w) + slack))  # same inf
        both_nan = np.isnan(g) & np.isnan(w)
        bad = ~(close | both_nan)
    else:
        g, w = got.astype(np.int64), want.astype(np.int64)
        bad = np.abs(g - w) > slack
    count = int(bad.sum())
    if count == 0:
        return None
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    sim_value, ref_value = g[index].item(), w[index].item()
    magnitude = abs(sim_value - ref_value) if not (np.isnan(sim_value) or np.isnan(ref_value)) else float("nan")
    return {"tensor": name, "index": list(index), "sim": sim_value, "reference": ref_value,
            "magnitude": magnitude, "count": count, "total": int(bad.size)}


def describe(diff: dict) -> str:
    """The one-line description of a difference."""
    if diff["index"] is None:
        return f"`{diff['tensor']}` has shape {diff['sim']} in the simulation, {diff['reference']} in the reference"
    where = ", ".join(str(i) for i in diff["index"])
    sim_value = diff["sim"]
    note = " (poison: undefined L0C reached the drain)" if isinstance(sim_value, float) and np.isnan(sim_value) else ""
    producer = f"; {diff['producer']}" if diff.get("producer") else ""
    return (f"`{diff['tensor']}`[{where}]: sim {_fmt(sim_value)}{note} vs reference {_fmt(diff['reference'])} "
            f"(|diff| {_fmt(diff['magnitude'])}; {diff['count']} of {diff['total']} elements differ{producer})")


def _fmt(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


# ---------------------------------------------------------------------------------------------- entry points


def _match_params(source: Function, lowered: Function) -> dict[str, str]:
    """Lowered parameter name -> source parameter name (by name, then display name, then position)."""
    src_tensors = [p.name for p in source.params if isinstance(p.type, TensorType)]
    src_scalars = [p.name for p in source.params if isinstance(p.type, ScalarType)]
    by_display = {display_name(n): n for n in (*src_tensors, *src_scalars)}
    mapping: dict[str, str] = {}
    low_tensors = [p.name for p in lowered.params if isinstance(p.type, TensorType)]
    low_scalars = [p.name for p in lowered.params if isinstance(p.type, ScalarType)]
    for group, src_group in ((low_tensors, src_tensors), (low_scalars, src_scalars)):
        for i, name in enumerate(group):
            if name in src_group:
                mapping[name] = name
            elif display_name(name) in by_display:
                mapping[name] = by_display[display_name(name)]
            elif i < len(src_group):
                mapping[name] = src_group[i]
    return mapping


@dataclass(frozen=True, slots=True)
class PreparedRun:
    """Everything one simulation needs: the PTO text, the function, its arguments, and the
    reference's answer to compare with (`simulate_kernel` = `prepare_run` + `run_and_compare`)."""

    text: str
    function: str
    args: dict[str, object]
    reference: ReferenceResult
    scalars: dict[str, int]
    outputs: dict[str, tuple[str, DType]]
    """Source tensor name -> (argument name, dtype): the tensors compared."""
    values: dict[str, np.ndarray] = field(default_factory=dict)
    """Argument name -> the values of an argument given to the simulator as bf16 bits
    (`_sim_input`), which the simulator hands back as given when no store writes it."""
    source_lines: dict[int, Span] = field(default_factory=dict)
    """Line of `text` -> the source statement it was emitted for (a PV202 points there)."""
    with_deviations: Callable[[], ReferenceResult] | None = None
    """When `reference` was run without its deviations (`prepare_run(deviations=False)`): the reference
    run again with them, for `run_and_compare` to judge a difference found with none."""


MAX_INPUT_ELEMENTS = 1 << 28
"""The most elements the tensor parameters of a simulated kernel may hold together (1 GiB of FP32 per copy):
a kernel over a model's whole weights is checked statically, not simulated."""


def _input_elements(fn: Function) -> int:
    """Elements of *fn*'s tensor parameters with constant shapes (a symbolic dimension counts 1 here: the
    reference picks its value small)."""
    total = 0
    for param in fn.params:
        if isinstance(param.type, TensorType):
            count = 1
            for dim in param.type.shape:
                value = ops.const_int(dim)
                count *= value if value is not None and value > 0 else 1
            total += count
    return total


def prepare_run(source_fn: Function | None, lowered_fn: Function, *, seed: int = 0,
                target: str = "a2a3", scalars: Mapping[str, int] | None = None, deviations: bool = True,
                callees: Mapping[str, Callee | str] | None = None, blocks: int | None = None
                ) -> PreparedRun | SimOutcome:
    """Emit, make the inputs and run the reference; a `skipped` outcome when one of them cannot.
    Without *deviations* the reference is run without them first (`PreparedRun.with_deviations`). A call of a
    function in *callees* is spliced in on both sides; *blocks* is the launch a block-launched kernel runs as."""
    if source_fn is None or is_lowered(source_fn):
        return _skipped("no source to compare")
    size = _input_elements(source_fn)
    if size > MAX_INPUT_ELEMENTS:
        return _skipped(f"the kernel's tensors hold more elements than the simulation's limit of "
                        f"{MAX_INPUT_ELEMENTS} ({size})")
    emitted: EmittedFunction | None = None
    try:
        emitted = emit_function(lowered_fn, target, callees=callees, blocks=blocks)
    except NeedsScalars:
        pass  # a GM scratch tensor sized by a run-time scalar: emitted again once the values are chosen
    except EmitError as error:
        return _skipped(f"emit: {error.message}")
    try:
        values, inputs, reference = _choose_scalars(source_fn, seed, dict(scalars or {}), deviations, callees, blocks)
    except ReferenceError as error:
        return _skipped(f"reference: {error}")
    mapping = _match_params(source_fn, lowered_fn)
    if emitted is None:
        given = {name: values[mapping[name]] for name in mapping if mapping[name] in values}
        try:
            emitted = emit_function(lowered_fn, target, callees=callees, blocks=blocks, scalars=given)
        except EmitError as error:
            return _skipped(f"emit: {error.message}")
    with_deviations = None
    if not deviations:
        reads = set(read_tensors(source_fn, callees))
        given = {n: v for n, v in values.items() if n not in reads}
        with_deviations = lambda: run_reference(source_fn, inputs, given, grid=on_grid(source_fn, callees),  # noqa: E731
                                                callees=callees, blocks=blocks)
    dtypes_of = {p.name: p.type.dtype for p in source_fn.params if isinstance(p.type, TensorType)}
    args: dict[str, object] = {}
    given_as_bits: dict[str, np.ndarray] = {}
    for binding in emitted.args:
        source_name = mapping.get(binding.param, binding.param)
        if binding.kind == "workspace":
            is_float = any(f"<{f}>" in binding.type for f in ("f32", "f16", "bf16"))
            args[binding.name] = np.zeros(binding.shape, dtype=np.float32 if is_float else np.int64)
        elif binding.kind == "tensor":
            if source_name not in inputs:
                return _skipped(f"lowered parameter `{binding.param}` has no source tensor")
            args[binding.name] = _sim_input(inputs[source_name], dtypes_of.get(source_name))
            if args[binding.name] is not inputs[source_name]:
                given_as_bits[binding.name] = inputs[source_name]
        elif binding.kind == "read" and binding.type == "f32" and source_name in inputs:
            # the element every read returns: the filled tensor's value, on its dtype's grid
            args[binding.name] = float(np.asarray(inputs[source_name]).flat[0])
        else:
            if source_name not in values:
                return _skipped(f"lowered scalar `{binding.param}` has no source value")
            args[binding.name] = int(values[source_name])
    outputs = {mapping.get(b.param, b.param): (b.name, dtypes_of[mapping.get(b.param, b.param)])
               for b in emitted.args if b.kind == "tensor" and mapping.get(b.param, b.param) in dtypes_of}
    # emit_module puts its one header line above the function
    return PreparedRun(emit_module([emitted], target), emitted.name, args, reference, values, outputs,
                       given_as_bits, {1 + line: span for line, span in emitted.spans}, with_deviations)


def _sim_input(values: np.ndarray, dtype: DType | None) -> np.ndarray:
    """*values* as the simulator takes them: a bf16 tensor as its bit patterns — the high halves of
    its f32 words, a view and no copy (every float input is on its dtype's grid, `make_inputs`, so
    the low halves are zero; NaN never occurs)."""
    if dtype is DType.BF16 and values.dtype == np.float32 and values.flags.c_contiguous:
        return values.view(np.uint16)[..., 1::2] if np.little_endian else values.view(np.uint16)[..., 0::2]
    return values


def run_and_compare(run: PreparedRun, *, target: str = "a2a3") -> SimOutcome:
    """Simulate a prepared run and compare every tensor with the reference (first difference)."""
    from pypto_verify.sim import SimError, simulate
    from pypto_verify.sim.errors import LIMIT

    try:
        final = simulate(run.text, run.function, run.args, target=target)
    except SimError as error:
        if error.rule == LIMIT:
            return _skipped(f"simulator: {error}")
        if error.rule != PV202:
            raise  # our own emitter wrote text outside the subset: fail fast (STYLE.md §1)
        at = run.source_lines.get(error.line) if error.line is not None else None
        if at is None:
            return SimOutcome("mismatch", f"PV202 the simulator rejected the PTO: {error}", None, "",
                              PV202, run.scalars)
        # the source statement first, the emitted PTO's line after it (issue 16, item 11)
        return SimOutcome("mismatch", f"PV202 the simulator rejected the PTO emitted for line {at.line}: "
                                      f"{error.message} (PTO line {error.line})", None, "", PV202, run.scalars, at)
    reference = run.reference
    outcome = _compare(run, final, reference, target)
    if outcome.status == "mismatch" and run.with_deviations is not None:
        # judged with no deviation, a match stands (every tolerance only widens with one); a difference is
        # judged again against the reference with its deviations
        outcome, judged = _judged_with_deviations(run, final, outcome, target)
        if judged is None:
            return outcome
        reference = judged
    if outcome.status == "mismatch":
        outcome = _order_of_blocks(run, outcome, reference, target)
    return outcome


def _judged_with_deviations(run: PreparedRun, final: Mapping[str, np.ndarray], outcome: SimOutcome,
                            target: str) -> tuple[SimOutcome, ReferenceResult | None]:
    """*outcome* (a difference from the reference computed without deviations) judged against the
    reference with its deviations; where the reference cannot bound one (a remainder of a rounded value),
    neither a match nor a refutation: skipped with both reasons."""
    assert run.with_deviations is not None
    try:
        reference = run.with_deviations()
    except ReferenceError as error:
        return _skipped(f"reference: {error}; the simulation differs from its exact values "
                        f"({outcome.message})"), None
    return _compare(run, final, reference, target), reference


def _order_of_blocks(run: PreparedRun, outcome: SimOutcome, reference: ReferenceResult, target: str) -> SimOutcome:
    """A launch's mismatch, said to be a race between its blocks when the blocks run first to last (the
    reference's order; the simulation runs them last to first) match."""
    from pypto_verify.sim import block_dim, parse_pto, runs_blocks, simulate

    module = parse_pto(run.text)
    function = module.function(run.function)
    if not runs_blocks(function):
        return outcome
    in_order = simulate(module, run.function, run.args, target=target, blocks_in_order=True)
    if _compare(run, in_order, reference, target).status != "match":
        return outcome
    blocks = block_dim(function)
    launch = f"the launch's {blocks} blocks" if blocks > 1 else "the blocks of its launches"
    return replace(outcome, message=f"{outcome.message}; the result depends on the order {launch} run in (a race "
                                    "between blocks): run first to last, as the reference runs them, they match")


def _compare(run: PreparedRun, final: Mapping[str, np.ndarray], reference: ReferenceResult,
             target: str) -> SimOutcome:
    """The first tensor where the simulation's *final* values differ from *reference*'s, or a match."""
    for name, want in reference.outputs.items():
        if name not in run.outputs:
            continue
        arg, dtype = run.outputs[name]
        got = final[arg]
        if got is run.args[arg]:  # never stored: the simulator handed the argument back as given
            if name not in reference.written:
                continue  # neither side wrote it: both hold the input
            got = run.values.get(arg, got)  # given as bf16 bits: compare its values
        diff = first_difference(name, dtype, got, want, reference.max_k,
                                reference.sigma.get(name))
        if diff is not None:
            diff = {**diff, "producer": _producer(run, arg, diff["index"], np.shape(got), target)}
            return SimOutcome("mismatch", describe(diff), diff, "", PV201, run.scalars)
    return SimOutcome("match", "match", None, "", PV201, run.scalars)


def _producer(run: PreparedRun, arg: str, index: list[int] | None, shape: tuple[int, ...], target: str) -> str:
    """Which store wrote the simulated element at *index* of argument *arg*: the source statement its
    PTO was emitted for (and the PTO line), or that no store wrote it (the run is repeated watching it)."""
    from pypto_verify.sim import store_line

    if index is None:
        return ""
    line = store_line(run.text, run.function, run.args, arg, int(np.ravel_multi_index(tuple(index), shape)),
                      target=target)
    if line is None:
        return "no store of the simulation wrote it"
    at = run.source_lines.get(line)
    return f"written by the store emitted for line {at.line} (PTO line {line})" if at is not None \
        else f"written by the store at PTO line {line}"


def simulate_kernel(source_fn: Function | None, lowered_fn: Function, *, seed: int = 0,
                    target: str = "a2a3", scalars: Mapping[str, int] | None = None,
                    sizes: Mapping[str, int] | None = None, callees: Mapping[str, Callee | str] | None = None
                    ) -> SimOutcome:
    """PV201 for one kernel: the emitted PTO of *lowered_fn*, simulated on seeded inputs, against
    the reference of *source_fn*. A kernel with `pl.dynamic` sizes runs at each sample binding
    (`pypto_verify.sizes`), a size named in *sizes* at that value (the caller checked it, `check_binding`);
    the values are named in the outcome (`match at T=32; T=40`). A call of a function in *callees* (by op) is
    spliced in; a kernel whose launcher gives its block index (`callees.block_launched`) runs as a launch of
    `blocks` instances (`sizes.BLOCKS`, a sample like a size: `match at blocks=2`)."""
    with one_blas_thread():
        from pypto_verify.dynamic_ranks import is_multi_rank, simulate_ranks_kernel

        values = module_values(source_fn) if source_fn is not None and not is_lowered(source_fn) else []
        if values and source_fn is not None:  # module values computed at import (torch): both sides take the
            # same samples, named
            samples = module_value_samples(values)
            outcome = simulate_kernel(bind_sizes(source_fn, samples), bind_sizes(lowered_fn, samples), seed=seed,
                                      target=target, scalars=scalars, sizes=sizes, callees=callees)
            said = f" (module values computed at import, sampled: {_binding_text(samples)})"
            return replace(outcome, message=outcome.message + said) if outcome.status != "skipped" else outcome
        if source_fn is not None and not is_lowered(source_fn) and is_multi_rank(source_fn, callees):
            return simulate_ranks_kernel(source_fn, lowered_fn, seed=seed, target=target, scalars=scalars,
                                         callees=callees)
        launched = source_fn is not None and not is_lowered(source_fn) and block_launched(source_fn, callees)
        if source_fn is None or is_lowered(source_fn) or not (dynamic_names(source_fn) or launched):
            return _simulate_once(source_fn, lowered_fn, seed, target, scalars, callees)
        bindings: list[dict[str, int]] = []
        for sample in sample_bindings(source_fn, launched):  # a size the user bound takes that value in every sample
            binding = {**sample, **{n: v for n, v in (sizes or {}).items() if n in sample}}
            if launched and BLOCKS in binding and BLOCKS not in {*(sizes or {}), *dynamic_names(source_fn)}:
                binding[BLOCKS] = launch_blocks(source_fn, binding)  # the blocks a size the user bound needs
            if binding not in bindings:
                bindings.append(binding)
        matched: list[str] = []
        skipped: dict[str, list[str]] = {}
        """Why a sample was not simulated -> the samples (one reason is said once)."""
        for binding in bindings:
            at = _binding_text(binding)
            blocks = binding.get(BLOCKS) if launched else None
            outcome = _simulate_once(bind_sizes(source_fn, binding), bind_sizes(lowered_fn, binding),
                                     seed, target, scalars, callees, blocks)
            if outcome.status == "mismatch":
                return replace(outcome, message=f"at {at}: {outcome.message}", sizes=binding)
            if outcome.status == "skipped":
                skipped.setdefault(outcome.reason, []).append(at)
            else:
                matched.append(at)
        why = "; ".join(f"at {'; '.join(ats)}: {reason}" for reason, ats in skipped.items())
        if not matched:
            return _skipped(why)
        return SimOutcome("match", f"match at {'; '.join(matched)}" + (f" (not simulated {why})" if why else ""),
                          sizes=dict(bindings[0]))


def _binding_text(binding: Mapping[str, int | float]) -> str:
    return ", ".join(f"{name}={value}" for name, value in binding.items())


def _simulate_once(source_fn: Function | None, lowered_fn: Function, seed: int, target: str,
                   scalars: Mapping[str, int] | None, callees: Mapping[str, Callee | str] | None = None,
                   blocks: int | None = None) -> SimOutcome:
    # the reference's deviations are computed only where a difference needs them (run_and_compare)
    run = prepare_run(source_fn, lowered_fn, seed=seed, target=target, scalars=scalars, deviations=False,
                      callees=callees, blocks=blocks)
    if isinstance(run, SimOutcome):
        return run
    return run_and_compare(run, target=target)


# ---------------------------------------------------------------------------------------------- BLAS threads


_OPENBLAS_THREADS = ("openblas_set_num_threads", "openblas_get_num_threads")
"""The OpenBLAS thread-count calls; numpy's own build names them with a `scipy_` prefix and a
`64_` suffix (its 64-bit integer interface)."""


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the body with numpy's OpenBLAS on one thread, then restore its thread count.

    The dynamic check's matmuls are small (tiles, at most a few hundred rows and columns), and
    `check` already runs one worker process per core: a threaded BLAS then only has its threads
    wait for each other and for the other workers. On a machine busy with other jobs a tile matmul
    ran 30 to 50 times slower threaded than on one thread (docs/BENCHMARKS.md, "Dynamic check
    cost"). Threads change no result: OpenBLAS splits a product by output blocks, and each element
    is summed in the same order whatever the thread count.
    """
    calls = _openblas_calls()
    if calls is None:
        yield
        return
    set_threads, get_threads = calls
    before = get_threads()
    set_threads(1)
    try:
        yield
    finally:
        set_threads(before)


@cache
def _openblas_calls() -> tuple[Callable[[int], None], Callable[[], int]] | None:
    """`(set_num_threads, get_num_threads)` of the OpenBLAS numpy loaded, or None (another BLAS, or
    a platform without `/proc/self/maps`: the body then runs as numpy configured it)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    for path in sorted(set(re.findall(r"(/\S*openblas\S*\.so[.\d]*)", maps))):
        try:
            library = ctypes.CDLL(path)  # already loaded by numpy: the same handle, nothing new runs
        except OSError:
            continue
        for prefix, suffix in (("scipy_", "64_"), ("", "64_"), ("", "")):
            set_name, get_name = (prefix + name + suffix for name in _OPENBLAS_THREADS)
            if hasattr(library, set_name) and hasattr(library, get_name):
                set_threads, get_threads = getattr(library, set_name), getattr(library, get_name)
                set_threads.argtypes, set_threads.restype = [ctypes.c_int], None
                get_threads.argtypes, get_threads.restype = [], ctypes.c_int
                return set_threads, get_threads
    return None
