"""What each op means to the analyses: operand roles, in-place inputs, result types.

Owns: the op table of TARGET_FACTS.md ("Ops around a K reduction") and KERNEL_LANGUAGE.md (tensor
level), as data and small pure functions over `ir.Call`. Everything that asks "which operand of
`tile.matmul_acc` is the accumulator" or "what type does this call produce" asks here.

Op names are the dotted path after `pl.`: `tile.matmul_acc`, `tensor.slice`. Any op not listed is
opaque: its operands are reads and its result is a fresh value (Vec for tile-level vector ops).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_verify.ir import (
    Assign, BinOp, Call, Const, DType, Expr, For, Function, FunctionKind, If, ListExpr, MemSpace, ScalarType, Sym,
    Return, TensorType, TileType, TupleExpr, TupleType, Type, PtrType, Var, stmt_exprs, var_like, walk_exprs,
    walk_stmts, replace,
)
from pypto_verify.span import slotted_init

# ---------------------------------------------------------------------------------------------- names

MATMUL = "tile.matmul"
MATMUL_ACC = "tile.matmul_acc"
MATMUL_BIAS = "tile.matmul_bias"
CREATE = "tile.create"
LOAD = "tile.load"
REMOTE_LOAD = "distributed.tile.remote_load"
"""`pld.tile.remote_load`: a tile read from another rank's window (`pypto_verify/ranks.py`)."""
EXTRACT = "tile.extract"
MOVE = "tile.move"
STORE = "tile.store"
ASSEMBLE = "tile.assemble"
ALLOC = "tile.alloc"
TRANSPOSE_VIEW = "tile.transpose_view"
SET_VALIDSHAPE = "tile.set_validshape"
AIV_SHARD = "tile.aiv_shard"
"""A vector lane's shard of a cube tile across the C->V edge (`pl.aiv_shard`): a FIXPIPE drain of an Acc value."""
YIELD = "yield_"
BLOCK_IDX = frozenset({"tile.get_block_idx", "tensor.get_block_idx"})
"""`pl.tile.get_block_idx()` / `pl.get_block_idx()`: the index of the running instance of the innermost
`pl.spmd` launch (PTO `pto.get_block_idx`)."""

TASK_IDS = frozenset({"system.task_dummy", "scope.task_id"})
"""A task id: `pl.system.task_dummy(deps=...)`, `with pl.at(...) as tid`; it orders tasks and holds no data."""
SETITEM = "tensor.setitem"
"""`a[i] = v` of an on-core array (`pl.Array`)."""

T_MATMUL = "tensor.matmul"
T_MATMUL_ACC = "tensor.matmul_acc"
T_MATMUL_BIAS = "tensor.matmul_bias"
T_CREATE = "tensor.create"
T_SLICE = "tensor.slice"
T_ASSEMBLE = "tensor.assemble"
T_CAST = "tensor.cast"
T_RESHAPE = "tensor.reshape"
T_READ = "tensor.read"
RUNTIME_DIM = "runtime_dim"
"""`runtime_dim(name, d, rank)`: extent *d* of the run-time shaped parameter *name* (`Param.runtime_shaped`)
taken as a *rank*-D tensor; made by `smt/bounds.py` only, never read from a kernel."""
T_AIV_SHARD = "tensor.aiv_shard"
T_CREATE_L1 = "tensor.create_l1"
"""An on-chip L1 (Mat) buffer for a kernel-driven gather (PyPTO `tensor.create_l1`): a tensor to the
tensor-level ops, `tile.create(target_memory=Mat)` after ConvertTensorToTileOps."""
T_GATHER_ROW = "tensor.gather_row"
GATHER_ROW = "tile.gather_row"
"""`gather_row(acc, src, dst_offset, src_offset, shape[, valid_shape])`: DMAs a window of the GM tensor
`src` into `acc` at `dst_offset`, in place (PyPTO: DPS, `set_output_reuses_input(0)`); the result is `acc`."""

MADS = (MATMUL, MATMUL_ACC, MATMUL_BIAS)
"""Cube ops that write an Acc tile."""
TENSOR_MADS = (T_MATMUL, T_MATMUL_ACC, T_MATMUL_BIAS)
"""The same MADs written at tensor level (before tiling)."""
FRESH_MADS = (MATMUL, T_MATMUL)
"""MADs that overwrite their output with `lhs @ rhs` (no bias), tile or tensor level."""
BIAS_MADS = (MATMUL_BIAS, T_MATMUL_BIAS)
"""MADs that overwrite their output with `lhs @ rhs + bias`, tile or tensor level."""
INIT_MADS = (*FRESH_MADS, *BIAS_MADS)
"""MADs that start an accumulator (they do not read one): the fresh and the bias ones."""
ACC_MADS = (MATMUL_ACC, T_MATMUL_ACC)
"""MADs that add `lhs @ rhs` to an accumulator operand, tile or tensor level."""
ALL_MADS = (*FRESH_MADS, *BIAS_MADS, *ACC_MADS)
"""Every MAD, tile or tensor level."""
CREATES = (CREATE, T_CREATE)
"""Ops that allocate a tile or tensor without writing it."""
SCALAR_READS = (T_READ, "tile.read", "read")
"""Ops that read one runtime scalar out of a tensor (`pl.read(seq_lens, [b])`)."""
FIXPIPE_DRAINS = (STORE, MOVE, ASSEMBLE)
"""Ops that may read an Acc tile (the FIXPIPE path), besides `matmul_acc`'s acc operand."""
RESHAPE = "tile.reshape"
VIEW_OPS = (TRANSPOSE_VIEW, SET_VALIDSHAPE, RESHAPE)
"""Ops whose result is a view on the operand's buffer (InitMemRef: views share their input). PyPTO's
`tile.set_validshape` only changes the valid-shape metadata (no data movement), so an accumulator
narrowed by it before its drain is still the one L0C buffer. PyPTO's `tile.reshape` is a zero-copy
reinterpretation (`IsBufferAliasingViewOp`: InitMemRef gives the result its input's MemRef, MemoryReuse
merges the sharing group's lifetimes, `pto.treshape` moves no data): a write to the source's buffer while
the reshape is live is a clobber of the reshape."""


