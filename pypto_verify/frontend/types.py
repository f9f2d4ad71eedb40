"""Type annotations → `ir.Type`, and the check of a written annotation against the inferred type.

Owns: the annotation grammar of KERNEL_LANGUAGE.md / docs/ir-conventions.md "Types":
`pl.Tensor[[dims], dtype(, TensorView)(, MemRef)]`, `pl.Tile[[dims], dtype, (MemRef,) (space,) (TileView)]`,
`pl.Scalar[dt]`, `pl.Ptr`, `pl.Out[T]` / `pl.InOut[T]`, `tuple[T, ...]` / `pl.Tuple[T, ...]` (`pl.Tuple[()]`).
A MemRef is `pl.MemRef(base, offset, size[, slots=N])[slot]` with `offset` an int or `pl.const(N, pl.INT64)`;
a tensor's `pl.TensorView(...)` (its DDR layout) is checked and dropped, with a warning.

An annotation the IR cannot hold (a bare `pl.Tensor`, a dtype outside `ir.DType` such as the sub-byte `pl.INT4`,
`pl.Array[...]`) reads as `None`: the type is left open, never guessed.
"""

from __future__ import annotations

import ast
from typing import Protocol

from pypto_verify.diagnostics import InputError
from pypto_verify.ir import (
    Call, Const, Direction, DType, Expr, ListExpr, MemRef, MemSpace, PtrType, ScalarType, Span,
    TensorType, TileType, TupleExpr, TupleType, Type,
)


class TypeContext(Protocol):
    """What the annotation reader needs from the function reader."""

    def pl_path(self, node: ast.expr) -> str | None: ...

    def expr(self, node: ast.expr) -> Expr: ...

    def span(self, node: ast.AST) -> Span: ...

    def warn_once(self, key: str, span: Span, what: str, why: str) -> None: ...

    def check_alloc(self, name: str, node: ast.AST) -> None: ...

    def static_int(self, node: ast.expr) -> int | None: ...


_MEM_ALIASES = {"MemorySpace": "Mem"}


def canonical_path(path: str) -> str:
    """`MemorySpace.Acc` → `Mem.Acc` (docs/ir-conventions.md: enumerators are canonical)."""
    head, _, rest = path.partition(".")
    if head in _MEM_ALIASES and rest:
        return f"{_MEM_ALIASES[head]}.{rest}"
    return path


def read_param_annotation(node: ast.expr | None, ctx: TypeContext) -> tuple[Type | None, Direction]:
    """A parameter's type and direction: `pl.Out[T]` is OUT, `pl.InOut[T]` INOUT."""
    if node is None:
        return None, Direction.IN
    if isinstance(node, ast.Subscript):
        path = ctx.pl_path(node.value)
        if path in ("Out", "InOut"):
            direction = Direction.OUT if path == "Out" else Direction.INOUT
            return read_type(node.slice, ctx), direction
    return read_type(node, ctx), Direction.IN


