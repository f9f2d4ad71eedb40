"""Lower tensor-level (Form 1) ops to tile ops: slices become loads, matmuls become cube ops, slice
stores and `assemble`s become `tile.store`s.

Mirrors PyPTO 10 ConvertTensorToTileOps (with the 3-D operand part of 13 FlattenTileNdTo2D), without
outlining: `with pl.at(...)` scopes stay as `Scope` (transparent) and no orchestration function is made;
what outlining decides about memory is mirrored instead (`incore_scopes`: a tensor made, sliced, viewed
or written at orchestration level is GM).
Requires: SSA IR after `simplify`. Leaves: calls nested in other calls' operands hoisted into their own
assignments first (`flatten_calls`, PyPTO 06 FlattenCallExpr); no `tensor.*` op on a tile value; GM tensors (parameters,
`pl.create_tensor` results used as GM, and their rebindings) stay tensors; every converted `Assign` is
annotated with its tile type. Spaces: `Mat` for loads feeding the cube, `Vec` for other loads, for
`tile.create` (InferTileMemorySpace turns an accumulator's create into Acc, as the real compiler does)
and for vector ops; `Acc` for matmul results. Functions without tensor ops are returned unchanged.

The conversions (docs/ir-conventions.md names the tensor-level forms):

| tensor level | tile level |
|---|---|
| `t = tensor.create([M, N], dtype=D)` (not used as GM) | `t = tile.create([M, N], dtype=D, target_memory=Vec)` |
| `x = tensor.slice(g, shape, offsets[, valid_shape=V])`, `g` in GM | `x = tile.load(g, offsets, shape, V or shape, target_memory=Mat or Vec)`, its tile type's valid shape V |
| `x = tensor.slice(v, shape, offsets[, valid_shape=V])`, `v` a tile (a local create, or a computed value) | `x = tile.slice(v, shape, offsets[, valid_shape=V])` in `v`'s space |
| `c = tensor.matmul(a, b, b_trans=True, ...)` | `b_t = tile.transpose_view(b)`; `c = tile.matmul(a, b_t)` |
| `c = tensor.matmul_acc(acc, a, b, init_cond=P)` | `c = tile.matmul_acc(acc, a, b, init_cond=P)` |
| `c = tensor.matmul_bias(a, b, bias)` | `c = tile.matmul_bias(a, b, bias)` |
| `y = tensor.assemble(y, v, offsets[, atomic=...])`, `v` a tile | `y = tile.store(v, offsets, y[, atomic=...])` (a statement `pl.assemble(...)` stays a statement) |
| `z = tensor.cast(v, ...)`, `tensor.X(...)` on tiles | `z = tile.cast(v, ...)`, `tile.X(...)` in Vec (opaque) |
| `z = tensor.full([M, N], dtype=D, value=v)` | `z = tile.full([M, N], dtype=D, value=v)` in Vec |
| `z = tensor.reshape(v, shape)` that only drops unit dims | `z` is `v` (no statement) |
| `b = tensor.create_l1([M, N], D)` | `b = tile.create([M, N], dtype=D, target_memory=Mat)` |
| `b = tensor.gather_row(b, g, dst_offsets, src_offsets, shape[, valid_shape=])`, `g` in GM | `b = tile.gather_row(...)` (the same operands; in place on `b`) |
| `m = tensor.mrgsort(a, b[, c, d])` (format 2: 2-4 sorted runs) | `mrgsort2_tmp = tile.create([.., Wa + Wb ..], dtype=a's, target_memory=Vec)`; `m = tile.mrgsort(a, b[, c, d], mrgsort2_tmp)` of the workspace's shape |
| `c = tensor.cmp(x, s, cmp_type=k)` (`s` a scalar; a tile of x's shape and dtype: `tile.cmp`) | `c__cmp_mask = tile.cmps(x, s, cmp_type=k)` (UINT8 packed predicate, `ops.packed_mask_type`); `c__cmp_one` / `c__cmp_zero = tile.full(x's shape, value=1 / 0)`; `c__cmp_tmp = tile.create([1, 32], dtype=UINT8)`; `c = tile.sel(c__cmp_mask, c__cmp_one, c__cmp_zero, c__cmp_tmp)` |

What stays GM: parameters, `tensor.create`s used as GM (assembled into, sliced, read, returned, passed to
a call or to `pl.spmd_submit`) and their views, rebindings, carries and phis; in a function with InCore
scopes, every `tensor.create`, `tensor.slice`, view and `tensor.assemble` at orchestration level (outside
every scope: `incore_scopes.orchestration_names`); the results of calls and of `pl.spmd_submit`, and the
items of such a tuple result (`tensor.getitem`). A *computed* value — the result of a vector or cube
op (`qf = pl.mul(pl.cast(acc, ...), s)`), and a slice or view of one — is a tile even when it is sliced or read
afterwards: its slices are `tile.slice(v, shape, offsets)` (PyPTO's name and operand order: the tile, the static shape
list, the offset list) and its reads `tile.read`. A `tile.slice` is a view (`ops.is_view`, as in PyPTO, where it
is a `pto.subview` on the source's buffer): it takes no buffer of its own and moves no data, and a
write to its source's buffer while it is live clobbers it (PV004).

Transposed operands (`a_trans` / `b_trans`) follow the real compiler: a zero-copy
`tile.transpose_view` of the natural Mat load, placed right before the cube op, and the tile op carries
no transpose flag — `ops.matmul_parts` of a tile matmul therefore always reads `a_trans = b_trans =
False`; a consumer that needs the layout follows the operand to its `tile.transpose_view`. A GM tensor
used directly as a matmul operand is loaded whole into Mat first (`x__mat`), and one used directly by a
vector op is loaded whole into Vec (`x__tile`).

A window of a run-time shaped parameter (a bare `pl.Tensor` of a `pl.jit` entry, `Param.runtime_shaped`)
that is a MAD operand is typed first (`_pin_runtime_operands`): the slice's shape, the other operand's
dtype (pypto's tile.matmul / matmul_acc require identical lhs and rhs dtypes).

3-D operands (KERNEL_LANGUAGE.md, Shapes): a leading unit dimension is dropped from the tile, never from
the addressing. `w[e : e + 1, :, k0 : k0 + K]` becomes `tile.load(w, [e, 0, k0], [1, N, K], [1, N, K],
target_memory=Mat)` whose result is annotated as the 2-D tile `[N, K]`; a `[1, M, N]` matmul result is
the 2-D Acc tile `[M, N]`, and a store of it into a 3-D tensor keeps the 3-D offsets
(`tile.store(c, [e, 0, 0], y)`). Tile shapes are the tensor shapes with leading unit dims dropped
(`drop_unit_dims`), down to rank 2.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.ops import PREDICATE_COL_ALIGN, packed_mask_type
from pypto_verify.ir import (
    Assign, BinOp, Call, Const, DType, Eval, Expr, For, Function, If, ListExpr, MemSpace, Module, Return,
    Scope, Stmt, Sym, TensorType, TileType, TupleExpr, Type, Var, Yield, display_name, expr_type, map_stmts,
    stmt_exprs, var_like, walk_exprs, walk_stmts, replace,
)

from pypto_verify.lowering._pass_util import (
    Namer, drop_unit_dims, yield_values, infer_env, map_kernel_functions, subst_expr,
    subst_stmt_own,
)
from pypto_verify.lowering.incore_scopes import has_orchestration_level, orchestration_names
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass

_SELF_LOADING = (ops.T_SLICE, ops.T_ASSEMBLE, ops.T_READ)
"""Tensor ops that address a GM tensor themselves: their first operand stays a tensor."""
_MAKERS = ("tensor.full",)
"""Tensor ops that make a value from a shape and a dtype alone (`pl.full([M, N], dtype=D, value=v)`)."""
_SUBMITS = ("tensor.spmd_submit",)
"""Tensor-level calls that run a kernel given by reference: their tensor arguments and results are GM."""
_GETITEM = "tensor.getitem"
"""An item of a tuple result (`a, tid = pl.spmd_submit(...)`): an item of a GM tuple is GM."""
_VIEWS = (ops.T_RESHAPE, "tensor.view")
"""Tensor ops whose result is a view of their operand (a GM view of a GM tensor stays GM)."""


def convert_tensor_to_tile_ops(module: Module, options: LowerOptions) -> Module:
    """Convert every function's tensor-level ops to tile ops (functions without any are unchanged)."""
    return map_kernel_functions(module, _convert_function)


