"""PTO forms of PyPTO's distributed ops (`pypto.language.distributed`; docs/pto-subset.md, "Ranks").

Owns: the emission of `pld.tile.remote_load` / `remote_store`, `pld.system.notify`, `pld.system.wait` and
`pld.tensor.put`, as PyPTO's `pto_ops_distributed.cpp` emits them (`pto.tload` of / `pto.tstore` into a peer's
view, `pto.comm.tnotify`, `pto.comm.twait`, `pto.comm.tput`), with one difference: where PyPTO computes a
peer's window from the CommContext (a `pto.load_scalar` of the context, offset arithmetic and a `pto.addptr`),
the subset names it with one op, `pto.comm.peer %window, %rank`, which the simulator resolves to that rank's
storage of the window. `tput`'s staging UB tile and the `pto.barrier <PIPE_ALL>` PyPTO puts around a notify /
put are not emitted (the simulator moves GM to GM and runs each op to its end before the next). Only a whole window parameter is addressed (a
slice of one has an origin the peer op does not carry; PyPTO's `defer_wait` refuses it for the same reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pypto_verify.ir import Call, Expr, Span, Sym

from .pto import _PTO_DTYPE, EmitError, _items, _Tensor

if TYPE_CHECKING:
    from .pto import _FunctionEmitter

NOTIFY_OPS = {"AtomicAdd": "atomic_add", "Set": "set"}
"""`pld.NotifyOp` -> PTO's `#pto<notify_op ...>`."""
WAIT_CMPS = {"Ge": "ge", "Eq": "eq"}
"""`pld.WaitCmp` -> PTO's `#pto<wait_cmp ...>` (the two PyPTO's codegen accepts)."""


def _arg(call: Call, index: int, *keys: str) -> Expr | None:
    for key in keys:
        value = call.kwarg(key)
        if value is not None:
            return value
    return call.args[index] if len(call.args) > index else None


def _operand(call: Call, index: int, span: Span, what: str, *keys: str) -> Expr:
    value = _arg(call, index, *keys)
    if value is None:
        raise EmitError(f"`{call.op}` has no {what}", span)
    return value


def _window(em: _FunctionEmitter, call: Call, index: int, span: Span, *keys: str) -> _Tensor:
    """The window parameter operand *index* of *call* names, as a whole (`_Tensor` of its argument)."""
    tensor = em.tensor(_operand(call, index, span, "window", *keys), span, f"`{call.op}` window")
    if tensor.ptr or tensor.strides is not None or None in tensor.shape:
        raise EmitError(f"`{call.op}` of a slice or a reshape of window `{tensor.param}` has no PTO form in the "
                        "subset (only a whole window parameter is addressed)", span)
    return tensor


def _peer_view(em: _FunctionEmitter, window: _Tensor, peer: Expr, span: Span) -> _Tensor:
    """A view of *window* on rank *peer*: `pto.comm.peer` and its `make_tensor_view`."""
    rank = em.index(peer, span)
    element = _PTO_DTYPE[window.dtype]
    ptr = em.fresh(f"{window.param}_peer_ptr")
    em.emit(f"%{ptr} = pto.comm.peer %{window.arg}, %{rank} : !pto.ptr<{element}> -> !pto.ptr<{element}>")
    view = _Tensor(em.fresh(f"{window.param}_peer"), window.param, window.shape, window.dtype, window.arg, ptr)
    strides = [1]
    for dim in reversed(window.shape[1:]):
        assert dim is not None  # `_window`
        strides.insert(0, strides[0] * dim)
    dims = ", ".join(f"%{em.const(d, 'index')}" for d in window.shape if d is not None)
    steps = ", ".join(f"%{em.const(s, 'index')}" for s in strides)
    em.emit(f"%{view.view} = pto.make_tensor_view %{ptr}, shape = [{dims}], strides = [{steps}] "
            f"{{layout = #pto.layout<nd>}} : {view.view_type}")
    return view


def _pview(em: _FunctionEmitter, tensor: _Tensor, offsets: tuple[Expr, ...], sizes: tuple[int, ...], span: Span,
           what: str) -> tuple[str, str]:
    """A `partition_view` of *tensor* at *offsets* of constant *sizes*; its name and type."""
    if len(offsets) != len(tensor.shape) or len(sizes) != len(tensor.shape):
        raise EmitError(f"{what}: {len(offsets)} offsets and {len(sizes)} sizes for window `{tensor.param}` of rank "
                        f"{len(tensor.shape)}", span)
    if len(sizes) > 2 and any(s != 1 for s in sizes[:-2]):
        raise EmitError(f"{what}: a window of `{tensor.param}` of sizes {list(sizes)} is not 2-D", span)
    names = [em.index(o, span) for o in offsets]
    view = em.fresh(f"{tensor.param}_pview")
    view_type = f"!pto.partition_tensor_view<{'x'.join(str(s) for s in sizes)}x{_PTO_DTYPE[tensor.dtype]}>"
    em.emit(f"%{view} = pto.partition_view %{tensor.view}, offsets = [{', '.join('%' + n for n in names)}], "
            f"sizes = [{', '.join('%' + em.const(s, 'index') for s in sizes)}] : {tensor.view_type} -> {view_type}")
    return view, view_type


def _i32(em: _FunctionEmitter, expr: Expr, span: Span) -> str:
    value = em.index(expr, span)
    result = em.fresh("i32")
    em.emit(f"%{result} = arith.index_cast %{value} : index to i32")
    return result


def _enum(call: Call, key: str, table: dict[str, str], span: Span, default: str | None = None) -> str:
    value = call.kwarg(key)
    if value is None and default is not None:
        return default
    member = value.path.rpartition(".")[2] if isinstance(value, Sym) else None
    if member not in table:
        raise EmitError(f"`{call.op}` {key}= other than {', '.join(table)} has no PTO form in the subset", span)
    return table[member]