def read_return_annotation(node: ast.expr | None, ctx: TypeContext) -> tuple[Type, ...]:
    """A function's `-> T` (or `-> tuple[T, ...]`) as a tuple of types; unreadable items are dropped."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return ()
    items: list[ast.expr]
    if isinstance(node, ast.Tuple):
        items = list(node.elts)
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ("tuple", "Tuple"):
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    else:
        items = [node]
    out: list[Type] = []
    for item in items:
        t = read_type(item, ctx)
        if t is not None:
            out.append(t)
    return tuple(out)


_TENSOR_HEADS = frozenset({"Tensor", "distributed.DistributedTensor"})
"""`pld.DistributedTensor[[dims], dtype, ...]` is a `pl.Tensor` on the DSL surface (a per-rank slice of a
communication window: loads and stores see the local rank's slice); only cross-rank ops tell them apart."""


def read_type(node: ast.expr, ctx: TypeContext) -> Type | None:
    """An annotation as an `ir.Type`, or None when the IR cannot hold it."""
    if isinstance(node, ast.Subscript):
        head = ctx.pl_path(node.value)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head in _TENSOR_HEADS:
            return _read_tensor(node, items, ctx)
        if head == "Tile":
            return _read_tile(node, items, ctx)
        if head == "Scalar":
            dtype = _read_dtype(items[0], ctx) if len(items) == 1 else None
            return ScalarType(dtype) if dtype is not None else None
        if head in ("Out", "InOut"):
            return read_type(node.slice, ctx)
        if (isinstance(node.value, ast.Name) and node.value.id in ("tuple", "Tuple")) or head == "Tuple":
            if isinstance(node.slice, ast.Tuple) and not node.slice.elts:
                return TupleType(())  # the printer's empty tuple `pl.Tuple[()]`
            inner = [read_type(i, ctx) for i in items]
            known = tuple(t for t in inner if t is not None)
            if len(known) == len(inner):
                return TupleType(known)
            return None
        if head is not None:
            ctx.warn_once(f"type:{head}", ctx.span(node), f"annotation `pl.{head}[...]`",
                          "not a type pypto-verify models; left open")
        return None
    head = ctx.pl_path(node)
    if head == "Ptr":
        return PtrType()
    if head in ("Tensor", "Tile", "Scalar", "Array"):
        return None
    if head is not None:
        ctx.warn_once(f"type:{head}", ctx.span(node), f"annotation `pl.{head}`", "not a type pypto-verify models; left open")
    return None


def _read_dims(node: ast.expr, ctx: TypeContext, tile: bool = False) -> tuple[Expr, ...]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise InputError(ctx.span(node), f"shape `{_text(node)}`", "a shape is a bracketed list of dimensions")
    dims = tuple(ctx.expr(d) for d in node.elts)
    elements = 1
    for written, dim in zip(node.elts, dims):
        if not isinstance(dim, Const):
            continue  # a symbolic (run-time) dimension: its bounds are the obligations' business
        what = f"dimension `{_text(written)}`" + ("" if _text(written) == repr(dim.value) else f" = {dim.value!r}")
        if isinstance(dim.value, bool) or not isinstance(dim.value, int):
            raise InputError(ctx.span(written), what, "a dimension is a positive integer")
        if dim.value <= 0:
            raise InputError(ctx.span(written), what,
                             "a dimension is a positive integer (an empty or negative extent holds no data)")
        elements *= dim.value
    limit, what = (MAX_TILE_ELEMENTS, "2**31 elements per tile") if tile else (MAX_ELEMENTS, "2**48 elements per tensor")
    if elements > limit:
        raise InputError(ctx.span(node), f"shape `{_text(node)}` has {elements} elements", f"the limit is {what}")
    return dims


MAX_ELEMENTS = 2**48
"""The largest tensor a shape annotation may describe (elements; a model's stacked weights reach 2**34)."""
MAX_TILE_ELEMENTS = 2**31
"""The largest tile (on-chip: a few hundred KiB; past 2**31 elements no tile is realistic)."""


def _read_dtype(node: ast.expr, ctx: TypeContext) -> DType | None:
    path = ctx.pl_path(node)
    if path is None:
        raise InputError(ctx.span(node), f"dtype `{_text(node)}`", "a dtype is `pl.FP32`, `pl.BF16`, ...")
    if path in DType.__members__:
        return DType[path]
    ctx.warn_once(f"dtype:{path}", ctx.span(node), f"dtype `pl.{path}`", "not a dtype pypto-verify models; the type is left open")
    return None


def _read_tensor(node: ast.Subscript, items: list[ast.expr], ctx: TypeContext) -> Type | None:
    if len(items) < 2:
        return None
    shape = _read_dims(items[0], ctx)
    dtype = _read_dtype(items[1], ctx)
    memref: MemRef | None = None
    for extra in items[2:]:
        if isinstance(extra, ast.Constant) and isinstance(extra.value, str) and extra.value.startswith("window_buffer="):
            continue  # the printer's note of a distributed tensor's window buffer: informational only
        if _is_memref(extra, ctx):
            memref = read_memref(extra, ctx)
        elif isinstance(extra, ast.Call) and ctx.pl_path(extra.func) == "TensorView":
            _check_tensor_view(extra, ctx)
        else:
            ctx.warn_once(f"tensor-extra:{_text(extra)}", ctx.span(extra), f"tensor annotation item `{_text(extra)}`",
                          "not modelled; ignored")
    if dtype is None:
        return None
    return TensorType(shape, dtype, memref)


_UNMODELLED_SPACES = {
    # MemorySpaceToString values (PyPTO src/ir/memref.cpp) beyond ir.MemSpace
    "LeftScale": "the MX matmul's left scale buffer", "RightScale": "the MX matmul's right scale buffer",
    "ScalarLocal": "a scalar-unit buffer",
}


def _read_tile(node: ast.Subscript, items: list[ast.expr], ctx: TypeContext) -> Type | None:
    if len(items) < 2:
        raise InputError(ctx.span(node), f"annotation `{_text(node)}`", "a tile annotation is `pl.Tile[[dims], dtype, ...]`")
    shape = _read_dims(items[0], ctx, tile=True)
    dtype = _read_dtype(items[1], ctx)
    memref: MemRef | None = None
    space: MemSpace | None = None
    view: Expr | None = None
    valid: tuple[Expr, ...] | None = None
    for extra in items[2:]:
        if _is_memref(extra, ctx):
            memref = read_memref(extra, ctx)
            continue
        if isinstance(extra, ast.Call) and ctx.pl_path(extra.func) == "TileView":
            view, valid = _read_view(extra, ctx)
            continue
        path = ctx.pl_path(extra)
        if path is not None and canonical_path(path).startswith("Mem."):
            name = canonical_path(path)[4:]
            if name in _UNMODELLED_SPACES:
                raise InputError(ctx.span(extra), f"memory space `pl.{path}`",
                                 f"a PyPTO memory space pypto-verify does not model ({_UNMODELLED_SPACES[name]})")
            if name not in MemSpace.__members__:
                raise InputError(ctx.span(extra), f"memory space `pl.{path}`", "not a memory space of the language")
            space = MemSpace[name]
            continue
        raise InputError(ctx.span(extra), f"tile annotation item `{_text(extra)}`",
                         "expected a `pl.MemRef(...)`, a `pl.Mem.X` space or a `pl.TileView(...)`")
    if dtype is None:
        return None
    return TileType(shape, dtype, space, memref, valid, view)


_TENSOR_VIEW_FIELDS = ("valid_shape", "stride", "layout", "pad")


def _check_tensor_view(node: ast.Call, ctx: TypeContext) -> None:
    """`pl.TensorView(valid_shape=[...], stride=[...], layout=pl.TensorLayout.X, pad=pl.PadValue.Y)`: how a
    tensor is laid out in DDR. The checker reasons about on-chip buffers, so the view is read (every field
    must be well formed) and then not kept; one warning per file says so."""
    if node.args:
        raise InputError(ctx.span(node), f"`{_text(node)}`", "`pl.TensorView` takes keyword arguments only")
    for keyword in node.keywords:
        if keyword.arg not in _TENSOR_VIEW_FIELDS:
            raise InputError(ctx.span(keyword.value), f"`pl.TensorView` keyword `{keyword.arg}`",
                             f"its fields are {', '.join(_TENSOR_VIEW_FIELDS)}")
        ctx.expr(keyword.value)
    ctx.warn_once("tensor-view", ctx.span(node), "tensor annotation item `pl.TensorView(...)`",
                  "a tensor's DDR layout (stride, layout, valid shape, pad) is not modelled; ignored")


def _read_view(node: ast.Call, ctx: TypeContext) -> tuple[Expr | None, tuple[Expr, ...] | None]:
    """`pl.TileView(...)` kept as written; a view holding only `valid_shape=` is the valid shape alone."""
    if node.args:
        raise InputError(ctx.span(node), f"`{_text(node)}`", "`pl.TileView` takes keyword arguments only")
    kwargs: list[tuple[str, Expr]] = []
    valid: tuple[Expr, ...] | None = None
    for keyword in node.keywords:
        if keyword.arg is None:
            raise InputError(ctx.span(node), f"`{_text(node)}`", "`**` is not in the kernel language")
        value = ctx.expr(keyword.value)
        if keyword.arg == "valid_shape" and isinstance(value, (ListExpr, TupleExpr)):
            valid = tuple(value.items)
        kwargs.append((keyword.arg, value))
    if len(kwargs) == 1 and kwargs[0][0] == "valid_shape" and valid is not None:
        return None, valid
    return Call("TileView", (), tuple(kwargs), span=ctx.span(node)), valid


def _is_memref(node: ast.expr, ctx: TypeContext) -> bool:
    if isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Call) and ctx.pl_path(node.func) == "MemRef"