def _convert_function(fn: Function) -> Function:
    if not any(isinstance(e, Call) and e.op.startswith("tensor.")
               for s in walk_stmts(fn.body) for top in stmt_exprs(s) for e in walk_exprs(top)):
        return fn  # (a `return pl.add(x, 1.0)` holds a tensor op too)
    fn = flatten_calls(fn)
    env = infer_env(fn)
    while (pinned := _pin_runtime_operands(fn, env)) is not fn:  # a pinned window may type another's partner
        fn, env = pinned, infer_env(pinned)
    gm = _gm_names(fn, env)
    converter = _Converter(fn, env, gm, _cube_operands(fn), Namer(fn))
    return replace(fn, body=converter.body(fn.body))


def _pin_runtime_operands(fn: Function, env: dict[str, Type]) -> Function:
    """Type each window `x[a:b, c:d]` of a run-time shaped parameter (`Param.runtime_shaped`: its extents,
    rank and dtype are those of the tensor passed) that is a MAD operand: the window's shape is the slice's
    own, its rank taken as the parameter's (the condition PV107 states on it, `smt/bounds.py`), and its
    dtype the other operand's — pypto's tile.matmul and matmul_acc require identical lhs and rhs dtypes, so
    no other dtype compiles. Left untyped (PV000 at the load) when the other operands' dtypes are unknown
    or differ."""
    runtime = {p.name for p in fn.params if p.runtime_shaped}
    if not runtime:
        return fn
    windows: dict[str, tuple[Expr, ...]] = {}
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and stmt.type is None and stmt.target.name not in env \
                and isinstance(stmt.value, Call) and stmt.value.op == ops.T_SLICE and len(stmt.value.args) >= 3 \
                and _named(stmt.value.args[0]) in runtime and isinstance(stmt.value.args[1], ListExpr):
            windows[stmt.target.name] = tuple(stmt.value.args[1].items)
    dtypes: dict[str, set[DType | None]] = {}
    for stmt in walk_stmts(fn.body):
        if not (isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in ops.TENSOR_MADS):
            continue
        parts = ops.matmul_parts(stmt.value)
        for operand, other in ((parts.lhs, parts.rhs), (parts.rhs, parts.lhs)):
            name = _named(operand)
            if name in windows:
                t = expr_type(other, env)
                dtypes.setdefault(name, set()).add(t.dtype if isinstance(t, (TensorType, TileType)) else None)
    pinned = {name: TensorType(windows[name], dtype) for name, found in dtypes.items()
              if len(found) == 1 and (dtype := next(iter(found))) is not None}
    if not pinned:
        return fn

    def pin(stmt: Stmt) -> tuple[Stmt, ...] | None:
        if isinstance(stmt, Assign) and stmt.target.name in pinned:
            return (replace(stmt, type=pinned[stmt.target.name]),)
        return None

    return replace(fn, body=map_stmts(fn.body, pin))