TILE_SLICE = "tile.slice"


def is_view(call: Expr, source_type: Type | None) -> bool:
    """Whether *call*'s result is a view on its first operand's buffer, given that operand's type:
    the `VIEW_OPS`, and a `tile.slice` of a tile (any memory space). PyPTO's `tile.slice` is a
    zero-copy sub-window (`IsBufferAliasingViewOp`: registered `set_output_memory_inherit_input()` and
    in-place safe; InitMemRef gives the result a MemRef on its input's base at the slice's byte offset,
    MemoryReuse keeps the base live while any view of it is; codegen is a `pto.subview`): a write to
    the source's buffer while the slice is live is a clobber of the slice. *source_type* must be a
    tile type for a slice (a `tensor.slice` of a GM tensor is a window, not a buffer)."""
    if not isinstance(call, Call):
        return False
    if call.op in VIEW_OPS:
        return True
    return call.op == TILE_SLICE and isinstance(source_type, TileType)


# ---------------------------------------------------------------------------------------------- functions

_KERNEL_KINDS = (FunctionKind.INCORE, FunctionKind.AIC, FunctionKind.AIV)


def is_kernel(fn: Function) -> bool:
    """A kernel: kind InCore / AIC / AIV, or any function holding a tile op or a tensor-level matmul
    (docs/ir-conventions.md, "Functions and programs"). The frontend lists these, the pipeline lowers them."""
    if fn.kind in _KERNEL_KINDS:
        return True
    last, answer = _LAST_KERNEL
    if last is not fn:
        answer = _holds_tile_op(fn)
        _LAST_KERNEL[:] = [fn, answer]
    return answer


def _holds_tile_op(fn: Function) -> bool:
    for stmt in walk_stmts(fn.body):
        for expr in stmt_exprs(stmt):
            for sub in walk_exprs(expr):
                if isinstance(sub, Call) and (sub.op.startswith("tile.") or sub.op in TENSOR_MADS):
                    return True
    return False


def is_lowered(fn: Function) -> bool:
    """A Form 3 function: it carries MemRefs (on a parameter, a result, a definition, a phi or carry)
    or `tile.alloc` roots. The pipeline does not lower it again; the dynamic check has no source for it."""
    last, answer = _LAST_LOWERED
    if last is not fn:
        answer = _carries_memrefs(fn)
        _LAST_LOWERED[:] = [fn, answer]
    return answer


_LAST_KERNEL: list = [None, False]
_LAST_LOWERED: list = [None, False]
"""The function `is_kernel` / `is_lowered` looked through last, with the answer: a function is a frozen value, and
the reader, the pipeline and each of its first passes ask about the same one in turn (a walk of the whole body
each time, ~9 per kernel; a pass that leaves a kernel as it was hands the next the same object)."""


def _carries_memrefs(fn: Function) -> bool:
    for param in fn.params:
        if _has_memref(param.type):
            return True
    if any(_has_memref(t) for t in fn.return_types):
        return True
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign):
            if _has_memref(stmt.type) or isinstance(stmt.type, PtrType):
                return True
            if isinstance(stmt.value, Call) and stmt.value.op == ALLOC:
                return True
        elif isinstance(stmt, (For, If)):
            if any(_has_memref(t) for t in stmt.return_types):
                return True
    return False


def _has_memref(t: Type | None) -> bool:
    if isinstance(t, (TensorType, TileType)):
        return t.memref is not None
    if isinstance(t, TupleType):
        return any(_has_memref(item) for item in t.items)
    return False


def is_mad(call: Expr) -> bool:
    return isinstance(call, Call) and call.op in MADS


# ---------------------------------------------------------------------------------------------- operand roles


@slotted_init
@dataclass(frozen=True, slots=True)
class MatmulParts:
    """The operands of a (tile or tensor) matmul, whichever way they were written."""

    acc: Expr | None
    lhs: Expr
    rhs: Expr
    bias: Expr | None
    init_cond: Expr | None
    a_trans: bool
    b_trans: bool


def matmul_parts(call: Call) -> MatmulParts:
    """Split a matmul / matmul_acc / matmul_bias call into its operands; `init_cond` may be the 4th
    positional operand of `matmul_acc` or a keyword (KERNEL_LANGUAGE.md, Form 2)."""
    a_trans = _flag(call.kwarg("a_trans"))
    b_trans = _flag(call.kwarg("b_trans"))
    args = call.args
    if call.op in (MATMUL_ACC, T_MATMUL_ACC):
        init = call.kwarg("init_cond")
        if init is None and len(args) > 3:
            init = args[3]
        return MatmulParts(args[0], args[1], args[2], None, init, a_trans, b_trans)
    if call.op in (MATMUL_BIAS, T_MATMUL_BIAS):
        bias = args[2] if len(args) > 2 else call.kwarg("bias")
        return MatmulParts(None, args[0], args[1], bias, None, a_trans, b_trans)
    return MatmulParts(None, args[0], args[1], None, None, a_trans, b_trans)