def read_memref(node: ast.expr, ctx: TypeContext) -> MemRef:
    """`pl.MemRef(base, offset, size[, slots=N])[slot]`."""
    slot: int | None = None
    if isinstance(node, ast.Subscript):
        slot = ctx.static_int(node.slice)
        if slot is None:
            raise InputError(ctx.span(node.slice), f"MemRef slot `{_text(node.slice)}`",
                             "a slot index is a constant int; a slot chosen at run time is not modelled")
        node = node.value
    assert isinstance(node, ast.Call)
    if len(node.args) == 1:
        raise InputError(ctx.span(node), f"pinned MemRef `{_text(node)}`",
                         "an author-declared allocation prints without its offset and size, and pypto-verify "
                         "needs both; not modelled")
    if len(node.args) != 3:
        raise InputError(ctx.span(node), f"`{_text(node)}`", "a MemRef is `pl.MemRef(base, offset, size)`")
    base_node, offset_node, size_node = node.args
    if isinstance(base_node, ast.Constant) and isinstance(base_node.value, str):
        base, quoted = base_node.value, True
    elif isinstance(base_node, ast.Name):
        ctx.check_alloc(base_node.id, base_node)
        base, quoted = base_node.id, False
    else:
        raise InputError(ctx.span(base_node), f"MemRef base `{_text(base_node)}`", "a base is an alloc name or a quoted name")
    if ctx.static_int(_const_operand(offset_node, ctx)) is None:
        # PyPTO's PrintMemRef writes the byte offset of a `tile.slice` view inside a loop as an expression
        raise InputError(ctx.span(offset_node), f"MemRef byte offset `{_text(offset_node)}`",
                         "an offset that is not a constant (a view at a run-time position) is not modelled")
    offset = _memref_int(offset_node, ctx, "offset")
    size = _memref_int(size_node, ctx, "size")
    slots: int | None = None
    for keyword in node.keywords:
        if keyword.arg == "slots":
            slots = _memref_int(keyword.value, ctx, "slots")
        else:
            raise InputError(ctx.span(keyword.value), f"MemRef keyword `{keyword.arg}`", "only `slots=` is accepted")
    return MemRef(base, offset, size, slots, slot, quoted)


