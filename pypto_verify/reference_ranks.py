"""The reference of a multi-rank kernel (`pypto.language.distributed`; issue 14, item 2).

Owns: the distributed ops a kernel runs, its own and its callees' (`reached_calls`, each with the kernel parameters
its function's parameters are), which tensor parameters are windows (`window_params`: the ones a distributed op
addresses), the world size a kernel is written for (`world_size`), the rank parameter (`rank_param`), the source
semantics of the distributed ops (`HANDLERS`, run by `reference._Interpreter`), and `run_reference_ranks` (every
rank over shared windows, through `pypto_verify.ranks`).

Semantics, from PyPTO's distributed model (docs/en/user/distributed in the PyPTO repository):
- a window parameter (`pld.DistributedTensor`) is one buffer per rank, zero-initialised (PyPTO's window buffers
  are; the library's barriers rely on it, `AtomicAdd` + `Ge`);
- `remote_load(target, peer, offsets, shape)` reads the window of rank `peer`;
  `put(dst, peer, src, dst_offsets, src_offsets, shape)` copies a window of the local `src` into rank `peer`'s
  `dst`; `notify(target, peer, offsets, value, op)` adds `value` to (AtomicAdd) or sets (Set) one element of
  rank `peer`'s window; `wait(signal, offsets, expected, cmp)` blocks until the rank's own element compares
  (`Ge` / `Eq`) true, the other ranks running meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_verify import ops
from pypto_verify.ir import (
    Call, Compare, For, Function, ScalarType, Sym, TensorType, stmt_exprs, var_like, walk_exprs, walk_stmts,
)
from pypto_verify.callees import Callee, CallError, call_arguments
from pypto_verify.ranks import Baton, Deadlock, run_ranks

if TYPE_CHECKING:
    from pypto_verify.reference import ReferenceResult, Value, _Interpreter

REMOTE_LOAD = ops.REMOTE_LOAD
NOTIFY = "distributed.system.notify"
WAIT = "distributed.system.wait"
PUT = "distributed.tensor.put"
REMOTE_STORE = "distributed.tile.remote_store"
_WINDOW_KEYS: dict[str, tuple[int, tuple[str, ...]]] = {
    REMOTE_LOAD: (0, ("target",)), NOTIFY: (0, ("target", "signal")), WAIT: (0, ("signal",)), PUT: (0, ("dst",)),
    REMOTE_STORE: (1, ("target",))}
"""Each distributed op, the position of its window operand and the keywords that may name it."""
_PEER_KEYS = {REMOTE_LOAD: 1, NOTIFY: 1, PUT: 1, REMOTE_STORE: 2}
"""The ops that address another rank, and the position of their `peer` operand."""


class RankDeadlock(Exception):
    """The reference itself deadlocks: every rank waits (`ranks.Deadlock`)."""


def _kw(call: Call, index: int, *keys: str) -> Any:
    for key in keys:
        value = call.kwarg(key)
        if value is not None:
            return value
    return call.args[index] if len(call.args) > index else None


@dataclass(frozen=True, slots=True)
class Reached:
    """A distributed op a kernel runs: in its own body or in a function it calls (spliced), at any depth."""

    fn: Function
    """The function whose body holds the op: the kernel, or a callee as read."""
    call: Call
    names: Mapping[str, str]
    """*fn*'s parameters that are the kernel's own -> the kernel's parameter each is (a call's argument that is
    one of them, passed down unchanged at every level)."""

    def kernel_name(self, expr: Any) -> str | None:
        """The kernel parameter *expr* (an operand of the op) is, or None."""
        v = var_like(expr)
        return self.names.get(v.name) if v is not None else None


def reached_calls(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> list[Reached]:
    """The distributed ops kernel *fn* runs, in its own body and, through *callees* (by op), in the functions it
    calls, transitively (a spliced callee's ops are the kernel's, `callees` module docstring)."""
    found: list[Reached] = []
    _reach(fn, dict(callees or {}), {p.name: p.name for p in fn.params}, 0, found)
    return found


def _reach(fn: Function, callees: Mapping[str, Callee | str], names: dict[str, str], depth: int,
           found: list[Reached]) -> None:
    for stmt in walk_stmts(fn.body):
        for top in stmt_exprs(stmt):
            for x in walk_exprs(top):
                if not isinstance(x, Call):
                    continue
                if x.op.startswith("distributed."):
                    found.append(Reached(fn, x, names))
                callee = callees.get(x.op)
                if not isinstance(callee, Callee) or depth >= _MAX_CALL_DEPTH:
                    continue  # not spliced (the emitter says why) or too deep to splice
                try:
                    given = call_arguments(callee.source, x)
                except CallError:
                    continue  # not spliced either
                inner = {param: names[v.name] for param, arg in given.items()
                         if (v := var_like(arg)) is not None and v.name in names}
                _reach(callee.source, callee.callees, inner, depth + 1, found)


_MAX_CALL_DEPTH = 16
"""How deep calls are followed (as `callees` splices them)."""


def window_params(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> frozenset[str]:
    """The tensor parameters of *fn* some distributed op addresses as its window: one of its own, or one of a
    callee's that the calls pass it to (`reached_calls`)."""
    tensors = {p.name for p in fn.params if isinstance(p.type, TensorType)}
    found = set()
    for reached in reached_calls(fn, callees):
        where = _WINDOW_KEYS.get(reached.call.op)
        name = reached.kernel_name(_kw(reached.call, where[0], *where[1])) if where is not None else None
        if name is not None and name in tensors:
            found.add(name)
    return frozenset(found)