def _stmt_calls(stmt: Stmt) -> list[Expr]:
    if isinstance(stmt, (Assign, Eval)):
        return list(walk_exprs(stmt.value))
    return []


# ---------------------------------------------------------------------------------------------- flattening


def flatten_calls(fn: Function) -> Function:
    """*fn* with every call nested in another call's operands hoisted into its own `Assign` just
    before the statement, innermost first (PyPTO 06 FlattenCallExpr): `y = pl.add(pl.cast(c), b)`
    becomes `y__cast = tensor.cast(c)`, `y = tensor.add(y__cast, b)`. Applies to the values of
    assignments, expression statements, yields and returns."""
    namer = Namer(fn)

    def hoist(call: Call, base: str, out: list[Stmt], span) -> Call:
        args = []
        for arg in call.args:
            args.append(hoist_operand(arg, base, out, span))
        kwargs = tuple((k, hoist_operand(v, base, out, span)) for k, v in call.kwargs)
        if all(a is b for a, b in zip(args, call.args)) and all(a is b for (_, a), (_, b) in zip(kwargs, call.kwargs)):
            return call  # nothing nested: the call as it is
        return replace(call, args=tuple(args), kwargs=kwargs)

    def hoist_operand(expr: Expr, base: str, out: list[Stmt], span) -> Expr:
        if not isinstance(expr, Call):
            return expr
        inner = hoist(expr, base, out, span)
        name = namer.fresh(f"{base}__{inner.op.rsplit('.', 1)[-1]}")
        out.append(Assign(Var(name, span=span), inner, span=span))
        return Var(name, span=span)

    def flatten(stmt: Stmt) -> tuple[Stmt, ...] | None:
        """*stmt* preceded by the assignments of the calls hoisted out of it (None: nothing to hoist)."""
        out: list[Stmt] = []
        if isinstance(stmt, (Assign, Eval)) and isinstance(stmt.value, Call):
            base = display_name(stmt.target.name) if isinstance(stmt, Assign) else "value"
            value = hoist(stmt.value, base, out, stmt.span)
            if value is stmt.value:
                return None
            out.append(replace(stmt, value=value))
            return tuple(out)
        if isinstance(stmt, (Yield, Return)) and any(isinstance(v, Call) for v in stmt.values):
            values = tuple(hoist_operand(v, "value", out, stmt.span) for v in stmt.values)
            out.append(replace(stmt, values=values))
            return tuple(out)
        return None

    return replace(fn, body=map_stmts(fn.body, flatten))


# ---------------------------------------------------------------------------------------------- analysis