def _signal_cell(em: _FunctionEmitter, tensor: _Tensor, call: Call, span: Span) -> tuple[str, str]:
    if _PTO_DTYPE[tensor.dtype] != "i32":
        raise EmitError(f"`{call.op}` of a signal that is not INT32", span)
    offsets = _items(_operand(call, 2 if call.op.endswith("notify") else 1, span, "offsets", "offsets"), span,
                     "offsets")
    return _pview(em, tensor, offsets, (1,) * len(tensor.shape), span, f"`{call.op}`")


def op_remote_load(em: _FunctionEmitter, name, call, declared, span):
    """`pld.tile.remote_load(target, peer, offsets, shape)`: `pto.tload` of the peer's view."""
    window = _window(em, call, 0, span, "target")
    dst = em._result(name, declared, call, span)
    peer = _peer_view(em, window, _operand(call, 1, span, "peer", "peer"), span)
    offsets = _items(_operand(call, 2, span, "offsets", "offsets"), span, "offsets")
    view, view_type = em.partition(peer, offsets, dst, span)
    em.emit(f"pto.tload ins(%{view} : {view_type}) outs(%{dst.ssa} : {dst.type})")
    return dst


def op_notify(em: _FunctionEmitter, name, call, declared, span):
    """`pld.system.notify(target, peer, offsets, value, op)`: `pto.comm.tnotify` of the peer's signal element."""
    window = _window(em, call, 0, span, "target", "signal")
    mode = _enum(call, "op", NOTIFY_OPS, span, default="atomic_add")
    peer = _peer_view(em, window, _operand(call, 1, span, "peer", "peer"), span)
    cell, cell_type = _signal_cell(em, peer, call, span)
    value = _i32(em, _operand(call, 3, span, "value", "value"), span)
    em.emit(f"pto.comm.tnotify(%{cell}, %{value} : {cell_type}, i32) {{notifyOp = #pto<notify_op {mode}>}}")
    return None


def op_wait(em: _FunctionEmitter, name, call, declared, span):
    """`pld.system.wait(signal, offsets, expected, cmp)`: `pto.comm.twait` of the rank's own signal element."""
    window = _window(em, call, 0, span, "signal", "target")
    cmp = _enum(call, "cmp", WAIT_CMPS, span, default="eq")
    cell, cell_type = _signal_cell(em, window, call, span)
    expected = _i32(em, _operand(call, 2, span, "expected", "expected"), span)
    em.emit(f"pto.comm.twait(%{cell}, %{expected} : {cell_type}, i32) {{cmp = #pto<wait_cmp {cmp}>}}")
    return None


def op_remote_store(em: _FunctionEmitter, name, call, declared, span):
    """`pld.tile.remote_store(tile, target, peer, offsets, atomic=)`: `pto.tstore` into the peer's view."""
    from .pto import _is_atomic

    tile = em.tile(_operand(call, 0, span, "tile", "src_tile"), span, f"`{call.op}` source")
    window = em._written(_window(em, call, 1, span, "target"), span)
    peer = _peer_view(em, window, _operand(call, 2, span, "peer", "peer"), span)
    offsets = _items(_operand(call, 3, span, "offsets", "offsets"), span, "offsets")
    view, view_type = em.partition(peer, offsets, tile, span)
    atomic = " {atomic = #pto.atomic<add>}" if _is_atomic(call.kwarg("atomic")) else ""
    em.emit(f"pto.tstore ins(%{tile.ssa} : {tile.type}) outs(%{view} : {view_type}){atomic}")
    return window


def op_put(em: _FunctionEmitter, name, call, declared, span):
    """`pld.tensor.put(dst, peer, src, dst_offsets, src_offsets, shape)`: `pto.comm.tput` of the local window of
    *src* into the peer's window of *dst*."""
    window = em._written(_window(em, call, 0, span, "dst"), span)
    source = em.tensor(_operand(call, 2, span, "source", "src"), span, f"`{call.op}` source")
    shape = tuple(_const(e, span, call) for e in _items(_operand(call, 5, span, "shape", "shape"), span, "shape"))
    if _arg(call, 6, "atomic") is not None:
        raise EmitError(f"`{call.op}` with atomic= has no PTO form in the subset", span)
    peer = _peer_view(em, window, _operand(call, 1, span, "peer", "peer"), span)
    dst_offsets = _items(_operand(call, 3, span, "dst_offsets", "dst_offsets"), span, "dst_offsets")
    src_offsets = _items(_operand(call, 4, span, "src_offsets", "src_offsets"), span, "src_offsets")
    dst, dst_type = _pview(em, peer, dst_offsets, shape, span, f"`{call.op}` destination")
    src, src_type = _pview(em, source, src_offsets, shape, span, f"`{call.op}` source")
    em.emit(f"pto.comm.tput(%{dst}, %{src} : {dst_type}, {src_type}) {{atomicType = #pto<atomic_type atomic_none>}}")
    return None


def _const(expr: Expr, span: Span, call: Call) -> int:
    from pypto_verify import ops

    value = ops.const_int(expr)
    if value is None or value <= 0:
        raise EmitError(f"`{call.op}` of a shape other than positive constants has no PTO form in the subset", span)
    return value


CALLS = {
    "distributed.tile.remote_load": op_remote_load, "distributed.system.notify": op_notify,
    "distributed.system.wait": op_wait, "distributed.tensor.put": op_put,
    "distributed.tile.remote_store": op_remote_store,
}
"""Distributed op -> its emission (`_FunctionEmitter.call`)."""
