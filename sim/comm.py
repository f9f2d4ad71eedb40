"""The cross-rank ops of a multi-rank run (docs/pto-subset.md, "Ranks"; issue 14, item 2).

Owns: `Ranks` (the rank a function runs as, every rank's storage of each window argument, and the baton that
runs one rank at a time, `pypto_verify.ranks`), the steps of `pto.comm.peer` / `pto.comm.tnotify` /
`pto.comm.twait` / `pto.comm.tput` (compiled by `interpreter._Compiler`, which delegates here), and
`run_ranks_function` (every rank of a run of one function over shared windows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_verify.ranks import Baton, Deadlock, run_ranks

from .dtypes import to_storage, to_values
from .errors import SimError, rejected
from .parser import Func, Op, PtrType, ScalarType, ViewType

if TYPE_CHECKING:
    from .interpreter import Step, _Compiler


@dataclass(frozen=True, slots=True)
class Ranks:
    """The rank a function runs as and what it shares with the others."""

    rank: int
    windows: dict[str, list[np.ndarray]]
    """Window argument -> its flat storage on each rank (the same arrays for every rank)."""
    baton: Baton


_NOTIFY = {"#pto<notify_op atomic_add>": "atomic_add", "#pto<notify_op set>": "set"}
_WAIT = {"#pto<wait_cmp ge>": ">=", "#pto<wait_cmp eq>": "=="}
_PUT = {"#pto<atomic_type atomic_none>": False, "#pto<atomic_type atomic_add>": True}


def _ranks(compiler: _Compiler, op: Op) -> Ranks:
    if compiler.ranks is None:
        raise rejected(f"{op.name} outside a multi-rank run (no other rank to address)", op.line)
    return compiler.ranks


def peer(compiler: _Compiler, op: Op) -> Step:
    """`%q = pto.comm.peer %arg, %r : !pto.ptr<T> -> !pto.ptr<T>`: window argument %arg's storage on rank %r
    (the subset's one op for PyPTO's CommContext offset and `pto.addptr`, pto_ops_distributed.cpp)."""
    ranks = _ranks(compiler, op)
    name = op.operands[0]
    _, info = compiler.use(op, name)
    which = compiler.scalar(op, op.operands[1])
    if not isinstance(info, PtrType) or info != op.types[0]:
        raise rejected(f"{op.name}: %{name} is not a {op.types[0]}", op.line)
    if name not in ranks.windows:
        raise rejected(f"{op.name}: %{name} is not a window argument (a distributed tensor)", op.line)
    index = compiler.define(op.results[0], info)
    compiler.view_args[op.results[0]] = name
    compiler.stored_args.add(name)
    values, storage, line, count = compiler.values, ranks.windows[name], op.line, len(ranks.windows[name])

    def run() -> None:
        rank = values[which]
        if not 0 <= rank < count:
            raise rejected(f"{op.name}: rank {rank} is outside the run's {count} ranks", line)
        values[index] = storage[rank]
    return run


def _signal(compiler: _Compiler, op: Op) -> tuple[int, int]:
    """The slots of a notify's / wait's one-element i32 partition view and its value."""
    if len(op.operands) != 2 or not isinstance(op.types[0], ViewType) or op.types[1] != ScalarType("i32"):
        raise rejected(f"{op.name} takes a partition_tensor_view and an i32", op.line)
    view, info = compiler.window(op, op.operands[0], "signal")
    if info.dtype != "i32" or op.types[0].shape[-2:] != (1, 1):
        raise rejected(f"{op.name}: the signal must be one i32 element, not {op.types[0]}", op.line)
    return view, compiler.scalar(op, op.operands[1])


def tnotify(compiler: _Compiler, op: Op) -> Step:
    """`pto.comm.tnotify(%view, %value : T, i32) {notifyOp = #pto<notify_op atomic_add|set>}`."""
    _ranks(compiler, op)
    mode = _NOTIFY.get(str(op.attr("notifyOp")))
    if mode is None:
        raise SimError(f"{op.name}: unknown notifyOp {op.attr('notifyOp')}", op.line)
    view, value = _signal(compiler, op)
    values = compiler.values

    def run() -> None:
        cell = values[view]
        cell[0, 0] = np.int32(int(cell[0, 0]) + values[value] if mode == "atomic_add" else values[value])
    return run


def twait(compiler: _Compiler, op: Op) -> Step:
    """`pto.comm.twait(%view, %expected : T, i32) {cmp = #pto<wait_cmp ge|eq>}`: the rank waits (others run)
    until its own signal element compares true."""
    ranks = _ranks(compiler, op)
    cmp = _WAIT.get(str(op.attr("cmp")))
    if cmp is None:
        raise SimError(f"{op.name}: unknown cmp {op.attr('cmp')}", op.line)
    view, expected = _signal(compiler, op)
    values, line = compiler.values, op.line

    def run() -> None:
        cell, want = values[view], values[expected]

        def holds() -> bool:
            got = int(cell[0, 0])
            return got >= want if cmp == ">=" else got == want
        ranks.baton.wait(holds, lambda: f"its signal {cmp} {want} at PTO line {line} (it holds {int(cell[0, 0])})")
    return run


def tput(compiler: _Compiler, op: Op) -> Step:
    """`pto.comm.tput(%dst, %src : T, T) {atomicType = #pto<atomic_type atomic_none|atomic_add>}`: GM to GM, the
    local window %src into the (peer's) window %dst (the staging UB tile of PyPTO's form is not modelled)."""
    _ranks(compiler, op)
    adds = _PUT.get(str(op.attr("atomicType")))
    if adds is None:
        raise SimError(f"{op.name}: unknown atomicType {op.attr('atomicType')}", op.line)
    if len(op.operands) != 2:
        raise rejected(f"{op.name} takes a destination and a source partition_tensor_view", op.line)
    dest, dst_info = compiler.window(op, op.operands[0], "destination")
    source, src_info = compiler.window(op, op.operands[1], "source")
    if dst_info.dtype != src_info.dtype:
        raise rejected(f"{op.name}: dtypes {dst_info.dtype} and {src_info.dtype} differ", op.line)
    compiler.stored_args.add(compiler.view_args[op.operands[0]])
    values, line, dtype = compiler.values, op.line, dst_info.dtype

    def run() -> None:
        dst, src = values[dest], values[source]
        if dst.shape != src.shape:
            raise rejected(f"{op.name}: windows {list(dst.shape)} and {list(src.shape)} differ", line)
        if adds:
            from .interpreter import _atomic_add
            dst[...] = _atomic_add(dst, src, dtype)
        else:
            dst[...] = src
    return run


def run_ranks_function(func: Func, args: list[dict[str, object]], target: str, windows: frozenset[str],
                       order: list[int], execute: Any) -> list[dict[str, np.ndarray]]:
    """*func* once per rank (rank r on `args[r]`, ranks started in *order*), each window argument one storage per
    rank that every rank's `pto.comm` ops reach; the final GM arrays of each rank. A deadlock is a PV202 naming
    the waits."""
    dtypes = {arg.name: arg.type.dtype for arg in func.args if isinstance(arg.type, PtrType)}
    unknown = sorted(windows - set(dtypes))
    if unknown:
        raise SimError(f"@{func.name} has no pointer argument {unknown[0]}", func.line)
    storage = {name: [np.ascontiguousarray(to_storage(np.asarray(rank_args[name]), dtypes[name])).reshape(-1)
                      for rank_args in args] for name in sorted(windows)}
    finals: list[dict[str, np.ndarray]] = [{} for _ in args]

    def body(baton: Baton) -> None:
        rank = baton.rank
        finals[rank] = execute(func, args[rank], target, Ranks(rank, storage, baton))
    try:
        run_ranks(order, body)
    except Deadlock as error:
        raise rejected(f"deadlock: {error}", None) from None
    for rank, final in enumerate(finals):
        for name in windows:
            shape = np.shape(np.asarray(args[rank][name]))
            final[name] = to_values(storage[name][rank], dtypes[name]).reshape(shape)
    return finals
