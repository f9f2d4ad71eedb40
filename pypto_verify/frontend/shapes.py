"""Exact shapes: the extents of a value where the kernel states them, and matmul operand agreement.

Owns: `Shapes`, the shape of every tile / tensor value of one function together with whether it is
*exact* — read from what the kernel wrote (a declared parameter, an annotation, the shape list of a
slice, load, extract, create or reshape) or carried through an op whose result shape is fixed by its
operands' (a matmul, a cast, an element-wise op on operands of one shape, a row / column reduction or
broadcast, a transpose, a column-wise concat, a tensor sort / merge sort, a gather by mask pattern, a
scatter into its destination, an `aiv_shard` / `aic_gather` in the split mode of its `pl.split_aiv` region:
each as pypto's type deduction gives it). `ops.infer_call_type` may guess (an element-wise op of an inline call
takes its first *named* operand's type, which can be a `[M, 1]` row scale); a guessed shape is never exact
here, so nothing is ever accused on it. Also the valid region a slice or a load narrows a value to
(`valid_shape=`, `set_validshape`), where known, carried as pypto's type deduction carries it (a store or an
assemble moves only the valid region, PTO-ISA TSTORE): kept by unary and scalar ops and on the surviving
axis of a reduction and by a tensor element-wise op whose operands share it (operands with different
regions: whole when the first operand is, where pypto's tensor type and its tile lowering agree, else not
settled; never their intersection), the first operand's for a tile element-wise op, made whole by
`fillpad`, kept through a reshape that adds or drops unit dimensions or is between vectors (`_reshape_valid`).

Used by the frontend's matmul check (`matmul_k_mismatches`: PV000 when the operands' K extents are
both exact and differ, KERNEL_LANGUAGE.md "Shapes"; `reader.py` runs it on every function it reads) and
by `smt/bounds.py` (PV107: the extents of the windows a kernel reads and writes). Input: an
`ir.Function` in any form (as read: it knows nothing of the lowering). Imports `ir` and `ops` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, BinOp, Call, Const, DType, Expr, For, Function, If, ListExpr, ScalarType, Span, Stmt, Sym, TensorType,
    TileType, TupleExpr, Type, child_bodies, display_name, final_yield, stmt_exprs, type_env, var_like, walk_exprs,
    walk_stmts,
)


@dataclass(frozen=True, slots=True)
class Shape:
    """A value's extents; `exact` when they are what the kernel wrote (not a guess)."""

    dims: tuple[Expr, ...]
    exact: bool
    valid: tuple[Expr, ...] | None = None
    """The valid region (`valid_shape=`) where narrower than `dims`; None when it is all of `dims`."""
    valid_known: bool = True
    """False when the value may carry a narrower valid region that is not tracked (derived from one)."""

    @property
    def extents(self) -> tuple[Expr, ...]:
        """What a read or a write of the whole value moves: its valid region."""
        return self.valid if self.valid is not None else self.dims


UNARY_SAME = frozenset({
    "cast", "move", "neg", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "recip", "abs", "relu", "sigmoid",
    "silu", "tanh", "floor", "ceil", "round", "not_", "adds", "muls", "subs", "divs", "maxs", "mins", "fmods",
    "clip",
})
"""Ops whose result has their first operand's shape (the other operands are scalars or attributes)."""
BINARY_SAME = frozenset({"add", "sub", "mul", "div", "maximum", "minimum", "rem", "and_", "or_", "xor", "shl",
                         "shr", "pow"})
"""Element-wise ops: the result has the operands' shape, a literal 1 stretched to the other operand's
extent (exact only when every tile / tensor operand is exact and they broadcast; a scalar operand is
broadcast)."""
EXPAND_FIRST = frozenset({
    "row_expand", "col_expand", "row_expand_mul", "row_expand_div", "row_expand_sub", "row_expand_add", "col_expand_mul", "col_expand_div",
    "col_expand_sub", "col_expand_add", "col_expand_expdif",
})
"""`[M, N]` op `[M, 1]` (row) or `[1, N]` (column): the result has the first operand's shape."""
SHAPE_ARG = {"slice": 1, "create": 0, "full": 0, "zeros": 0, "ones": 0, "reshape": 1, "load": 2, "extract": 3,
             "arange": 1, "ci": 1, "create_l1": 0}
"""Ops whose result shape is a list they are given: the index of that operand."""


_MASK_DIVISORS = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4, "P1111": 1}
"""The column divisor of a `gather` by mask pattern (pypto's `MaskPattern`, values 1-7 in this order)."""
_MASK_BY_VALUE = {1: "P0101", 2: "P1010", 3: "P0001", 4: "P0010", 5: "P0100", 6: "P1000", 7: "P1111"}


def _mask_name(expr: Expr | None) -> str | None:
    """`pl.tile.MaskPattern.P1010` (or its value 2) as `P1010`."""
    if isinstance(expr, Sym):
        return expr.path.rsplit(".", 1)[-1]
    value = ops.const_int(expr) if expr is not None else None
    return _MASK_BY_VALUE.get(value) if value is not None else None