def _flag(expr: Expr | None) -> bool:
    return isinstance(expr, Const) and expr.value is True


def inplace_input(call: Call) -> Expr | None:
    """The operand whose buffer the result must reuse (PV003): matmul_acc's acc, assemble's dst."""
    if call.op == MATMUL_ACC:
        return call.args[0]
    if call.op in (ASSEMBLE, GATHER_ROW):
        return call.args[0]
    return None


def target_memory(call: Call) -> MemSpace | None:
    """The `target_memory=` keyword as a space."""
    return space_of_sym(call.kwarg("target_memory"))


def space_of_sym(expr: Expr | None) -> MemSpace | None:
    if isinstance(expr, Sym) and expr.path.startswith("Mem."):
        return MemSpace(expr.path[4:])
    return None


def dtype_of_sym(expr: Expr | None) -> DType | None:
    if isinstance(expr, Sym) and expr.path in DType.__members__:
        return DType[expr.path]
    return None


def const_int(expr: Expr | None) -> int | None:
    """The int value of a literal (plain or `pl.const`), else None."""
    if isinstance(expr, Const) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    return None


def int_list(expr: Expr | None) -> tuple[int, ...] | None:
    """A list / tuple of int literals as a tuple, else None."""
    if isinstance(expr, (ListExpr, TupleExpr)):
        values = tuple(v for e in expr.items if (v := const_int(e)) is not None)
        if len(values) == len(expr.items):
            return values
    return None


def static_shape(shape: tuple[Expr, ...]) -> tuple[int, ...] | None:
    """A type's shape as ints when every dim is a literal."""
    values = tuple(v for d in shape if (v := const_int(d)) is not None)
    return values if len(values) == len(shape) else None


def consts(*values: int) -> tuple[Expr, ...]:
    return tuple(Const(v) for v in values)


# ---------------------------------------------------------------------------------------------- result types


def acc_dtype(lhs: DType) -> DType:
    """The cube's accumulator dtype for input *lhs*: FP32 for a float input, INT32 for an integer one
    (TARGET_FACTS.md; PyPTO's tile matmul type deduction)."""
    return DType.FP32 if lhs.is_float else DType.INT32


REDUCE_ROWS = ("row_sum", "row_max", "row_min", "row_mean")
SHAPE_CHANGING = frozenset({
    "cmp", "cmps", "sel", "row_argmax", "row_argmin", "col_argmax", "col_argmin", "mrgsort", "sort32", "arange", "ci", "split",
    "aiv_shard", "aic_gather", "concat", "transpose", "scatter",
})
"""Tile / tensor ops whose result is not shaped (or typed) like their first operand (PyPTO's op
definitions): a packed compare mask, an index column, sorted value-index pairs, a concatenation, ... Without
a rule of their own (`_RULES`) their result type is unknown, never the first operand's."""
"""Vector reductions along a row: `[M, N] -> [M, 1]`."""
REDUCE_COLS = ("col_sum", "col_max", "col_min", "col_mean")
"""Vector reductions along a column: `[M, N] -> [1, N]`."""


def value_type(value: Expr, env: dict[str, Type]) -> Type | None:
    """The type of an unannotated value (`ir.type_env`'s hook): a call by `infer_call_type`, a bool
    literal BOOL, any other literal or arithmetic INDEX; None for anything else."""
    if isinstance(value, Call):
        return infer_call_type(value, env)
    if isinstance(value, Const) and isinstance(value.value, bool):
        return ScalarType(DType.BOOL)
    if isinstance(value, (Const, BinOp)):
        return ScalarType(DType.INDEX)
    return None


def infer_call_type(call: Call, env: dict[str, Type]) -> Type | None:
    """The type *call* produces given its operands' types, or None when it cannot be told."""
    rule = _RULES.get(call.op)
    if rule is not None:
        return rule(call, env)
    level, _, name = call.op.partition(".")
    if name in SHAPE_CHANGING:
        return None
    if name == "full":
        return _full(call, level)
    if name in REDUCE_ROWS or name in REDUCE_COLS:
        first = _first_operand_type(call, env)
        if isinstance(first, (TileType, TensorType)) and len(first.shape) == 2:
            shape = (first.shape[0], Const(1)) if name in REDUCE_ROWS else (Const(1), first.shape[1])
            if isinstance(first, TileType):
                return TileType(shape, first.dtype, MemSpace.Vec, valid_shape=_reduced_valid(first, name))
            return TensorType(shape, first.dtype)
    if call.op.startswith("tile."):
        first = _first_operand_type(call, env)
        if isinstance(first, TileType):
            dtype = dtype_of_sym(call.kwarg("target_type")) or dtype_of_sym(call.kwarg("dtype")) or first.dtype
            # PyPTO's element-wise, unary and broadcast ops keep their first operand's valid shape; a
            # fillpad fills the padding, so its result is valid whole
            valid = None if name in FILLPADS else first.valid_shape
            return TileType(first.shape, dtype, MemSpace.Vec, valid_shape=valid)
        return None
    if call.op.startswith("tensor."):
        first = _first_operand_type(call, env)
        if isinstance(first, TensorType):
            dtype = dtype_of_sym(call.kwarg("target_type")) or dtype_of_sym(call.kwarg("dtype")) or first.dtype
            return TensorType(first.shape, dtype)
    return None


FILLPADS = ("fillpad", "fillpad_inplace")
"""`fillpad(t, pad_value=)`: *t* with its padding (outside its valid shape) set to the pad value."""