def world_size(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> int | str:
    """The number of ranks *fn* is written for: the extent of the loops whose variable is the `peer` of its
    distributed ops (`for peer in pl.range(N_RANKS)`: every rank it addresses, and no other, exists), its own and
    its callees' (each loop read in the function that holds the op); all of them must be constant loops from 0 and
    agree. Otherwise why the world size is not known (a string)."""
    sizes = set()
    loops_of: dict[int, dict[str, For]] = {}
    for reached in reached_calls(fn, callees):
        call = reached.call
        if call.op not in _PEER_KEYS:
            continue
        loops = loops_of.setdefault(id(reached.fn), {s.loop_var.name: s for s in walk_stmts(reached.fn.body)
                                                     if isinstance(s, For)})
        peer = var_like(_kw(call, _PEER_KEYS[call.op], "peer"))
        loop = loops.get(peer.name) if peer is not None else None
        where = "" if reached.fn is fn else f" of `{reached.fn.name}`"
        if loop is None:
            return f"the peer of `{call.op}` (line {call.span.line}{where}) is not the variable of a loop over the ranks"
        start, stop, step = (ops.const_int(e) for e in (loop.start, loop.stop, loop.step))
        if start != 0 or step != 1 or stop is None or stop < 1:
            return f"the loop over the peers at line {loop.span.line}{where} is not `pl.range(<constant>)`"
        sizes.add(stop)
    if not sizes:
        return "no distributed op names a peer: the number of ranks is not said"
    if len(sizes) > 1:
        return f"the loops over the peers run over {sorted(sizes)} ranks"
    return sizes.pop()


def rank_param(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> str | None:
    """The scalar parameter each rank gets its own index in: the one the kernel compares with a peer loop's
    variable (`if peer != my_rank`: the host launcher passes `r` of `for r in pl.range(pld.world_size())`), in its
    own body or in a callee's, where the compared parameter must be the kernel's, passed down; None when no single
    one is."""
    groups: dict[tuple[int, tuple[tuple[str, str], ...]], list[Reached]] = {}
    for reached in reached_calls(fn, callees):
        if reached.call.op in _PEER_KEYS:
            groups.setdefault((id(reached.fn), tuple(sorted(reached.names.items()))), []).append(reached)
    found = set()
    for group in groups.values():
        at = group[0]
        scalars = {p.name for p in at.fn.params if isinstance(p.type, ScalarType)}
        peers = {var_like(_kw(r.call, _PEER_KEYS[r.call.op], "peer")) for r in group}
        peer_names = {v.name for v in peers if v is not None}
        loops = [s for s in walk_stmts(at.fn.body) if isinstance(s, For) and s.loop_var.name in peer_names]
        for loop in loops:
            for stmt in walk_stmts(loop.body):
                for e in stmt_exprs(stmt):
                    for x in walk_exprs(e):
                        if isinstance(x, Compare) and x.op in ("!=", "=="):
                            names = {v.name for v in (var_like(x.lhs), var_like(x.rhs)) if v is not None}
                            if loop.loop_var.name in names:
                                for name in names & scalars:
                                    if name not in at.names:
                                        return None  # a callee's rank the kernel does not pass: not known
                                    found.add(at.names[name])
    return found.pop() if len(found) == 1 else None


_PEER_OFFSETS = {PUT: (3, "dst_offsets"), REMOTE_STORE: (3, "offsets")}
"""The ops that write a peer's window, and the position and keyword of the offsets they write it at."""


def tabled_peer_write(fn: Function, callees: Mapping[str, Callee | str] | None = None) -> str | None:
    """Why *fn*'s peer writes cannot be sampled, or None: a write into a peer's window at an offset read from a
    tensor (`tensor.read` of an index table, which another kernel fills; the sample fill puts one value in every
    element, so every such write would land on one row), in its own body or a callee's (`reached_calls`). A table
    that is a callee's parameter the kernel passes something of its own for (no parameter of the kernel: a tensor
    it creates and fills, as `moe` fills `combine`'s routes through `dispatch`) is filled by the same run on every
    rank, so it is consistent across them: no sample value is in play. Names hold the tables they were computed
    from."""
    seen: set[tuple[int, tuple[tuple[str, str], ...]]] = set()
    for reached in reached_calls(fn, callees):
        key = (id(reached.fn), tuple(sorted(reached.names.items())))
        if reached.call.op not in _PEER_OFFSETS or key in seen:
            continue
        seen.add(key)
        params = {p.name for p in reached.fn.params}
        for call, names in _tabled_writes(reached.fn):
            external = sorted(n for n in names if reached.fn is fn or n not in params or n in reached.names)
            if external:
                op = call.op.rpartition(".")[2]
                where = "" if reached.fn is fn else f" of `{reached.fn.name}`"
                return (f"`pld.{'tensor' if op == 'put' else 'tile'}.{op}` (line {call.span.line}{where}) writes its "
                        f"peer at offsets read from {', '.join(f'`{n}`' for n in external)}, an index "
                        "table another kernel fills: the sample fill (one value in every element) would make "
                        "every such write land on one row, so it is not simulated")
    return None


def _tabled_writes(fn: Function) -> list[tuple[Call, set[str]]]:
    """Each write of *fn* into a peer's window at offsets read from tensors, and the tensors (`tensor.read`)."""
    tables: dict[str, set[str]] = {}
    found: list[tuple[Call, set[str]]] = []

    def read_from(expr: Any) -> set[str]:
        found: set[str] = set()
        for x in walk_exprs(expr):
            if isinstance(x, Call) and x.op == ops.T_READ and x.args and (v := var_like(x.args[0])) is not None:
                found.add(v.name)
            elif (v := var_like(x)) is not None:
                found |= tables.get(v.name, set())
        return found
    for stmt in walk_stmts(fn.body):
        target = getattr(stmt, "target", None)
        value = getattr(stmt, "value", None)
        if target is not None and value is not None:
            names = read_from(value)
            if names:
                tables[target.name] = tables.get(target.name, set()) | names
        if isinstance(stmt, For):
            for arg, init in zip(stmt.iter_args, stmt.inits):
                names = read_from(init)
                if names:
                    tables[arg.name] = tables.get(arg.name, set()) | names
        for top in stmt_exprs(stmt):
            for call in walk_exprs(top):
                if isinstance(call, Call) and call.op in _PEER_OFFSETS:
                    index, key = _PEER_OFFSETS[call.op]
                    names = read_from(_kw(call, index, key))
                    if names:
                        found.append((call, names))
    return found


@dataclass(frozen=True, slots=True)
class RankState:
    """What one rank's interpreter shares with the others."""

    rank: int
    windows: dict[str, list[Value]]
    """Window parameter -> its tensor on each rank."""
    baton: Baton


def _state(it: _Interpreter, call: Call) -> RankState:
    from pypto_verify.reference import ReferenceError

    state = it.ranks
    if state is None:
        raise ReferenceError(f"`{call.op}` outside a multi-rank run")
    return state


def _window_on(it: _Interpreter, call: Call, peer: int | None) -> Value:
    """The window *call* addresses, on rank *peer* (None: the rank's own)."""
    from pypto_verify.reference import ReferenceError, WindowError

    state = _state(it, call)
    index, keys = _WINDOW_KEYS[call.op]
    local = it.expr(_kw(call, index, *keys))
    name = next((n for n, tensors in state.windows.items() if tensors[state.rank] is local), None)
    if name is None:
        raise ReferenceError(f"`{call.op}` of something other than a whole window parameter")
    tensors = state.windows[name]
    if peer is None:
        return tensors[state.rank]
    if not 0 <= peer < len(tensors):
        raise WindowError(f"`{call.op}`: peer {peer} is outside the run's {len(tensors)} ranks")
    return tensors[peer]


def _peer(it: _Interpreter, call: Call) -> int:
    return it._int(it.expr(_kw(call, _PEER_KEYS[call.op], "peer")), None)


def _ints(it: _Interpreter, call: Call, index: int, key: str) -> tuple[int, ...]:
    return it.ints(it.expr(_kw(call, index, key)), f"`{call.op}` {key}")


def _remote_load(it: _Interpreter, call: Call) -> Value:
    from pypto_verify.reference import Value, _window_data

    src = _window_on(it, call, _peer(it, call))
    index = it.window(src, _ints(it, call, 2, "offsets"), _ints(it, call, 3, "shape"), f"`{call.op}`")
    return Value(_window_data(src, index), src.dtype)


def _cell(it: _Interpreter, call: Call, window: Value, index: int) -> tuple[slice, ...]:
    offsets = _ints(it, call, index, "offsets")
    return it.window(window, offsets, (1,) * len(offsets), f"`{call.op}`")


def _member(call: Call, key: str, default: str) -> str:
    value = call.kwarg(key)
    return value.path.rpartition(".")[2] if isinstance(value, Sym) else default


def _notify(it: _Interpreter, call: Call) -> None:
    from pypto_verify.reference import ReferenceError

    window = _window_on(it, call, _peer(it, call))
    cell = _cell(it, call, window, 2)
    value = it._int(it.expr(_kw(call, 3, "value")), None)
    mode = _member(call, "op", "AtomicAdd")
    if mode not in ("AtomicAdd", "Set"):
        raise ReferenceError(f"`{call.op}` op={mode}")
    old = int(window.data[cell].flat[0])
    window.data[cell] = np.int32(old + value if mode == "AtomicAdd" else value)  # an i32 signal wraps
    window.written[0] = True  # type: ignore[attr-defined]  # a window is a `_Tensor`


def _wait(it: _Interpreter, call: Call) -> None:
    from pypto_verify.reference import ReferenceError

    state = _state(it, call)
    window = _window_on(it, call, None)
    cell = _cell(it, call, window, 1)
    expected = it._int(it.expr(_kw(call, 2, "expected")), None)
    cmp = _member(call, "cmp", "Eq")
    if cmp not in ("Ge", "Eq"):
        raise ReferenceError(f"`{call.op}` cmp={cmp}")

    def holds() -> bool:
        got = int(window.data[cell].flat[0])
        return got >= expected if cmp == "Ge" else got == expected
    state.baton.wait(holds, lambda: f"its signal {'>=' if cmp == 'Ge' else '=='} {expected} at line "
                                    f"{call.span.line} (it holds {int(window.data[cell].flat[0])})")


def _put(it: _Interpreter, call: Call) -> None:
    from pypto_verify.reference import _window_data, _write_window

    dst = _window_on(it, call, _peer(it, call))
    src = it.value(call, 2, "src")
    shape = _ints(it, call, 5, "shape")
    src_index = it.window(src, _ints(it, call, 4, "src_offsets"), shape, f"`{call.op}` source")
    dst_index = it.window(dst, _ints(it, call, 3, "dst_offsets"), shape, f"`{call.op}` destination")
    from pypto_verify.reference import Value
    _write_window(dst, dst_index, Value(_window_data(src, src_index), src.dtype), False, f"`{call.op}`")


def _remote_store(it: _Interpreter, call: Call) -> None:
    """`remote_store(tile, target, peer, offsets, atomic=)`: the tile into rank `peer`'s window (adding under
    `atomic=pl.AtomicType.Add`)."""
    from pypto_verify.reference import _is_atomic

    dst = _window_on(it, call, _peer(it, call))
    tile = it.value(call, 0, "src_tile")
    it.write(dst, _ints(it, call, 3, "offsets"), tile, _is_atomic(call.kwarg("atomic")), f"`{call.op}`")


HANDLERS = {REMOTE_LOAD: _remote_load, NOTIFY: _notify, WAIT: _wait, PUT: _put, REMOTE_STORE: _remote_store}


def run_reference_ranks(fn: Function, inputs: Sequence[Mapping[str, np.ndarray]], scalars: Sequence[Mapping[str, Any]],
                        windows: frozenset[str], **options: Any) -> list[ReferenceResult]:
    """*fn* once per rank (`len(inputs)` ranks, first to last, one at a time: `pypto_verify.ranks`), rank r on
    `inputs[r]` and `scalars[r]`; each window parameter one zero-filled tensor per rank that every rank's
    distributed ops reach. `RankDeadlock` when every rank waits."""
    from pypto_verify.reference import _Tensor, run_reference, to_dtype

    types = {p.name: p.type for p in fn.params if isinstance(p.type, TensorType)}
    shared: dict[str, list[Value]] = {}
    for name in sorted(windows):
        t = types[name]
        shape = ops.static_shape(t.shape)
        assert shape is not None  # the inputs were drawn at it
        shared[name] = [_Tensor(to_dtype(np.zeros(shape, np.float32 if t.dtype.is_float else np.int64), t.dtype),
                                t.dtype, sigma=np.zeros(shape, np.float32)) for _ in inputs]
    results: list[Any] = [None] * len(inputs)

    def body(baton: Baton) -> None:
        rank = baton.rank
        results[rank] = run_reference(fn, inputs[rank], scalars[rank],
                                      ranks=RankState(rank, shared, baton), **options)
    try:
        run_ranks(list(range(len(inputs))), body)
    except Deadlock as error:
        raise RankDeadlock(str(error)) from None
    return results


__all__ = ["HANDLERS", "RankDeadlock", "RankState", "Reached", "rank_param", "reached_calls", "run_reference_ranks",
           "tabled_peer_write", "window_params", "world_size"]