def _gm_names(fn: Function, env: dict[str, Type]) -> set[str]:
    """The tensor names that stay GM tensors: parameters, creates used as GM (assembled into, sliced,
    read, returned, passed to a call), what is made, sliced, viewed or assembled at orchestration level,
    call and submit results, their views, and carries / phis of them (module docstring)."""
    gm = {p.name for p in fn.params if isinstance(p.type, TensorType)}
    used_as_gm: set[str] = set()
    computed: set[str] = set()
    for stmt in walk_stmts(fn.body):
        # the result of a call to another function (a helper the frontend did not inline, a submitted
        # kernel) is a GM tensor
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and _calls_function(stmt.value):
            used_as_gm.add(stmt.target.name)
        elif isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.getitem" \
                and (holder := var_like(stmt.value.args[0])) is not None and holder.name in used_as_gm:
            used_as_gm.add(stmt.target.name)  # an item of such a call's tuple result (`a, b = f(x, a, b)`)
        elif isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op.startswith("tensor.") \
                and stmt.value.op not in (ops.T_CREATE, ops.T_SLICE, ops.T_ASSEMBLE, *_VIEWS):
            computed.add(stmt.target.name)
        elif isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in (ops.T_SLICE, *_VIEWS) \
                and stmt.value.args and _named(stmt.value.args[0]) in computed:
            computed.add(stmt.target.name)  # a slice or view of a computed value is a tile (`tile.slice`) too
    orchestration = orchestration_names(fn)
    for stmt in walk_stmts(fn.body):
        # a tensor made, viewed or written outside every InCore scope is in GM (`incore_scopes`); a
        # slice or view of a computed value stays the tile it is (module docstring)
        if isinstance(stmt, Assign) and stmt.target.name in orchestration and isinstance(stmt.value, Call) \
                and stmt.value.op in (ops.T_CREATE, ops.T_SLICE, ops.T_ASSEMBLE, *_VIEWS) \
                and not (stmt.value.args and stmt.value.op != ops.T_CREATE and _named(stmt.value.args[0]) in computed):
            used_as_gm.add(stmt.target.name)
        if isinstance(stmt, Return):
            # a computed value returned by a function that is one InCore region stays the tile it is: PyPTO 10
            # stores it to an output it adds (its exit store), so it never was a GM tensor (the simulation
            # splices a callee and hands what it returns back through GM, `emit/pto.py`)
            whole = not has_orchestration_level(fn)
            used_as_gm.update(v.name for v in map(var_like, stmt.values)
                              if v is not None and not (whole and v.name in computed))
        for call in (c for c in _stmt_calls(stmt) if isinstance(c, Call)):
            if call.op in _SELF_LOADING and call.args and (first_var := var_like(call.args[0])) is not None:
                source = first_var.name
                # a computed value (a vector / cube op's result) that is sliced or read stays a tile:
                # its slices are `tile.slice`s of it, its reads `tile.read`s (module docstring)
                if not (source in computed and call.op in (ops.T_SLICE, ops.T_READ)):
                    used_as_gm.add(source)
            elif _calls_function(call):
                used_as_gm.update(v.name for v in map(var_like, call.args) if v is not None)
            if call.op == ops.T_GATHER_ROW and len(call.args) > 1 and (pool := var_like(call.args[1])) is not None:
                used_as_gm.add(pool.name)  # a gather_row DMAs from GM
            # an explicit `pl.load(t, ...)` reads, and `pl.store(v, offsets, t)` writes, the GM tensor `t` (a
            # workspace the kernel creates, of a run-time size: PyPTO types it a tensor, never a tile)
            if call.op == ops.LOAD and call.args and (src := var_like(call.args[0])) is not None:
                used_as_gm.add(src.name)
            if call.op in (ops.STORE, "tensor.store") and len(call.args) > 2 \
                    and (dst := var_like(call.args[2])) is not None:
                used_as_gm.add(dst.name)
    changed = True
    while changed:
        changed = False
        for stmt in walk_stmts(fn.body):
            new: set[str] = set()
            if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
                call = stmt.value
                first = var_like(call.args[0]) if call.args else None
                if stmt.target.name in used_as_gm and not call.op.startswith("tile."):
                    new.add(stmt.target.name)
                elif call.op in (ops.T_ASSEMBLE, *_VIEWS, _GETITEM) and first is not None and first.name in gm:
                    new.add(stmt.target.name)
            elif isinstance(stmt, Assign) and (copied := var_like(stmt.value)) is not None:
                if copied.name in gm:
                    new.add(stmt.target.name)
            elif isinstance(stmt, For):
                yielded = yield_values(stmt.body)
                for i, (arg, init) in enumerate(zip(stmt.iter_args, stmt.inits)):
                    if _named(init) in gm or (i < len(yielded) and _named(yielded[i]) in gm):
                        new.update((arg.name, stmt.return_vars[i].name))
            elif isinstance(stmt, If):
                for arm in (stmt.then_body, stmt.else_body):
                    for rv, value in zip(stmt.return_vars, yield_values(arm)):
                        if _named(value) in gm:
                            new.add(rv.name)
            if not new <= gm:
                gm |= new
                changed = True
    return gm


def _calls_function(call: Call) -> bool:
    """True when *call* runs another function: a call the frontend did not inline, or a kernel submitted
    by reference (`pl.spmd_submit(self.k, ...)`, `pl.submit(...)`)."""
    if not call.op.startswith(("tensor.", "tile.")):
        return True
    return call.op in _SUBMITS


def _named(expr: Expr) -> str | None:
    v = var_like(expr)
    return v.name if v is not None else None


def _cube_operands(fn: Function) -> set[str]:
    """Names read as a matmul's lhs, rhs or bias (their loads go to Mat), through views of them."""
    names: set[str] = set()
    views: dict[str, str] = {}
    for stmt in walk_stmts(fn.body):
        if not (isinstance(stmt, Assign) and isinstance(stmt.value, Call)):
            continue
        call = stmt.value
        if call.op in ops.TENSOR_MADS:
            parts = ops.matmul_parts(call)
            names.update(n for n in (_named(parts.lhs), _named(parts.rhs),
                                     _named(parts.bias) if parts.bias is not None else None) if n)
        elif call.op in _VIEWS and call.args and (viewed := _named(call.args[0])):
            views[stmt.target.name] = viewed
    frontier = list(names)
    while frontier:
        source = views.get(frontier.pop())
        if source is not None and source not in names:
            names.add(source)
            frontier.append(source)
    return names


# ---------------------------------------------------------------------------------------------- rewriting


def _valid_dims(valid: Expr | None, shape: tuple[Expr, ...], dims: tuple[Expr, ...]) -> tuple[Expr, ...] | None:
    """A slice's `valid_shape=` as its tile's valid shape (the leading unit dims *dims* dropped from *shape*
    dropped from it too); None when it is absent or the whole window."""
    if not isinstance(valid, (ListExpr, TupleExpr)) or len(valid.items) != len(shape):
        return None
    items = tuple(valid.items)[len(shape) - len(dims):]
    return None if items == tuple(dims) else items


def _mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


def _dtype(dtype: DType) -> Sym:
    return Sym(dtype.value)