def _reduced_valid(first: TileType, name: str) -> tuple[Expr, ...] | None:
    """A row / column reduction's valid shape: its operand's on the kept axis, 1 on the reduced one (PyPTO's
    reduction type deduction: the kernel folds exactly the valid cells)."""
    if first.valid_shape is None or len(first.valid_shape) != 2:
        return None
    rows, cols = first.valid_shape
    return (rows, Const(1)) if name in REDUCE_ROWS else (Const(1), cols)


def _set_validshape(call: Call, env: dict[str, Type]) -> Type | None:
    """`set_validshape(t, rows, cols)`: *t* with the valid shape `[rows, cols]` (no data moves)."""
    src = operand_type(call.args[0], env) if call.args else None
    if not isinstance(src, TileType) or len(call.args) != 3 or len(src.shape) != 2:
        return None
    valid = (call.args[1], call.args[2])
    return replace(_strip_memref(src), valid_shape=None if valid == src.shape else valid)


def _full(call: Call, level: str) -> Type | None:
    """`full(shape, value, dtype=)`: a constant-filled tensor / Vec tile."""
    shape = _shape_arg(call.args[0] if call.args else call.kwarg("shape"))
    dtype = dtype_of_sym(call.kwarg("dtype")) or DType.FP32
    if shape is None:
        return None
    return TileType(shape, dtype, MemSpace.Vec) if level == "tile" else TensorType(shape, dtype)


def operand_type(expr: Expr, env: dict[str, Type]) -> Type | None:
    """The type of an operand: a name's from *env*, an inline call's (`pl.cast(pl.cast(x, ...), ...)`, as
    a source kernel nests them) by its own rule; None for anything else."""
    if isinstance(expr, Call):
        return infer_call_type(expr, env)
    v = var_like(expr)
    return env.get(v.name) if v is not None else None


def _first_operand_type(call: Call, env: dict[str, Type]) -> Type | None:
    """The type of the first typed operand (constants skipped), or None when a variable before it has no
    known type: that one may be the data operand (an untyped `row_expand_mul(x, col)` does not have the
    shape of `col`)."""
    for arg in call.args:
        t = operand_type(arg, env)
        if t is not None:
            return t
        if var_like(arg) is not None or isinstance(arg, Call):
            return None
    return None


def _shape_arg(expr: Expr | None) -> tuple[Expr, ...] | None:
    if isinstance(expr, (ListExpr, TupleExpr)):
        return tuple(expr.items)
    return None


def _create(call: Call, env: dict[str, Type]) -> Type | None:
    shape = _shape_arg(call.args[0] if call.args else call.kwarg("shape"))
    dtype = dtype_of_sym(call.kwarg("dtype")) or (dtype_of_sym(call.args[1]) if len(call.args) > 1 else None)
    if shape is None or dtype is None:
        return None
    if call.op == T_CREATE:
        return TensorType(shape, dtype)
    return TileType(shape, dtype, target_memory(call))