def _vector_valid(source: Shape, shape: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """The valid region of a reshape of the vector *source* (one dimension other than a literal 1) into
    the vector *shape* of the same length: pypto maps a valid region through a reshape in row-major
    order, so the valid prefix of the one keeps its length in the other (`[M, 1]` valid `[m, 1]` as
    `[1, M]` is valid `[1, m]`). None for any other reshape."""
    def axis(dims: tuple[Expr, ...]) -> int | None:
        wide = [i for i, d in enumerate(dims) if ops.const_int(d) != 1]
        return wide[0] if len(wide) == 1 else None

    a, b = axis(source.dims), axis(shape)
    if a is None or b is None or source.valid is None or len(source.valid) != len(source.dims):
        return None
    if not same_dims((source.dims[a],), (shape[b],)):
        return None
    if any(ops.const_int(v) != 1 for i, v in enumerate(source.valid) if i != a):
        return None
    return tuple(source.valid[a] if i == b else Const(1) for i in range(len(shape)))


def _reshape_valid(source: Shape, shape: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """The valid region pypto's type deduction gives a reshape of the partly valid *source* into *shape*
    (its `ComputeReshapeValidShape`, shared by `tensor.reshape` and `tile.reshape`): a region with a
    literal 0 extent stays empty; a reshape that only adds or drops unit dimensions, each dropped one valid
    over its one coordinate, keeps the region axis for axis (`[1, 1, T, H]` valid `[1, 1, t, H]` as `[T, H]`
    is valid `[t, H]`; an added unit dimension is valid); else a vector's valid prefix keeps its length
    (`_vector_valid`). None for any other reshape (pypto maps a row-major flat prefix there, or rejects the
    reshape: not followed here)."""
    assert source.valid is not None
    if len(source.valid) != len(source.dims):
        return None
    if any(ops.const_int(v) == 0 for v in source.valid):
        return tuple(Const(0) for _ in shape)
    return _unit_axes(source.dims, source.valid, shape, 0, 0) or _vector_valid(source, shape)


def _unit_axes(dims: tuple[Expr, ...], valid: tuple[Expr, ...], shape: tuple[Expr, ...], i: int,
               j: int) -> tuple[Expr, ...] | None:
    """The valid region of `shape[j:]` when `dims[i:]` (valid `valid[i:]`) maps onto it by matching equal
    axes (tried first: a partly valid unit axis keeps its extent), dropping a unit axis valid over its one
    coordinate, or adding a unit axis (valid); None when no such alignment exists. pypto's
    `MapUnitAxisRankChange`, in the same order of moves."""
    if i == len(dims) and j == len(shape):
        return ()
    if i < len(dims) and j < len(shape) and same_dims((dims[i],), (shape[j],)):
        tail = _unit_axes(dims, valid, shape, i + 1, j + 1)
        if tail is not None:
            return (valid[i], *tail)
    if i < len(dims) and ops.const_int(dims[i]) == 1 and ops.const_int(valid[i]) == 1:
        tail = _unit_axes(dims, valid, shape, i + 1, j)
        if tail is not None:
            return tail
    if j < len(shape) and ops.const_int(shape[j]) == 1:
        tail = _unit_axes(dims, valid, shape, i, j + 1)
        if tail is not None:
            return (Const(1), *tail)
    return None


_SPLIT_CODES = {"NONE": 0, "UP_DOWN": 1, "LEFT_RIGHT": 2}
"""pypto's `SplitMode` by name: the `split` attr of `aiv_shard` / `aic_gather` (0 no split axis, 1 rows, 2
columns)."""
_SPLIT_OPS = frozenset({"tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather"})


def _split_code(expr: Expr | None) -> int | None:
    """`pl.SplitMode.UP_DOWN` (or its value 1) as 1; None when it is not a split mode."""
    if isinstance(expr, Sym):
        return _SPLIT_CODES.get(expr.path.rsplit(".", 1)[-1])
    value = ops.const_int(expr) if expr is not None else None
    return value if value in (0, 1, 2) else None


def _split_modes(body: tuple[Stmt, ...], mode: int | None, out: dict[Call, int | None]) -> None:
    """Each `aiv_shard` / `aic_gather` call of *body* -> the split code it takes: its own `split=` attr, else
    the mode of the innermost `pl.split_aiv` loop around it (pypto's parser hands the region's mode to the
    op); None when neither says, or when one call text stands in regions of different modes."""
    for stmt in body:
        for expr in stmt_exprs(stmt):
            for call in walk_exprs(expr):
                if isinstance(call, Call) and call.op in _SPLIT_OPS:
                    code = _split_code(call.kwarg("split")) if call.kwarg("split") is not None else mode
                    out[call] = code if out.get(call, code) == code else None
        inner = mode
        if isinstance(stmt, For) and dict(stmt.kwargs).get("iterator") == Const("split_aiv"):
            inner = _split_code(dict(stmt.kwargs).get("mode"))
        for nested in child_bodies(stmt):
            _split_modes(nested, inner, out)


def _shape_list(expr: Expr | None) -> tuple[Expr, ...] | None:
    if isinstance(expr, (ListExpr, TupleExpr)):
        return tuple(expr.items)
    return None


def same_dims(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    """Both shapes are the same, dimension by dimension (literals by value, anything else as written)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        cx, cy = ops.const_int(x), ops.const_int(y)
        if cx is not None or cy is not None:
            if cx != cy:
                return False
        elif x != y:
            return False
    return True


def _broadcast(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """The shape of an element-wise op on *a* and *b* of one rank: equal dimensions stay, a literal 1
    stretches to the other's (`[8, 8]` with `[1, 8]`); None when they do not broadcast."""
    if len(a) != len(b):
        return None
    out = []
    for x, y in zip(a, b):
        if same_dims((x,), (y,)):
            out.append(x)
        elif ops.const_int(x) == 1:
            out.append(y)
        elif ops.const_int(y) == 1:
            out.append(x)
        else:
            return None
    return tuple(out)


class Shapes:
    """The shape of every value of one function (module docstring), memoised by SSA name."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.env = type_env(fn, ops.value_type)
        self.params = {p.name: p for p in fn.params}
        self.defs: dict[str, Assign] = {}
        self.carried: dict[str, Expr] = {}
        """iter_arg / loop return var -> the loop's init value."""
        self.phis: dict[str, tuple[Expr | None, Expr | None, Type | None]] = {}
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, Assign):
                self.defs.setdefault(stmt.target.name, stmt)
            elif isinstance(stmt, For):
                for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                    self.carried[arg.name] = init
                    if i < len(stmt.return_vars):
                        self.carried[stmt.return_vars[i].name] = init
            elif isinstance(stmt, If):
                then, orelse = final_yield(stmt.then_body), final_yield(stmt.else_body)
                for i, rv in enumerate(stmt.return_vars):
                    a = then.values[i] if then is not None and i < len(then.values) else None
                    b = orelse.values[i] if orelse is not None and i < len(orelse.values) else None
                    t = stmt.return_types[i] if i < len(stmt.return_types) else None
                    self.phis[rv.name] = (a, b, t)
        self.memo: dict[str, Shape | None] = {}
        self.split_modes: dict[Call, int | None] = {}
        _split_modes(fn.body, None, self.split_modes)

    # -- values

    def of(self, expr: Expr | None) -> Shape | None:
        """The shape of a tile / tensor value (a name or an inline call); None for a scalar or unknown."""
        if expr is None:
            return None
        v = var_like(expr)
        if v is not None:
            if v.name not in self.memo:
                self.memo[v.name] = None  # a cycle (never in SSA) stays unknown
                self.memo[v.name] = self._name(v.name)
            return self.memo[v.name]
        if isinstance(expr, Call):
            return self._call(expr)
        return None

    def is_scalar(self, expr: Expr) -> bool:
        """*expr* is an index / scalar value, not a tile or a tensor."""
        if isinstance(expr, (Const, BinOp)):
            return True
        v = var_like(expr)
        if v is not None:
            if isinstance(self.env.get(v.name), ScalarType):
                return True
            stmt = self.defs.get(v.name)
            # a name bound to a scalar expression or to a cast of a scalar (`pl.cast(offset, pl.INT32)`)
            return stmt is not None and stmt.type is None and self.of(v) is None \
                and (isinstance(stmt.value, (Const, BinOp)) or self._scalar_cast(stmt.value))
        if isinstance(expr, Call):
            return expr.op in ops.SCALAR_READS or expr.op in ("tensor.dim", "tile.dim") or self._scalar_cast(expr)
        return False

    def _scalar_cast(self, expr: Expr) -> bool:
        """*expr* is `cast(s, ...)` of a scalar *s*."""
        return isinstance(expr, Call) and expr.op.endswith(".cast") and bool(expr.args) \
            and self.is_scalar(expr.args[0])

    def _declared(self, t: Type | None) -> Shape | None:
        if isinstance(t, TileType):
            return Shape(tuple(t.shape), True, tuple(t.valid_shape) if t.valid_shape is not None else None)
        if isinstance(t, TensorType):
            return Shape(tuple(t.shape), True)
        return None

    def _name(self, name: str) -> Shape | None:
        if name in self.params:
            return self._declared(self.params[name].type)
        stmt = self.defs.get(name)
        if stmt is not None:
            if stmt.type is not None:
                return self._declared(stmt.type)
            if var_like(stmt.value) is not None:
                return self.of(stmt.value)
            if isinstance(stmt.value, Call):
                return self._call(stmt.value)
            return None
        if name in self.carried:
            return self.of(self.carried[name])
        if name in self.phis:
            a, b, t = self.phis[name]
            if t is not None:
                return self._declared(t)
            sa, sb = self.of(a), self.of(b)
            if sa is None or sb is None:
                known = sa or sb
                return Shape(known.dims, False, None, False) if known is not None else None
            exact = sa.exact and sb.exact and same_dims(sa.dims, sb.dims)
            valid_known = sa.valid_known and sb.valid_known and sa.valid == sb.valid
            return Shape(sa.dims, exact, sa.valid if valid_known else None, valid_known)
        return None

    # -- ops

    def _call(self, call: Call) -> Shape | None:
        level, _, name = call.op.partition(".")
        if level not in ("tensor", "tile"):
            return self._guess(call)
        args = call.args
        if name in SHAPE_ARG:
            index = SHAPE_ARG[name]
            shape = _shape_list(args[index] if len(args) > index else call.kwarg("shape"))
            if shape is None:
                return self._guess(call)
            source = self.of(args[0]) if name == "reshape" and args else None
            valid = None
            if name == "slice":
                valid = _shape_list(args[3] if len(args) > 3 else call.kwarg("valid_shape"))
            elif name == "load":
                valid = _shape_list(args[3] if len(args) > 3 else call.kwarg("valid_shape"))
            elif name == "reshape":
                valid = _shape_list(args[2] if len(args) > 2 else call.kwarg("valid_shape"))
            valid_known = source is None or (source.valid is None and source.valid_known) or valid is not None
            if valid is None and source is not None and source.valid is not None and source.valid_known:
                valid = _reshape_valid(source, shape)
                valid_known = valid is not None
            if valid is not None and same_dims(valid, shape):
                valid = None
            return Shape(shape, True, valid, valid_known)
        if call.op in ops.ALL_MADS:
            return self._matmul(call)
        if name in ("assemble", "gather_row") and args:
            # in place: the result is the destination, whole (a gather's valid_shape narrows only its transfer)
            return self.of(args[0])
        if name == "store" and len(args) > 2:
            return self.of(args[2])
        if name == "set_validshape" and args:
            source = self.of(args[0])
            valid = _shape_list(args[1]) if len(args) > 1 else None
            if valid is None and source is not None and len(args) == 1 + len(source.dims):
                valid = tuple(args[1:])  # `set_validshape(t, rows, cols)`
            if source is None:
                return None
            return Shape(source.dims, source.exact, valid, valid is not None)
        if name in UNARY_SAME and args:
            source = self.of(args[0])
            return source
        if name == "fillpad" and args:
            # pypto's tile.fillpad / tensor.fillpad: the result's valid shape is its whole shape (the
            # padding is filled), so a store of it writes every element
            source = self.of(args[0])
            return Shape(source.dims, source.exact) if source is not None else None
        if name == "transpose" and args:
            return self._transpose(call, level)
        if name == "concat" and len(args) == 2:
            return self._concat(call)
        if name in BINARY_SAME or name in EXPAND_FIRST:
            return self._elementwise(call, first_only=name in EXPAND_FIRST)
        if call.op == "tensor.cmp" and len(args) == 2:
            # pypto's tensor.cmp: 0 / 1 of its operands' element-wise (broadcast) shape
            return self._elementwise(call, first_only=False)
        if call.op in ("tile.cmps", "tile.cmp") and args:
            return self._mask(call)
        if name in ops.REDUCE_ROWS and args and call.kwarg("axis") is None and call.kwarg("keep_dim") is None:
            # pypto's row reductions fold the last axis, kept as 1, of a value of any rank; the valid extents
            # of the other axes carry over
            source = self.of(args[0])
            if source is None or len(source.dims) < 2:
                return self._guess(call)
            dims = (*source.dims[:-1], Const(1))
            valid = (*source.valid[:-1], Const(1)) if source.valid is not None else None
            return Shape(dims, source.exact, None if valid is None or same_dims(valid, dims) else valid,
                         source.valid_known)
        if name in ops.REDUCE_ROWS or name in ops.REDUCE_COLS:
            source = self.of(args[0]) if args else None
            if source is None or len(source.dims) != 2:
                return self._guess(call)
            rows = name in ops.REDUCE_ROWS
            dims = (source.dims[0], Const(1)) if rows else (Const(1), source.dims[1])
            # pypto's row / column reductions keep the source's valid extent on the surviving axis
            valid = None
            if source.valid is not None:
                valid = (source.valid[0], Const(1)) if rows else (Const(1), source.valid[1])
                valid = None if same_dims(valid, dims) else valid
            return Shape(dims, source.exact, valid, source.valid_known)
        if name == "gather" and args and call.kwarg("mask_pattern") is not None and call.kwarg("index") is None:
            masked = self._gather_mask(call)
            # the tile form's valid region is not read here
            return Shape(masked.dims, masked.exact, None, False) if masked is not None and level == "tile" else masked
        if level == "tensor" and name in ("sort32", "mrgsort") and args:
            return self._sort(call, name)
        if name == "gather" and args:
            picks = call.kwarg("index") if call.kwarg("index") is not None else (args[2] if len(args) > 2 else None)
            picked = self.of(picks) if picks is not None else None
            if picked is None:
                return self._guess(call)
            return Shape(picked.dims, picked.exact, None, picked.valid is None and picked.valid_known)
        if call.op in _SPLIT_OPS and args:
            return self._split(call, halve=name == "aiv_shard")
        if name in ("scatter", "scatter_mask") and args:
            return self._scatter(call, level)
        if name == "transpose_view" and args:
            source = self.of(args[0])
            if source is None or len(source.dims) != 2:
                return None
            valid = (source.valid[1], source.valid[0]) if source.valid is not None else None
            return Shape((source.dims[1], source.dims[0]), source.exact, valid, source.valid_known)
        return self._guess(call)

    def _split(self, call: Call, halve: bool) -> Shape | None:
        """`aiv_shard(x)` (halve) / `aic_gather(x)` across the C->V / V->C edge, in the split mode of its region
        (pypto's DeduceSplitReshape): `NONE` keeps *x*'s shape and valid region; `UP_DOWN` / `LEFT_RIGHT` take
        the ceiling half of (or double) the rows / columns of a 2-D *x*. The valid extent on that axis is
        exact only where *x* is wholly valid on it and even (halving): each lane then holds exactly half;
        otherwise pypto localises each lane's extent later (lane 1 of an odd or narrowed one holds fewer), so
        the typed extent is an upper bound, not settled. An unknown mode is a guess."""
        source = self.of(call.args[0])
        code = self.split_modes.get(call)
        if source is None or code is None:
            return self._guess(call)
        if code == 0:
            return source
        if len(source.dims) != 2:
            return self._guess(call)
        axis = code - 1
        extent, valid = source.dims[axis], source.extents[axis]
        whole = same_dims((valid,), (extent,))
        literal = ops.const_int(extent)
        if literal is None:
            return self._guess(call)
        settled = source.valid_known and whole and (not halve or literal % 2 == 0)
        size = Const((literal + 1) // 2 if halve else literal * 2)
        dims = tuple(size if i == axis else d for i, d in enumerate(source.dims))
        extents = tuple(size if i == axis else d for i, d in enumerate(source.extents))
        return Shape(dims, source.exact, None if same_dims(extents, dims) else extents, settled)

    def _scatter(self, call: Call, level: str) -> Shape | None:
        """A scatter writes into its destination and has its shape: the tile forms `scatter(dst, src, idx)` /
        `scatter_mask(dst, src, mask_pattern)` alias *dst* (`dst=` where named; valid region included, pypto's
        MakeScatterResultType); the tensor forms `scatter(x, dim, index, src)` / `scatter(src, mask_pattern=,
        dst=)` are typed fully valid, which their tile lowering agrees with when the destination is whole."""
        named = call.kwarg("dst")
        target = self.of(named if named is not None else call.args[0])
        if level == "tile":
            return target
        if target is None:
            return self._guess(call)
        return Shape(target.dims, target.exact, None, target.valid is None and target.valid_known)

    def _transpose(self, call: Call, level: str) -> Shape | None:
        """`transpose(x, axis1, axis2)`: *x*'s shape with the two axes swapped; `tile.transpose` makes the
        whole result valid, and so does `tensor.transpose` of a wholly valid *x*."""
        args = call.args
        source = self.of(args[0])
        axes = [args[i] if len(args) > i else call.kwarg(k) for i, k in ((1, "axis1"), (2, "axis2"))]
        picked = [ops.const_int(a) if a is not None else None for a in axes]
        if source is None or picked[0] is None or picked[1] is None:
            return self._guess(call)
        rank = len(source.dims)
        a, b = picked[0], picked[1]
        if not (-rank <= a < rank and -rank <= b < rank):
            return self._guess(call)
        a, b = a % rank, b % rank

        def swapped(dims: tuple[Expr, ...]) -> tuple[Expr, ...]:
            out = list(dims)
            out[a], out[b] = out[b], out[a]
            return tuple(out)

        dims = swapped(source.dims)
        if level == "tile":
            return Shape(dims, source.exact)
        # a tensor transpose of a narrower valid region: pypto types it with the region swapped (or the
        # explicit fourth operand), its tile lowering makes the result whole; not settled
        explicit = len(args) > 3 or call.kwarg("valid_shape") is not None
        whole = source.valid is None and source.valid_known and not explicit
        return Shape(dims, source.exact, None, whole)

    def _concat(self, call: Call) -> Shape | None:
        """`concat(a, b)`: column-wise, `[R, Ca]` and `[R, Cb]` give `[R, Ca + Cb]` (pypto's
        `tensor.concat` / `tile.concat`), exact when both operands are and their rows agree. pypto types
        the result fully valid."""
        first, second = self.of(call.args[0]), self.of(call.args[1])
        if first is None or second is None or len(first.dims) != 2 or len(second.dims) != 2:
            return self._guess(call)
        c0, c1 = ops.const_int(first.dims[1]), ops.const_int(second.dims[1])
        cols: Expr = Const(c0 + c1) if c0 is not None and c1 is not None else BinOp("+", first.dims[1], second.dims[1])
        exact = first.exact and second.exact and same_dims((first.dims[0],), (second.dims[0],))
        return Shape((first.dims[0], cols), exact)

    def _gather_mask(self, call: Call) -> Shape | None:
        """`gather(x, mask_pattern=P)`: each row of the 2-D *x* compacted to the columns the pattern marks,
        `[R, C / 2]` for `P0101` / `P1010`, `[R, C / 4]` for `P0001` .. `P1000`, `[R, C]` for `P1111`
        (pypto's `tensor.gather_mask` / `tile.gather_mask`); fully valid."""
        source = self.of(call.args[0])
        divisor = _MASK_DIVISORS.get(_mask_name(call.kwarg("mask_pattern")) or "")
        if source is None or len(source.dims) != 2 or divisor is None:
            return self._guess(call)
        cols = ops.const_int(source.dims[1])
        if cols is not None:
            if cols % divisor:
                return self._guess(call)
            width: Expr = Const(cols // divisor)
        else:
            width = source.dims[1] if divisor == 1 else BinOp("//", source.dims[1], Const(divisor))
        return Shape((source.dims[0], width), source.exact)

    def _sort(self, call: Call, name: str) -> Shape | None:
        """pypto's tensor sorts, fully valid: `sort32(src, idx)` interleaves each value with its index
        (the last dimension doubled); `mrgsort(src, block_len=n)` keeps *src*'s shape; `mrgsort(a, b, ...)`
        (2-4 sorted runs) joins them along the last dimension."""
        args = call.args
        if name == "sort32":
            source = self.of(args[0])
            if source is None or not source.dims:
                return self._guess(call)
            last = ops.const_int(source.dims[-1])
            doubled: Expr = Const(2 * last) if last is not None else BinOp("*", source.dims[-1], Const(2))
            return Shape((*source.dims[:-1], doubled), source.exact)
        runs = [self.of(a) for a in args if not self.is_scalar(a)]
        if not runs or any(r is None for r in runs):
            return self._guess(call)
        first = runs[0]
        assert first is not None
        if len(runs) == 1:
            return Shape(first.dims, first.exact)
        exact = all(r is not None and r.exact and same_dims(r.dims[:-1], first.dims[:-1]) for r in runs)
        widths = [ops.const_int(r.dims[-1]) for r in runs if r is not None]
        last_dim: Expr
        if all(w is not None for w in widths):
            last_dim = Const(sum(w for w in widths if w is not None))
        else:
            last_dim = first.dims[-1]
            for r in runs[1:]:
                assert r is not None
                last_dim = BinOp("+", last_dim, r.dims[-1])
        return Shape((*first.dims[:-1], last_dim), exact)

    def _mask(self, call: Call) -> Shape | None:
        """`tile.cmps(x, s)` / `tile.cmp(x, y)`: PyPTO's packed predicate mask of *x* (`ops.packed_mask_type`), exact
        when *x*'s shape is and its columns are constants."""
        source = self.of(call.args[0])
        if source is None:
            return self._guess(call)
        valid = source.valid if source.valid is not None else source.dims
        mask = ops.packed_mask_type(TileType(source.dims, DType.UINT8, valid_shape=valid))
        if mask is None:
            return self._guess(call)
        packed_valid = None if mask.valid_shape is None or same_dims(mask.valid_shape, mask.shape) else mask.valid_shape
        return Shape(mask.shape, source.exact, packed_valid, source.valid_known)

    def _guess(self, call: Call) -> Shape | None:
        """What `ops.infer_call_type` says, never exact."""
        try:
            t = ops.infer_call_type(call, self.env)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError):
            return None
        if isinstance(t, (TileType, TensorType)):
            return Shape(tuple(t.shape), False, None, False)
        return None

    def _elementwise(self, call: Call, first_only: bool) -> Shape | None:
        operands = [a for a in call.args if not self.is_scalar(a) and not isinstance(a, (ListExpr, TupleExpr))]
        if not operands:
            return None
        shapes = [self.of(a) for a in operands]
        first = shapes[0]
        if first is None:
            known = [s for s in shapes if s is not None]
            return Shape(known[0].dims, False, None, False) if known and not first_only else None
        if first_only:
            return first
        dims = first.dims
        exact = first.exact
        for other in shapes[1:]:
            joined = _broadcast(dims, other.dims) if other is not None else None
            exact = exact and other is not None and other.exact and joined is not None
            dims = joined or dims
        if not same_dims(dims, first.dims):
            return Shape(dims, exact, None, False)
        if call.op.startswith("tile."):
            # pypto's tile element-wise ops type the result with the first operand's valid region
            return Shape(dims, exact, first.valid, first.valid_known)
        settled = all(s is not None and s.valid_known for s in shapes)
        if settled and all(s is not None and s.valid == first.valid for s in shapes):
            return Shape(dims, exact, first.valid, True)
        # operands with different valid regions: pypto types the tensor op's result fully valid (no
        # intersection: DeduceTensorOpElementwiseBinaryType keeps a region only when the operands' are
        # provably equal) and its tile lowering takes the first operand's region. The two agree when the
        # first operand is wholly valid; otherwise what a store of it moves is not settled
        return Shape(dims, exact, None, first.valid is None and first.valid_known)

    def _matmul(self, call: Call) -> Shape | None:
        parts = ops.matmul_parts(call)
        if parts.acc is not None:
            return self.of(parts.acc)
        lhs, rhs = self.of(parts.lhs), self.of(parts.rhs)
        if lhs is None or rhs is None or len(lhs.dims) < 2 or len(rhs.dims) < 2:
            return self._guess(call)
        m = lhs.dims[-1] if parts.a_trans else lhs.dims[-2]
        n = rhs.dims[-2] if parts.b_trans else rhs.dims[-1]
        batch = tuple(rhs.dims[:-2]) if len(rhs.dims) > 2 else tuple(lhs.dims[:-2])
        dims = (*batch, m, n)
        # pypto's tile.matmul (DeduceMatmulProductInfo): the result's valid region is the lhs's valid M by the
        # rhs's valid N (each read through its transpose flag); matmul_acc keeps its accumulator's (above)
        lhs_valid, rhs_valid = lhs.extents, rhs.extents
        valid_m = lhs_valid[-1] if parts.a_trans else lhs_valid[-2]
        valid_n = rhs_valid[-2] if parts.b_trans else rhs_valid[-1]
        valid = (*batch, valid_m, valid_n)
        return Shape(dims, lhs.exact and rhs.exact, None if same_dims(valid, dims) else valid,
                     lhs.valid_known and rhs.valid_known)

    # -- matmul agreement

    def k_extents(self, call: Call) -> tuple[tuple[Shape, Expr], tuple[Shape, Expr]] | None:
        """The exact shapes of a MAD's operands and their K extents; None unless both are exact."""
        parts = ops.matmul_parts(call)
        lhs, rhs = self.of(parts.lhs), self.of(parts.rhs)
        if lhs is None or rhs is None or not (lhs.exact and rhs.exact) or len(lhs.dims) < 2 or len(rhs.dims) < 2:
            return None
        k_lhs = lhs.dims[-2] if parts.a_trans else lhs.dims[-1]
        k_rhs = rhs.dims[-1] if parts.b_trans else rhs.dims[-2]
        return (lhs, k_lhs), (rhs, k_rhs)


@dataclass(frozen=True, slots=True)
class KMismatch:
    """A MAD whose operands' exact shapes disagree on K (PV000)."""

    span: Span
    what: str
    why: str


def matmul_k_mismatches(fn: Function) -> list[KMismatch]:
    """Every MAD of *fn* (tile or tensor level, any form) whose operands' shapes are both exact and whose K
    extents are different literals: `[M, K] @ [K, N]`, `[K, M]` with `a_trans`, `[N, K]` with `b_trans`."""
    shapes: Shapes | None = None
    out: list[KMismatch] = []
    definitions = {s.target.name: s for s in walk_stmts(fn.body) if isinstance(s, Assign)}
    phis = {var.name: (s, i) for s in walk_stmts(fn.body) if isinstance(s, If) for i, var in enumerate(s.return_vars)}
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, If) and stmt.return_vars:
            shapes = shapes or Shapes(fn)
            out += _phi_mismatches(stmt, shapes, definitions, phis)
        if not isinstance(stmt, Assign):
            continue
        for call in _calls(stmt.value):
            if call.op not in ops.ALL_MADS or len(call.args) < 2:
                continue
            shapes = shapes or Shapes(fn)
            try:
                found = shapes.k_extents(call)
            except IndexError:
                found = None
            if found is None:
                continue
            (lhs, k_lhs), (rhs, k_rhs) = found
            a, b = ops.const_int(k_lhs), ops.const_int(k_rhs)
            parts = ops.matmul_parts(call)
            if a is None or b is None or a == b:
                product = _accumulator_mismatch(shapes, parts, lhs, rhs)
                if product is not None:
                    out.append(KMismatch(call.span if call.span.line else stmt.span, *product))
                continue
            flags = "".join(f", {flag}=True" for flag, on in (("a_trans", parts.a_trans), ("b_trans", parts.b_trans)) if on)
            what = (f"matmul operands disagree on K: `{operand_text(parts.lhs, shapes)}` is {dims_text(lhs.dims)}, "
                    f"`{operand_text(parts.rhs, shapes)}` is {dims_text(rhs.dims)}{' (' + flags[2:] + ')' if flags else ''}")
            why = f"K is {a} on the left and {b} on the right; the cube computes `[M, K] @ [K, N]` only"
            out.append(KMismatch(call.span if call.span.line else stmt.span, what, why))
    return out


def _phi_mismatches(stmt: If, shapes: Shapes, definitions: dict[str, Assign],
                    phis: dict[str, tuple[If, int]]) -> list[KMismatch]:
    """An `if` whose arms give one MAD result (an accumulator) products of different exact shapes: one
    L0C tile cannot hold both (a seed with its operands swapped). An arm that yields a nested `if`'s result
    (an `elif` chain) stands for that `if`'s first arm; the nested `if` is checked on its own. Reported at
    the then arm's MAD."""
    out: list[KMismatch] = []
    arms = [final_yield(stmt.then_body), final_yield(stmt.else_body)]
    if arms[0] is None or arms[1] is None:
        return out
    for i in range(min(len(arms[0].values), len(arms[1].values))):
        defs = [_mad_definition(v, definitions, phis) for v in (arms[0].values[i], arms[1].values[i])]
        then_def, else_def = defs
        if then_def is None or else_def is None:
            continue
        found = [shapes.of(d.target) for d in (then_def, else_def)]
        if any(f is None or not f.exact or len(f.dims) < 2 for f in found):
            continue
        dims = [[ops.const_int(d) for d in f.dims[-2:]] for f in found if f is not None]
        if None in dims[0] or None in dims[1] or dims[0] == dims[1]:
            continue
        assert found[0] is not None and found[1] is not None
        what = (f"the arms of the `if` at line {stmt.span.line} give `{display_name(then_def.target.name)}` products "
                f"of different shapes: {dims_text(found[0].dims)} here and {dims_text(found[1].dims)} at line "
                f"{else_def.span.line}")
        call = then_def.value
        assert isinstance(call, Call)
        out.append(KMismatch(call.span if call.span.line else then_def.span, what,
                             "one accumulator holds one [M, N] tile: an operand swapped or a transpose lost"))
    return out


def _mad_definition(value: Expr, definitions: dict[str, Assign], phis: dict[str, tuple[If, int]],
                    depth: int = 0) -> Assign | None:
    """The MAD assignment an arm's yielded *value* comes from: its own definition, or through a nested
    `if`'s result, that `if`'s first arm's (bounded: an `elif` chain is a few arms deep)."""
    name = var_like(value)
    if name is None or depth > 32:
        return None
    found = definitions.get(name.name)
    if found is not None:
        return found if isinstance(found.value, Call) and found.value.op in ops.ALL_MADS else None
    if name.name not in phis:
        return None
    nested, i = phis[name.name]
    yielded = final_yield(nested.then_body)
    if yielded is None or i >= len(yielded.values):
        return None
    return _mad_definition(yielded.values[i], definitions, phis, depth + 1)


def _accumulator_mismatch(shapes: Shapes, parts: ops.MatmulParts, lhs: Shape, rhs: Shape) -> tuple[str, str] | None:
    """(what, why) when a `matmul_acc`'s exact accumulator is not the exact `[M, N]` of its product: no
    MAD adds a product of another shape into an L0C tile in place (operands swapped, a transpose lost)."""
    if parts.acc is None:
        return None
    acc = shapes.of(parts.acc)
    if acc is None or not acc.exact or len(acc.dims) < 2:
        return None
    m = lhs.dims[-1] if parts.a_trans else lhs.dims[-2]
    n = rhs.dims[-2] if parts.b_trans else rhs.dims[-1]
    want = [ops.const_int(d) for d in (m, n)]
    have = [ops.const_int(d) for d in acc.dims[-2:]]
    if None in want or None in have or want == have:
        return None
    flags = "".join(f", {flag}=True" for flag, on in (("a_trans", parts.a_trans), ("b_trans", parts.b_trans)) if on)
    what = (f"matmul_acc accumulates a {dims_text((m, n))} product (`{operand_text(parts.lhs, shapes)}` @ "
            f"`{operand_text(parts.rhs, shapes)}`{flags}) into the {dims_text(acc.dims)} accumulator "
            f"`{operand_text(parts.acc, shapes)}`")
    return what, "the product's [M, N] must be the accumulator's shape: it is added in place, element by element"


def _calls(expr: Expr) -> list[Call]:
    """The calls in *expr*, outermost first."""
    return [e for e in walk_exprs(expr) if isinstance(e, Call)]


def dims_text(dims: tuple[Expr, ...]) -> str:
    """`[16, 64]`: a shape as a message shows it."""
    return "[" + ", ".join(expr_text(d) for d in dims) + "]"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2, "/": 2, "**": 3}


def expr_text(expr: Expr, outer: int = 0) -> str:
    """An index expression as the user wrote it, SSA suffixes stripped (`k0 + 64`, `pl.dynamic("T")` as `T`)."""
    if isinstance(expr, Const):
        return repr(expr.value) if isinstance(expr.value, str) else str(expr.value)
    v = var_like(expr)
    if v is not None:
        return display_name(v.name)
    if isinstance(expr, BinOp):
        if expr.op in ("min", "max"):
            return f"{expr.op}({expr_text(expr.lhs)}, {expr_text(expr.rhs)})"
        mine = _PRECEDENCE.get(expr.op, 0)
        text = f"{expr_text(expr.lhs, mine)} {expr.op} {expr_text(expr.rhs, mine + 1)}"
        return f"({text})" if mine < outer else text
    if isinstance(expr, Call):
        if expr.op == "dynamic" and expr.args and isinstance(expr.args[0], Const):
            return str(expr.args[0].value)
        if expr.op == ops.RUNTIME_DIM and len(expr.args) == 3:
            return f"{expr_text(expr.args[0])[1:-1]}.shape[{expr_text(expr.args[1])}]"
        return f"pl.{expr.op}(" + ", ".join(expr_text(a) for a in expr.args) + ")"
    if isinstance(expr, (ListExpr, TupleExpr)):
        return "[" + ", ".join(expr_text(e) for e in expr.items) + "]"
    if isinstance(expr, Sym):
        return f"pl.{expr.path}"
    return "?"


def end_of(offset: Expr, extent: Expr) -> Expr:
    """`offset + extent`, with literal parts folded (`k0 + 64` and `64` give `k0 + 128`)."""
    o, e = ops.const_int(offset), ops.const_int(extent)
    if o is not None and e is not None:
        return Const(o + e)
    if o == 0:
        return extent
    if e == 0:
        return offset
    if e is not None and isinstance(offset, BinOp) and offset.op in ("+", "-") and ops.const_int(offset.rhs) is not None:
        c = ops.const_int(offset.rhs)
        assert c is not None
        total = (c if offset.op == "+" else -c) + e
        if total == 0:
            return offset.lhs
        return BinOp("+", offset.lhs, Const(total)) if total > 0 else BinOp("-", offset.lhs, Const(-total))
    return BinOp("+", offset, extent)


def window_text(base: str, offsets: tuple[Expr, ...], extents: tuple[Expr, ...],
                dims: tuple[Expr, ...] | None = None) -> str:
    """`x[:, k0 + 64 : k0 + 128]`: a window of *base* as a slice (a whole dimension of *dims* is `:`)."""
    parts = []
    for d, (offset, extent) in enumerate(zip(offsets, extents)):
        whole = dims is not None and d < len(dims) and ops.const_int(offset) == 0 and same_dims((extent,), (dims[d],))
        if whole:
            parts.append(":")
        elif ops.const_int(extent) == 1:
            parts.append(expr_text(offset))
        else:
            lo, hi = expr_text(offset), expr_text(end_of(offset, extent))
            sep = " : " if " " in lo or " " in hi else ":"
            parts.append(f"{lo}{sep}{hi}")
    return f"{base}[{', '.join(parts)}]"


def operand_text(expr: Expr, shapes: Shapes | None = None) -> str:
    """An operand as the user wrote it: a name, the slice it was read by (`x[:, k0:k0 + 64]`), or the op
    that computed it inline (`pl.tensor.cast(...)`)."""
    v = var_like(expr)
    if v is not None:
        stmt = shapes.defs.get(v.name) if shapes is not None else None
        if stmt is not None and isinstance(stmt.value, Call) and stmt.value.op in (ops.T_SLICE, ops.TILE_SLICE) \
                and stmt.type is None and "__slice" in v.name:
            return slice_text(stmt.value, shapes)
        return display_name(v.name)
    if isinstance(expr, Call):
        if expr.op in (ops.T_SLICE, ops.TILE_SLICE):
            return slice_text(expr, shapes)
        return f"pl.{expr.op}(...)"
    return "?"


def slice_text(call: Call, shapes: Shapes | None) -> str:
    """A `slice(src, shape, offsets)` call as the subscript it was read from."""
    args = call.args
    base = var_like(args[0]) if args else None
    shape = _shape_list(args[1]) if len(args) > 1 else None
    offsets = _shape_list(args[2]) if len(args) > 2 else None
    if base is None or shape is None or offsets is None or len(shape) != len(offsets):
        return f"pl.{call.op}(...)"
    source = shapes.of(base) if shapes is not None else None
    return window_text(display_name(base.name), offsets, shape, source.dims if source is not None else None)