class _Converter:
    def __init__(self, fn: Function, env: dict[str, Type], gm: set[str], cube: set[str], namer: Namer) -> None:
        self.fn = fn
        self.env = env
        """tensor-level types of the input"""
        self.gm = gm
        self.cube = cube
        self.namer = namer
        self.types: dict[str, Type] = dict(env)
        """types after conversion (tile types for converted names)"""
        self.alias: dict[str, Expr] = {}
        """names that became another value (a no-op reshape)"""

    # ------------------------------------------------------------------ helpers

    def tile(self, expr: Expr) -> TileType | None:
        t = expr_type(expr, self.types)
        return t if isinstance(t, TileType) else None

    def is_gm(self, expr: Expr) -> bool:
        return self.gm_var(expr) is not None

    def gm_var(self, expr: Expr) -> Var | None:
        """*expr* when it names a GM tensor, else None."""
        v = var_like(expr)
        return v if v is not None and v.name in self.gm and isinstance(self.types.get(v.name), TensorType) else None

    def assign(self, out: list[Stmt], name: str, value: Call, t: Type, span) -> Var:
        out.append(Assign(Var(name, span=span), value, t, span=span))
        self.types[name] = t
        return Var(name, span=span)

    def whole_load(self, out: list[Stmt], v: Var, space: MemSpace, suffix: str, span) -> Var:
        """A load of the whole GM tensor *v* into *space* (a param used directly by a tile op)."""
        t = self.types[v.name]
        assert isinstance(t, TensorType)
        zeros = ListExpr(tuple(Const(0) for _ in t.shape))
        shape = ListExpr(tuple(t.shape))
        call = Call(ops.LOAD, (v, zeros, shape, shape), (("target_memory", _mem(space)),), span=span)
        name = self.namer.fresh(f"{display_name(v.name)}__{suffix}")
        return self.assign(out, name, call, TileType(drop_unit_dims(t.shape), t.dtype, space), span)

    # ------------------------------------------------------------------ bodies

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        out: list[Stmt] = []
        for stmt in body:
            self.stmt(stmt, out)
        return tuple(out)

    def stmt(self, stmt: Stmt, out: list[Stmt]) -> None:
        stmt = subst_stmt_own(stmt, self.alias)
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op.startswith("tensor."):
            self.tensor_assign(stmt, stmt.value, out)
        elif isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op.startswith("tensor."):
            self.tensor_eval(stmt, stmt.value, out)
        elif isinstance(stmt, Assign):
            t = stmt.type or self.env.get(stmt.target.name)
            src = self.tile(stmt.value) if var_like(stmt.value) is not None else None
            if src is not None:
                t = src
                stmt = replace(stmt, type=src)
            if t is not None:
                self.types[stmt.target.name] = t
            out.append(stmt)
        elif isinstance(stmt, For):
            out.append(self.loop(stmt))
        elif isinstance(stmt, If):
            out.append(self.branch(stmt))
        elif isinstance(stmt, Scope):
            out.append(replace(stmt, body=self.body(stmt.body)))
        else:
            out.append(stmt)

    def loop(self, loop: For) -> For:
        for arg, init in zip(loop.iter_args, loop.inits):
            t = expr_type(init, self.types)
            if t is not None:
                self.types[arg.name] = t
        body = self.body(loop.body)
        return_types = list(loop.return_types)
        for i, (rv, init) in enumerate(zip(loop.return_vars, loop.inits)):
            t = expr_type(init, self.types)
            if isinstance(t, TileType):
                self.types[rv.name] = t
                return_types[i] = t if len(loop.return_vars) == 1 else None
            elif t is not None:
                self.types[rv.name] = t
        return replace(loop, body=body, return_types=tuple(return_types))

    def branch(self, stmt: If) -> If:
        then_body = self.body(stmt.then_body)
        else_body = self.body(stmt.else_body)
        return_types = list(stmt.return_types)
        arms = (yield_values(then_body), yield_values(else_body))
        for i, rv in enumerate(stmt.return_vars):
            t = None
            for values in arms:
                if t is None and i < len(values):
                    t = expr_type(values[i], self.types)
            if isinstance(t, TileType):
                return_types[i] = t if len(stmt.return_vars) == 1 else None
            if t is not None:
                self.types[rv.name] = t
        return replace(stmt, then_body=then_body, else_body=else_body, return_types=tuple(return_types))

    # ------------------------------------------------------------------ tensor ops

    def tensor_assign(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        """*stmt* `= call`, a `tensor.*` op, converted."""
        name, span = stmt.target.name, stmt.span
        if call.op == ops.T_CREATE:
            self.create(stmt, call, out)
        elif call.op == ops.T_SLICE:
            self.slice(stmt, call, out)
        elif call.op in ops.TENSOR_MADS:
            self.mad(stmt, call, out)
        elif call.op == ops.T_ASSEMBLE:
            self.assemble(stmt, call, out)
        elif call.op in _VIEWS and call.args and self.tile(call.args[0]) is not None:
            self.reshape(stmt, call, out)
        elif call.op in _MAKERS and name not in self.gm:
            shape = call.args[0].items if call.args and isinstance(call.args[0], ListExpr) else None
            dtype = ops.dtype_of_sym(call.kwarg("dtype"))
            if shape is None or dtype is None:
                out.append(stmt)
                return
            self.assign(out, name, replace(call, op="tile." + call.op.split(".", 1)[1]),
                        TileType(drop_unit_dims(tuple(shape)), dtype, MemSpace.Vec), span)
        elif call.op == ops.T_CREATE_L1 and name not in self.gm:
            self.create_l1(stmt, call, out)
        elif call.op == ops.T_GATHER_ROW and call.args and self.tile(call.args[0]) is not None:
            acc = self.tile(call.args[0])
            assert acc is not None
            self.assign(out, name, replace(call, op=ops.GATHER_ROW), replace(acc, memref=None), span)
        elif call.op == ops.T_READ and call.args and self.tile(call.args[0]) is not None:
            out.append(replace(stmt, value=replace(call, op="tile.read")))
        elif call.op == "tensor.mrgsort" and len(call.args) > 1 and name not in self.gm:
            self.merge(stmt, call, out)
        elif call.op == "tensor.cmp" and len(call.args) == 2 and name not in self.gm:
            self.compare(stmt, call, out)
        elif self._converts(call, name):
            new_call = self.opaque_call(call, out, span)
            # the tile op's own inferred type first: it is what the frontend checks the annotation against
            result = ops.infer_call_type(new_call, self.types)
            t = self.env.get(name)
            if not isinstance(result, TileType) and isinstance(t, TensorType):
                result = TileType(drop_unit_dims(t.shape), t.dtype, MemSpace.Vec)
            out.append(Assign(stmt.target, new_call, result, span=span))
            if result is not None:
                self.types[name] = result
        else:
            if stmt.type is not None or name in self.env:
                self.types[name] = stmt.type or self.env[name]
            out.append(stmt)

    def tensor_eval(self, stmt: Eval, call: Call, out: list[Stmt]) -> None:
        """*stmt*, the `tensor.*` op *call* evaluated for its effect, converted."""
        if call.op == ops.T_ASSEMBLE and len(call.args) > 2 and self.is_gm(call.args[0]) \
                and self.tile(call.args[1]) is not None:
            # `pl.assemble(y, acc, offsets)` written as a statement: the same store, kept as a statement
            dst, src, offsets = call.args[0], call.args[1], call.args[2]
            out.append(replace(stmt, value=Call(ops.STORE, (src, offsets, dst), call.kwargs, span=call.span)))
        elif call.op == "tensor.store" and len(call.args) > 2 and self.is_gm(call.args[2]) \
                and self.tile(call.args[0]) is not None:
            # `pl.store(v, offsets, t)` of a computed value into a GM tensor: the tile store it names
            out.append(replace(stmt, value=replace(call, op=ops.STORE)))
        elif any(self.tile(a) is not None for a in call.args):
            out.append(replace(stmt, value=self.opaque_call(call, out, stmt.span)))
        else:
            out.append(stmt)

    def _converts(self, call: Call, name: str) -> bool:
        """An opaque tensor op is converted when it makes a (non-GM) tensor or reads a tile."""
        if name in self.gm:
            return False
        if any(self.tile(a) is not None for a in call.args):
            return True
        return isinstance(self.env.get(name), TensorType) and call.op not in _VIEWS

    def opaque_call(self, call: Call, out: list[Stmt], span) -> Call:
        """`tensor.X(...)` as `tile.X(...)`: GM tensor operands are loaded whole into Vec first."""
        args: list[Expr] = []
        for arg in call.args:
            if (gm := self.gm_var(arg)) is not None:
                args.append(self.whole_load(out, gm, MemSpace.Vec, "tile", span))
            else:
                args.append(arg)
        return replace(call, op="tile." + call.op.split(".", 1)[1], args=tuple(args))

    def unknown_type(self, source: Expr) -> str:
        """Why *source* has no type, as a clause after its name: a parameter's own reason
        (`Param.untyped`), else the result of a call that was not inlined."""
        v = var_like(source)
        param = next((p for p in self.fn.params if v is not None and p.name == v.name), None)
        if param is not None:
            return f"a parameter that {param.untyped}" if param.untyped else "a parameter of no type"
        return "whose type is unknown (the result of a call that was not inlined)"

    def create(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        name = stmt.target.name
        t = self.env.get(name)
        if name in self.gm or not isinstance(t, TensorType):
            if t is not None:
                self.types[name] = t
            out.append(stmt)
            return
        shape = drop_unit_dims(t.shape)
        kwargs = tuple((k, v) for k, v in call.kwargs if k not in ("dtype", "target_memory"))
        new_call = Call(ops.CREATE, (ListExpr(shape),), (("dtype", _dtype(t.dtype)), *kwargs,
                                                          ("target_memory", _mem(MemSpace.Vec))), span=call.span)
        self.assign(out, name, new_call, TileType(shape, t.dtype, MemSpace.Vec), stmt.span)

    def merge(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        """PyPTO's conversion of `tensor.mrgsort_format2` (its op_conversion_registry.cpp): the runs as Vec tiles, a
        `tile.create` workspace in Vec of the runs' shape with their last dimensions summed (the `vmrgsort4`
        destination the instruction copies the merge from), and `tile.mrgsort(runs..., workspace)` of its shape."""
        merged = self.opaque_call(call, out, stmt.span)
        runs = [self.tile(a) for a in merged.args]
        first = runs[0]
        if first is None or any(r is None or len(r.shape) != len(first.shape) for r in runs):
            out.append(Assign(stmt.target, merged, None, span=stmt.span))
            return
        widths = [r.shape[-1] for r in runs if r is not None]
        known = [ops.const_int(w) for w in widths]
        last: Expr = Const(sum(k for k in known if k is not None)) if None not in known else widths[0]
        if None in known:
            for w in widths[1:]:
                last = BinOp("+", last, w)
        shape = (*first.shape[:-1], last)
        workspace = self.assign(out, self.namer.fresh("mrgsort2_tmp"), Call(ops.CREATE, (ListExpr(shape),), (
            ("dtype", _dtype(first.dtype)), ("target_memory", _mem(MemSpace.Vec))), span=call.span),
            TileType(shape, first.dtype, MemSpace.Vec), stmt.span)
        self.assign(out, stmt.target.name, replace(merged, args=(*merged.args, workspace)),
                    TileType(shape, first.dtype, MemSpace.Vec), stmt.span)

    def compare(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        """PyPTO's conversion of `tensor.cmp` (its op_conversion_registry.cpp, RegisterCmpOps): the packed predicate
        mask `cmp_mask = tile.cmps(lhs, scalar, cmp_type=k)` (`tile.cmp` for a tile rhs of lhs's shape and dtype),
        `cmp_one` / `cmp_zero` `tile.full`s of lhs's shape and dtype, a `[1, 32]` UINT8 `cmp_tmp` workspace, and
        `tile.sel(cmp_mask, cmp_one, cmp_zero, cmp_tmp)`: 1 where the compare holds, else 0. Lhs's dtype is the
        result's (PyPTO promotes it with the rhs's: the same for an FP32 lhs, the emitter's one form); anything
        else stays the opaque `tile.cmp`."""
        span = stmt.span
        converted = self.opaque_call(call, out, span)
        lhs, rhs = converted.args
        lhs_type, rhs_type = self.tile(lhs), self.tile(rhs)
        mask_type = packed_mask_type(lhs_type) if lhs_type is not None else None
        same = rhs_type is not None and lhs_type is not None and rhs_type.dtype is lhs_type.dtype \
            and _same_shape(rhs_type.shape, lhs_type.shape)
        if lhs_type is None or mask_type is None or (rhs_type is not None and not same):
            out.append(Assign(stmt.target, converted, None, span=span))
            return
        name = stmt.target.name
        mask = self.assign(out, self.namer.fresh(f"{display_name(name)}__cmp_mask"), replace(
            converted, op="tile.cmp" if rhs_type is not None else "tile.cmps"), mask_type, span)
        result = TileType(lhs_type.shape, lhs_type.dtype, MemSpace.Vec, valid_shape=lhs_type.valid_shape)
        shape = ListExpr(tuple(lhs_type.shape))
        fills = [self.assign(out, self.namer.fresh(f"{display_name(name)}__cmp_{word}"), Call(
            "tile.full", (shape,), (("dtype", _dtype(lhs_type.dtype)), ("value", Const(value))), span=call.span),
            result, span) for word, value in (("one", 1.0 if lhs_type.dtype.is_float else 1),
                                               ("zero", 0.0 if lhs_type.dtype.is_float else 0))]
        tmp_shape = (Const(1), Const(PREDICATE_COL_ALIGN))
        tmp = self.assign(out, self.namer.fresh(f"{display_name(name)}__cmp_tmp"), Call(ops.CREATE, (
            ListExpr(tmp_shape),), (("dtype", _dtype(DType.UINT8)), ("target_memory", _mem(MemSpace.Vec))),
            span=call.span), TileType(tmp_shape, DType.UINT8, MemSpace.Vec), span)
        self.assign(out, name, Call("tile.sel", (mask, *fills, tmp), span=call.span), result, span)

    def create_l1(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        """PyPTO's conversion of `tensor.create_l1`: a `tile.create` in Mat (L1) of the same shape and dtype."""
        t = self.env.get(stmt.target.name)
        if not isinstance(t, TensorType):
            out.append(stmt)
            return
        shape = drop_unit_dims(t.shape)
        new_call = Call(ops.CREATE, (ListExpr(shape),), (("dtype", _dtype(t.dtype)),
                                                          ("target_memory", _mem(MemSpace.Mat))), span=call.span)
        self.assign(out, stmt.target.name, new_call, TileType(shape, t.dtype, MemSpace.Mat), stmt.span)

    def slice(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        name = stmt.target.name
        source, shape, offsets = call.args[0], call.args[1], call.args[2]
        t = self.env.get(name)
        if t is None and name in self.cube:
            raise LoweringError("PV000", stmt.span, f"`{display_name(name)}` slices `{_shown(source)}`, "
                                f"{self.unknown_type(source)}, so it cannot be loaded as a matmul operand",
                                values=(name,))
        if name in self.gm or not isinstance(t, TensorType):
            if t is not None:
                self.types[name] = t
            out.append(stmt)
            return
        valid_expr = call.args[3] if len(call.args) > 3 else call.kwarg("valid_shape")
        dims = drop_unit_dims(t.shape)
        valid = _valid_dims(valid_expr, t.shape, dims)
        if (src := self.tile(source)) is not None:
            new_call = replace(call, op="tile.slice")
            self.assign(out, name, new_call, TileType(dims, t.dtype, src.space, valid_shape=valid), stmt.span)
            return
        space = MemSpace.Mat if name in self.cube else MemSpace.Vec
        # PyPTO's tensor.slice -> tile.load keeps `valid_shape=`: the load moves only the valid region
        new_call = Call(ops.LOAD, (source, offsets, shape, valid_expr if valid_expr is not None else shape),
                        (("target_memory", _mem(space)),), span=call.span)
        self.assign(out, name, new_call, TileType(dims, t.dtype, space, valid_shape=valid), stmt.span)

    def cube_operand(self, expr: Expr, transpose: bool, out: list[Stmt], span) -> Expr:
        if (gm := self.gm_var(expr)) is not None:
            expr = self.whole_load(out, gm, MemSpace.Mat, "mat", span)
        if transpose:
            src = self.tile(expr)
            if src is None or len(src.shape) != 2:
                shape = "x".join(str(d) for d in src.shape) if src is not None else "unknown"
                raise LoweringError("PV000", span, f"the transposed matmul operand `{_shown(expr)}` has shape "
                                    f"{shape}; only a 2-D operand (or a 3-D one with a leading unit dim) can be "
                                    f"transposed for the cube")
            operand = var_like(expr)
            assert operand is not None, "self.tile() types only names"
            name = self.namer.fresh(f"{operand.name}_t")
            view = TileType((src.shape[1], src.shape[0]), src.dtype, src.space, valid_shape=ops.transposed_valid(src))
            expr = self.assign(out, name, Call(ops.TRANSPOSE_VIEW, (expr,), span=span), view, span)
        return expr

    def mad(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        parts = ops.matmul_parts(call)
        span = stmt.span
        lhs = self.cube_operand(parts.lhs, parts.a_trans, out, span)
        rhs = self.cube_operand(parts.rhs, parts.b_trans, out, span)
        bias = self.cube_operand(parts.bias, False, out, span) if parts.bias is not None else None
        kept = tuple((k, v) for k, v in call.kwargs
                     if k not in ("a_trans", "b_trans", "out_dtype", "init_cond", "bias"))
        lhs_t, rhs_t = self.tile(lhs), self.tile(rhs)
        if lhs_t is None or rhs_t is None:
            operand = parts.lhs if lhs_t is None else parts.rhs
            raise LoweringError("PV000", span, f"the matmul operand `{_shown(operand)}` of "
                                f"`{display_name(stmt.target.name)}` has no known tile type",
                                values=(stmt.target.name,))
        if call.op == ops.T_MATMUL_ACC:
            assert parts.acc is not None, "matmul_parts: a matmul_acc's first operand is its acc"
            acc_t = self.tile(parts.acc)
            if acc_t is None:
                raise LoweringError("PV000", span, f"the accumulator `{_shown(parts.acc)}` of "
                                    f"`{display_name(stmt.target.name)}` is not a tile (a GM tensor or an unknown "
                                    "value)", values=(stmt.target.name,))
            kwargs = kept + ((("init_cond", parts.init_cond),) if parts.init_cond is not None else ())
            new_call = Call(ops.MATMUL_ACC, (parts.acc, lhs, rhs), kwargs, span=call.span)
            result = TileType(acc_t.shape, acc_t.dtype, MemSpace.Acc, valid_shape=acc_t.valid_shape)
        else:
            shape = (lhs_t.shape[0], rhs_t.shape[1])
            result = TileType(shape, ops.acc_dtype(lhs_t.dtype), MemSpace.Acc,
                              valid_shape=ops.product_valid(lhs_t, rhs_t))
            if call.op == ops.T_MATMUL_BIAS:
                assert bias is not None, "matmul_parts: a matmul_bias has its bias (3rd operand or `bias=`)"
                new_call = Call(ops.MATMUL_BIAS, (lhs, rhs, bias), kept, span=call.span)
            else:
                new_call = Call(ops.MATMUL, (lhs, rhs), kept, span=call.span)
        self.assign(out, stmt.target.name, new_call, result, span)

    def assemble(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        dst, src, offsets = call.args[0], call.args[1], call.args[2]
        name = stmt.target.name
        dst_gm = self.gm_var(dst)
        if dst_gm is not None and self.tile(src) is not None:
            new_call = Call(ops.STORE, (src, offsets, dst), call.kwargs, span=call.span)
            t = stmt.type or self.types.get(dst_gm.name)
            out.append(replace(stmt, value=new_call, type=stmt.type))
            if t is not None:
                self.types[name] = t
            return
        dst_t = self.tile(dst)
        if dst_t is not None:
            new_call = replace(call, op=ops.ASSEMBLE)
            self.assign(out, name, new_call, replace(dst_t, memref=None), stmt.span)
            return
        if dst_gm is not None and self.is_gm(src):
            out.append(stmt)
            self.types[name] = self.types[dst_gm.name]
            return
        out.append(stmt)

    def reshape(self, stmt: Assign, call: Call, out: list[Stmt]) -> None:
        src = self.tile(call.args[0])
        assert src is not None, "tensor_assign hands over only a reshape of a tile"
        shape = call.args[1].items if isinstance(call.args[1], ListExpr) else None
        if shape is not None and src is not None and _same_shape(drop_unit_dims(shape), src.shape):
            # A reshape that only adds or drops unit dims is the value itself on a 2-D tile.
            self.alias[stmt.target.name] = subst_expr(call.args[0], self.alias)
            self.types[stmt.target.name] = src
            return
        target = drop_unit_dims(tuple(shape)) if shape is not None else src.shape
        new_call = Call("tile.reshape", (call.args[0], ListExpr(target)), call.kwargs[0:0], span=call.span)
        self.assign(out, stmt.target.name, new_call,
                    TileType(target, src.dtype, src.space, valid_shape=ops.reshaped_valid(src, target)), stmt.span)


def _shown(expr: Expr | None) -> str:
    v = var_like(expr) if expr is not None else None
    return display_name(v.name) if v is not None else "?"


def _same_shape(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    sa, sb = ops.static_shape(tuple(a)), ops.static_shape(tuple(b))
    return sa is not None and sa == sb


PASS: Final = Pass("convert-tensor-to-tile-ops", convert_tensor_to_tile_ops,
                   mirrors="PyPTO 10 ConvertTensorToTileOps")