def _load(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    shape = _shape_arg(call.args[2]) if len(call.args) > 2 else _shape_arg(call.kwarg("shape"))
    if not isinstance(src, TensorType) or shape is None:
        return None
    valid = _shape_arg(call.args[3]) if len(call.args) > 3 else _shape_arg(call.kwarg("valid_shape"))
    if valid == shape:
        valid = None
    return TileType(shape, src.dtype, target_memory(call), valid_shape=valid)


def _remote_load(call: Call, env: dict[str, Type]) -> Type | None:
    """`pld.tile.remote_load(target, peer, offsets, shape)`: a Vec tile of *shape* read from a peer's window of
    *target* (PyPTO's `pto.tload` of the peer's view, pto_ops_distributed.cpp)."""
    src = operand_type(call.args[0], env) if call.args else None
    shape = _shape_arg(call.args[3]) if len(call.args) > 3 else _shape_arg(call.kwarg("shape"))
    if not isinstance(src, TensorType) or shape is None:
        return None
    return TileType(shape, src.dtype, MemSpace.Vec)


def _extract(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    shape = _shape_arg(call.args[3]) if len(call.args) > 3 else _shape_arg(call.kwarg("shape"))
    if not isinstance(src, TileType) or shape is None:
        return None
    return TileType(shape, src.dtype, target_memory(call))


def _move(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    if not isinstance(src, TileType):
        return None
    dtype = dtype_of_sym(call.kwarg("dtype")) or src.dtype
    return TileType(src.shape, dtype, target_memory(call), valid_shape=src.valid_shape)


def _matmul(call: Call, env: dict[str, Type]) -> Type | None:
    parts = matmul_parts(call)
    if parts.acc is not None:
        acc = operand_type(parts.acc, env)
        if isinstance(acc, (TileType, TensorType)):
            return _strip_memref(acc) if isinstance(acc, TileType) else acc
        return None
    lhs, rhs = operand_type(parts.lhs, env), operand_type(parts.rhs, env)
    if not isinstance(lhs, (TileType, TensorType)) or not isinstance(rhs, (TileType, TensorType)):
        return None
    m = lhs.shape[-1] if parts.a_trans else lhs.shape[-2] if len(lhs.shape) >= 2 else None
    n = rhs.shape[-2] if parts.b_trans else rhs.shape[-1]
    if m is None:
        return None
    batch = tuple(rhs.shape[:-2]) if len(rhs.shape) > 2 else tuple(lhs.shape[:-2])
    if isinstance(lhs, TileType) and isinstance(rhs, TileType):
        valid = product_valid(lhs, rhs, parts.a_trans, parts.b_trans)
        return TileType((m, n), acc_dtype(lhs.dtype), MemSpace.Acc, valid_shape=valid)
    if isinstance(lhs, TileType):
        return TileType((m, n), acc_dtype(lhs.dtype), MemSpace.Acc)
    out = dtype_of_sym(call.kwarg("out_dtype"))
    dtype = out or (DType.INT32 if lhs.dtype is DType.INT8 else lhs.dtype)
    return TensorType((*batch, m, n), dtype)


def product_valid(lhs: TileType, rhs: TileType, a_trans: bool = False, b_trans: bool = False
                  ) -> tuple[Expr, ...] | None:
    """A matmul result's valid shape: the lhs's valid rows by the rhs's valid columns (PyPTO's tile matmul type
    deduction: the cube computes the valid M x N rectangle); None when both are whole."""
    if lhs.valid_shape is None and rhs.valid_shape is None:
        return None
    lhs_valid, rhs_valid = lhs.valid_shape or lhs.shape, rhs.valid_shape or rhs.shape
    rows = lhs_valid[-1] if a_trans else lhs_valid[-2]
    cols = rhs_valid[-2] if b_trans else rhs_valid[-1]
    m = lhs.shape[-1] if a_trans else lhs.shape[-2]
    n = rhs.shape[-2] if b_trans else rhs.shape[-1]
    return None if (rows, cols) == (m, n) else (rows, cols)


def transposed_valid(t: TileType) -> tuple[Expr, ...] | None:
    """The valid shape of a 2-D tile's transpose."""
    return None if t.valid_shape is None or len(t.valid_shape) != 2 else (t.valid_shape[1], t.valid_shape[0])


def _strip_memref(t: TileType) -> TileType:
    return replace(t, memref=None, view=None)


def _store(call: Call, env: dict[str, Type]) -> Type | None:
    dst = operand_type(call.args[2], env) if len(call.args) > 2 else None
    if isinstance(dst, TensorType):
        return replace(dst, memref=None)
    return None


def _assemble(call: Call, env: dict[str, Type]) -> Type | None:
    dst = operand_type(call.args[0], env) if call.args else None
    if isinstance(dst, TensorType):
        return replace(dst, memref=None)
    if isinstance(dst, TileType):
        return _strip_memref(dst)
    return None


def _slice(call: Call, env: dict[str, Type]) -> Type | None:
    """`slice(src, shape, offsets)`: a window of a tensor, or (`tile.slice`) of a computed Vec tile."""
    src = operand_type(call.args[0], env) if call.args else None
    shape = _shape_arg(call.args[1]) if len(call.args) > 1 else None
    if isinstance(src, TensorType) and shape is not None:
        return TensorType(shape, src.dtype)
    if isinstance(src, TileType) and shape is not None:
        return TileType(shape, src.dtype, src.space or MemSpace.Vec)
    return None


def _reshape(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    shape = _shape_arg(call.args[1]) if len(call.args) > 1 else None
    if isinstance(src, TensorType) and shape is not None:
        return TensorType(shape, src.dtype)
    if isinstance(src, TileType) and shape is not None:
        return TileType(shape, src.dtype, src.space, valid_shape=reshaped_valid(src, shape))
    return None


def reshaped_valid(src: TileType, shape: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """The valid shape of a reshape of the padded vector *src* (one extent other than 1) into the vector
    *shape* of the same length: PyPTO maps a valid region through a reshape in row-major order, so the valid
    prefix keeps its length (`[M, 1]` valid `[m, 1]` as `[1, M]` is valid `[1, m]`). None for a whole *src*;
    any other reshape of a padded tile keeps the whole new shape valid."""
    def axis(dims: tuple[Expr, ...]) -> int | None:
        wide = [i for i, d in enumerate(dims) if const_int(d) != 1]
        return wide[0] if len(wide) == 1 else None

    valid = src.valid_shape
    if valid is None or len(valid) != len(src.shape):
        return None
    a, b = axis(src.shape), axis(shape)
    if a is None or b is None or const_int(src.shape[a]) is None or const_int(src.shape[a]) != const_int(shape[b]):
        return None
    if any(const_int(v) != 1 for i, v in enumerate(valid) if i != a):
        return None
    return tuple(valid[a] if i == b else Const(1) for i in range(len(shape)))


def _cast(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    dtype = (dtype_of_sym(call.kwarg("target_type")) or dtype_of_sym(call.kwarg("dtype"))
             or (dtype_of_sym(call.args[1]) if len(call.args) > 1 else None))
    if dtype is None:
        return None
    if isinstance(src, TensorType):
        return TensorType(src.shape, dtype)
    if isinstance(src, TileType):
        return TileType(src.shape, dtype, MemSpace.Vec, valid_shape=src.valid_shape)
    return None


def _read(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    return ScalarType(src.dtype) if isinstance(src, (TensorType, TileType)) else ScalarType(DType.INDEX)


def _transpose_view(call: Call, env: dict[str, Type]) -> Type | None:
    src = operand_type(call.args[0], env) if call.args else None
    if isinstance(src, TileType) and len(src.shape) == 2:
        return TileType((src.shape[1], src.shape[0]), src.dtype, src.space, valid_shape=transposed_valid(src))
    return None


def _alloc(call: Call, env: dict[str, Type]) -> Type | None:
    return PtrType()


def _dim(call: Call, env: dict[str, Type]) -> Type | None:
    """`tensor.dim(t, axis)`: the runtime extent of one axis — an index, whatever *t* holds."""
    return ScalarType(DType.INDEX)


def _transpose(call: Call, env: dict[str, Type]) -> Type | None:
    """`transpose(t, axis1, axis2)`: the two axes (negative ones from the end) swapped."""
    source = operand_type(call.args[0], env) if call.args else None
    given = (*call.args[1:3], *(call.kwarg(k) for k in ("axis1", "axis2") if call.kwarg(k) is not None))
    axes = [x for x in (const_int(a) for a in given) if x is not None]
    if not isinstance(source, (TileType, TensorType)) or len(axes) != 2:
        return None
    rank = len(source.shape)
    a, b = (x + rank if x < 0 else x for x in axes)
    if not (0 <= a < rank and 0 <= b < rank):
        return None
    shape = list(source.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return _fresh(source, tuple(shape))


def _concat(call: Call, env: dict[str, Type]) -> Type | None:
    """`concat(src0, src1)`: the columns of src0 then src1 (same rows, same dtype)."""
    if len(call.args) < 2:
        return None
    first, second = operand_type(call.args[0], env), operand_type(call.args[1], env)
    if not (isinstance(first, (TileType, TensorType)) and isinstance(second, (TileType, TensorType))):
        return None
    if len(first.shape) != 2 or len(second.shape) != 2 or first.dtype is not second.dtype:
        return None
    left, right = const_int(first.shape[1]), const_int(second.shape[1])
    width = Const(left + right) if left is not None and right is not None else BinOp("+", first.shape[1], second.shape[1])
    return _fresh(first, (first.shape[0], width))


def _fresh(like: TileType | TensorType, shape: tuple[Expr, ...]) -> Type:
    """A new value of *like*'s dtype and level with *shape*: a Vec tile for a tile, else a tensor."""
    if isinstance(like, TileType):
        return TileType(shape, like.dtype, MemSpace.Vec)
    return TensorType(shape, like.dtype)


def _create_l1(call: Call, env: dict[str, Type]) -> Type | None:
    """`create_l1(shape, dtype)`: PyPTO deduces a tensor of that shape and dtype (it lowers to a Mat tile)."""
    shape = _shape_arg(call.args[0] if call.args else call.kwarg("shape"))
    dtype = dtype_of_sym(call.kwarg("dtype")) or (dtype_of_sym(call.args[1]) if len(call.args) > 1 else None)
    if shape is None or dtype is None:
        return None
    return TensorType(shape, dtype)


def _gather_row(call: Call, env: dict[str, Type]) -> Type | None:
    """`gather_row(acc, src, ...)`: DMAs a GM row into `acc` and returns it, written in place (its space kept)."""
    return operand_type(call.args[0], env) if call.args else None


def _gather(call: Call, env: dict[str, Type]) -> Type | None:
    """PyPTO's index form `gather(input, dim, index)`: `out[b, k] = input[b, index[b, k]]`, so the
    result has the index's shape and the input's dtype; the mask form `gather(input, mask_pattern=P)`
    keeps the columns P marks (`[R, C / 2]` for P0101 / P1010, `[R, C / 4]` for P0001..P1000, `[R, C]`
    for P1111) in `output_dtype=` (same width) or the input's dtype (PyPTO's tensor.gather_mask); the
    compare form gives two results (unknown here)."""
    source = operand_type(call.args[0], env) if call.args else None
    if call.kwarg("mask_pattern") is not None:
        return _gather_mask(call, source)
    if call.kwarg("cmp_type") is not None or call.kwarg("compare") is not None:
        return None
    index = call.kwarg("index") if call.kwarg("index") is not None else (call.args[2] if len(call.args) > 2 else None)
    index_type = operand_type(index, env) if index is not None else None
    if not isinstance(source, (TileType, TensorType)):
        return None
    if index is not None and not isinstance(index_type, (TileType, TensorType)):
        return None  # an index of unknown shape: the result's shape is unknown, not the input's
    shape = index_type.shape if isinstance(index_type, (TileType, TensorType)) else source.shape
    if isinstance(source, TileType):
        return TileType(shape, source.dtype, MemSpace.Vec)
    return TensorType(shape, source.dtype)


_MASK_COLUMNS = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4, "P1111": 1}
"""The column divisor of each `MaskPattern` (PyPTO's values 1-7 in this order)."""


def _gather_mask(call: Call, source: Type | None) -> Type | None:
    pattern = call.kwarg("mask_pattern")
    if isinstance(pattern, Sym):
        name: str | None = pattern.path.rsplit(".", 1)[-1]
    else:
        value = const_int(pattern)
        name = list(_MASK_COLUMNS)[value - 1] if value is not None and 1 <= value <= len(_MASK_COLUMNS) else None
    divisor = _MASK_COLUMNS.get(name or "")
    if not isinstance(source, (TileType, TensorType)) or len(source.shape) != 2 or divisor is None:
        return None
    cols = const_int(source.shape[1])
    if cols is None or cols % divisor:
        return None
    dtype = dtype_of_sym(call.kwarg("output_dtype")) or source.dtype
    shape = (source.shape[0], Const(cols // divisor))
    return TileType(shape, dtype, MemSpace.Vec) if isinstance(source, TileType) else TensorType(shape, dtype)


def _index_reduction(call: Call, env: dict[str, Type]) -> Type | None:
    """`row_argmax(x)` / `row_argmin(x)`: the index of each row's extreme, `[..., M, 1]` INT32;
    `col_argmax` / `col_argmin`: `[..., 1, N]` INT32 (PyPTO's tensor and tile argmax / argmin deduction)."""
    source = operand_type(call.args[0], env) if call.args else None
    if not isinstance(source, (TileType, TensorType)) or len(source.shape) < 2 or call.kwarg("axis") is not None:
        return None
    rows = call.op.split(".", 1)[1].startswith("row_")
    shape = (*source.shape[:-1], Const(1)) if rows else (*source.shape[:-2], Const(1), source.shape[-1])
    if isinstance(source, TileType):
        return TileType(shape, DType.INT32, MemSpace.Vec)
    return TensorType(shape, DType.INT32)


def _arange(call: Call, env: dict[str, Type]) -> Type | None:
    """`arange(start, shape, dtype=INT32)` (PyPTO's `ci`): an index sequence of the given shape."""
    shape = _shape_arg(call.args[1] if len(call.args) > 1 else call.kwarg("shape"))
    dtype = dtype_of_sym(call.kwarg("dtype")) or (dtype_of_sym(call.args[2]) if len(call.args) > 2 else None)
    if shape is None:
        return None
    dtype = dtype or DType.INT32
    return TileType(shape, dtype, MemSpace.Vec) if call.op.startswith("tile.") else TensorType(shape, dtype)


def _sort32(call: Call, env: dict[str, Type]) -> Type | None:
    """`sort32(src, idx)`: each 32-element block sorted, values interleaved with their indices: *src*'s
    shape with the last dimension doubled, *src*'s dtype (PyPTO's tensor / tile sort32 deduction)."""
    source = operand_type(call.args[0], env) if call.args else None
    if not isinstance(source, (TileType, TensorType)) or not source.shape:
        return None
    last = const_int(source.shape[-1])
    doubled: Expr = Const(2 * last) if last is not None else BinOp("*", source.shape[-1], Const(2))
    return _fresh(source, (*source.shape[:-1], doubled))


def _mrgsort(call: Call, env: dict[str, Type]) -> Type | None:
    """`mrgsort(src, block_len=n)` (format 1): *src*'s type; `mrgsort(a, b[, c, d])` (format 2, tensor
    level): the sorted runs joined along the last dimension; the tile form's format 2, `mrgsort(a, b[, c, d],
    tmp)` (the workspace last, or `tmp=`): the workspace's shape in the runs' dtype (PyPTO's
    DeduceTileMrgSortType)."""
    runs = [operand_type(a, env) for a in call.args]
    if not runs or not all(isinstance(r, (TileType, TensorType)) for r in runs):
        return None
    first = runs[0]
    assert isinstance(first, (TileType, TensorType))
    if len(runs) == 1 and call.kwarg("tmp") is None:
        return _fresh(first, tuple(first.shape))
    if call.op.startswith("tile."):
        tmp = call.kwarg("tmp")
        workspace = operand_type(tmp, env) if tmp is not None else runs[-1]
        if not isinstance(workspace, TileType) or not 2 <= len(runs) + (tmp is not None) - 1 <= 4:
            return None
        return TileType(tuple(workspace.shape), first.dtype, MemSpace.Vec)
    if len(runs) > 4:
        return None
    widths: list[Expr] = []
    for run in runs:
        assert isinstance(run, (TileType, TensorType))
        if len(run.shape) != len(first.shape) or run.dtype is not first.dtype:
            return None
        widths.append(run.shape[-1])
    values = [const_int(w) for w in widths]
    last: Expr
    if all(v is not None for v in values):
        last = Const(sum(v for v in values if v is not None))
    else:
        last = widths[0]
        for w in widths[1:]:
            last = BinOp("+", last, w)
    return _fresh(first, (*first.shape[:-1], last))


def _scatter(call: Call, env: dict[str, Type]) -> Type | None:
    """`scatter(input, dim, index, src)`: *input* with elements replaced, so *input*'s type; the mask form
    `scatter(input, mask_pattern=, dst=)` writes into *dst* and has its type (PyPTO's tensor.scatter /
    tensor.scatter_mask deduction)."""
    dst = call.kwarg("dst")
    if call.kwarg("mask_pattern") is not None:
        target = operand_type(dst, env) if dst is not None else None
    else:
        target = operand_type(call.args[0], env) if call.args else None
    if not isinstance(target, (TileType, TensorType)):
        return None
    return _fresh(target, tuple(target.shape))


def _cmp(call: Call, env: dict[str, Type]) -> Type | None:
    """`tensor.cmp(lhs, rhs)`: 0 / 1 element-wise, *lhs*'s shape and dtype when *rhs* is a scalar or a
    tensor of the same shape and dtype (PyPTO's element-wise deduction without broadcasting). The tile
    forms `tile.cmps(lhs, scalar)` / `tile.cmp(lhs, rhs)` give PyPTO's packed predicate mask
    (`packed_mask_type`)."""
    if call.op in ("tile.cmps", "tile.cmp"):
        lhs_tile = operand_type(call.args[0], env) if call.args else None
        return packed_mask_type(lhs_tile) if isinstance(lhs_tile, TileType) else None
    if call.op != "tensor.cmp" or len(call.args) < 2:
        return None
    lhs = operand_type(call.args[0], env)
    rhs = operand_type(call.args[1], env)
    if not isinstance(lhs, TensorType):
        return None
    if isinstance(rhs, TensorType):
        if rhs.dtype is not lhs.dtype or static_shape(rhs.shape) is None or static_shape(rhs.shape) != static_shape(lhs.shape):
            return None
    elif not (isinstance(rhs, ScalarType) or isinstance(call.args[1], (Const, BinOp))):
        return None
    return TensorType(lhs.shape, lhs.dtype)


PREDICATE_BITS = 8
"""Lanes per byte of a packed predicate mask."""
PREDICATE_COL_ALIGN = 32
"""The bytes a2a3 rounds a packed predicate mask's row up to (PyPTO's `kA2A3PredicateColAlignment`)."""
CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")
"""PyPTO's `cmp_type` codes 0..5, in order, as PTO's `#pto<cmp ...>` names them."""


def packed_mask_type(lhs: TileType) -> TileType | None:
    """The mask `tile.cmps` / `tile.cmp` writes for a compare of *lhs* (PyPTO's MakePackedPredicateTileType): UINT8
    in Vec, lane `j` of a row in bit `j % 8` of byte `j // 8`; `lhs`'s rows, and its columns packed 8 to a
    byte, rounded up to 32 bytes, valid over `ceil(valid columns / 8)` bytes. None when the columns are not
    constants."""
    cols = const_int(lhs.shape[-1]) if lhs.shape else None
    valid = lhs.valid_shape or lhs.shape
    valid_cols = const_int(valid[-1]) if valid else None
    if cols is None or valid_cols is None:
        return None
    packed = -(-cols // PREDICATE_BITS)
    shape = (*lhs.shape[:-1], Const(-(-packed // PREDICATE_COL_ALIGN) * PREDICATE_COL_ALIGN))
    packed_valid = (*valid[:-1], Const(-(-valid_cols // PREDICATE_BITS)))
    return TileType(shape, DType.UINT8, MemSpace.Vec, valid_shape=packed_valid)


def _sel(call: Call, env: dict[str, Type]) -> Type | None:
    """`tile.sel(mask, a, b, tmp)`: per lane `a` where the mask's bit is set, else `b`: *a*'s type (PyPTO's
    tile.sel deduction)."""
    first = operand_type(call.args[1], env) if len(call.args) > 1 else None
    if not isinstance(first, TileType):
        return None
    return TileType(first.shape, first.dtype, MemSpace.Vec, valid_shape=first.valid_shape)


_RULES = {
    CREATE: _create, T_CREATE: _create,
    LOAD: _load, EXTRACT: _extract, MOVE: _move,
    MATMUL: _matmul, MATMUL_ACC: _matmul, MATMUL_BIAS: _matmul,
    T_MATMUL: _matmul, T_MATMUL_ACC: _matmul, T_MATMUL_BIAS: _matmul,
    STORE: _store, ASSEMBLE: _assemble, T_ASSEMBLE: _assemble,
    T_SLICE: _slice, "tile.slice": _slice, T_RESHAPE: _reshape, "tile.reshape": _reshape,
    T_CAST: _cast, "tile.cast": _cast, T_READ: _read, "tile.read": _read,
    TRANSPOSE_VIEW: _transpose_view, ALLOC: _alloc, "tensor.gather": _gather, "tile.gather": _gather,
    "tensor.dim": _dim, "tile.dim": _dim,
    "tensor.transpose": _transpose, "tile.transpose": _transpose, "tensor.concat": _concat, "tile.concat": _concat,
    T_GATHER_ROW: _gather_row, GATHER_ROW: _gather_row, T_CREATE_L1: _create_l1,
    **{f"{level}.{name}": _index_reduction for level in ("tensor", "tile")
       for name in ("row_argmax", "row_argmin", "col_argmax", "col_argmin")},
    **{f"{level}.{name}": _arange for level in ("tensor", "tile") for name in ("arange", "ci")},
    "tensor.sort32": _sort32, "tile.sort32": _sort32, "tensor.mrgsort": _mrgsort, "tile.mrgsort": _mrgsort,
    "tensor.scatter": _scatter, "tile.scatter": _scatter, "tensor.cmp": _cmp, "tile.cmp": _cmp, "tile.cmps": _cmp, "tile.sel": _sel,
    SET_VALIDSHAPE: _set_validshape, REMOTE_LOAD: _remote_load,
}


def task_arrays(fn: Function) -> frozenset[str]:
    """The untyped parameters of *fn* that only ever receive task ids: every statement that names one is
    `p = tensor.setitem(p, i, t)` with `t` a task id (a `TASK_IDS` call or a name one defines), or the return.
    Such a parameter (PyPTO's `pl.Array[n, pl.TASK_ID]`, which a caller reads to order its next tasks) carries
    no data the kernel reads: the simulation passes nothing for it, and its writes move none."""
    untyped = {p.name for p in fn.params if p.type is None}
    tasks = set()
    for defined in walk_stmts(fn.body):
        if isinstance(defined, Assign) and isinstance(defined.value, Call) and defined.value.op in TASK_IDS:
            tasks.add(defined.target.name)
    for stmt in walk_stmts(fn.body):
        named = {e.name for e in stmt_exprs(stmt) for e in walk_exprs(e) if isinstance(e, Var)} & untyped
        if not named or isinstance(stmt, Return):
            continue
        if not isinstance(stmt, Assign):
            untyped -= named
            continue
        value = stmt.value
        if not (isinstance(value, Call) and value.op == SETITEM and len(value.args) == 3
                and isinstance(value.args[0], Var) and value.args[0].name == stmt.target.name
                and (isinstance(value.args[2], Var) and value.args[2].name in tasks
                     or isinstance(value.args[2], Call) and value.args[2].op in TASK_IDS)
                and named == {stmt.target.name}):
            untyped -= named
    return frozenset(untyped)