def _const_operand(node: ast.expr, ctx: TypeContext) -> ast.expr:
    """The value of `pl.const(value, pl.DT)`; any other node as it is."""
    if isinstance(node, ast.Call) and ctx.pl_path(node.func) == "const" and node.args:
        return node.args[0]
    return node


def _memref_int(node: ast.expr, ctx: TypeContext, what: str) -> int:
    node = _const_operand(node, ctx)
    value = ctx.static_int(node)
    if value is None:
        raise InputError(ctx.span(node), f"MemRef {what} `{_text(node)}`", "it must be a constant integer")
    return value


# ---------------------------------------------------------------------------------------------- checking


def annotation_conflict(written: Type, inferred: Type | None) -> bool:
    """True when *written* contradicts *inferred* on what inference knows (shape, dtype, space, kind)."""
    if inferred is None or isinstance(written, (PtrType, ScalarType, TupleType)):
        return False
    if isinstance(inferred, (ScalarType, PtrType, TupleType)):
        return False
    if type(written) is not type(inferred):
        return True
    assert isinstance(written, (TensorType, TileType)) and isinstance(inferred, (TensorType, TileType))
    if written.dtype is not inferred.dtype:
        return True
    # KERNEL_LANGUAGE.md: a leading unit batch dimension is carried through, dropped in 2-D tiles
    a_shape, b_shape = _drop_unit_batch(written.shape), _drop_unit_batch(inferred.shape)
    if len(a_shape) != len(b_shape):
        return True
    for a, b in zip(a_shape, b_shape):
        if isinstance(a, Const) and isinstance(b, Const) and a.value != b.value:
            return True
    if isinstance(written, TileType) and isinstance(inferred, TileType):
        if written.space is not None and inferred.space is not None and written.space is not inferred.space:
            return True
    return False


def _drop_unit_batch(shape: tuple[Expr, ...]) -> tuple[Expr, ...]:
    while len(shape) > 2 and isinstance(shape[0], Const) and shape[0].value == 1:
        shape = shape[1:]
    return shape


def describe(t: Type) -> str:
    """`[16, 64] FP32 Acc`: how an input error names a type."""
    if isinstance(t, (TensorType, TileType)):
        dims = ", ".join(str(d.value) if isinstance(d, Const) else "?" for d in t.shape)
        space = f" {t.space.value}" if isinstance(t, TileType) and t.space is not None else ""
        kind = "" if isinstance(t, TileType) else " tensor"
        return f"[{dims}] {t.dtype.value}{space}{kind}"
    if isinstance(t, ScalarType):
        return f"scalar {t.dtype.value}"
    return type(t).__name__


def _text(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."
