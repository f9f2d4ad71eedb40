"""Give every tile and tensor a buffer: a fresh `tile.alloc` root per value, except where a value must
share its source's buffer.

Mirrors PyPTO 31 InitMemRef (TARGET_FACTS.md, "The compiler passes" 4). Requires: tile IR with every
tile's memory space set (InferTileMemorySpace), static tile shapes, no MemRefs. Leaves: every tile
and tensor value typed with a MemRef; `mem_<space>_<N>: pl.Ptr = pl.tile.alloc(pl.Mem.<Space>, bytes)`
for each on-chip root at the top of the function, in creation order.

Sharing rules, as the real pass applies them:
- a view (`ops.is_view`: the `VIEW_OPS`, and a `tile.slice`) shares its input's MemRef (for a slice
  PyPTO makes a MemRef on the same base at the slice's byte offset; the whole source MemRef is its
  envelope, so a write anywhere on the source's buffer counts as a write under the slice); an in-place op (`ops.inplace_input`:
  `matmul_acc` arg 0, `assemble` dst) shares its input's; `tile.store`'s result shares its tensor;
- an identity copy `a = b` shares `b`'s;
- an iter_arg lives where its init lives, and the loop's return var takes the iter_arg's MemRef;
- an if's return var takes the then-arm yield's MemRef (the else arm's when the then arm has none).

Numbering: one counter per function, consumed in visiting order by every tile or tensor value that
gets a fresh MemRef, including each loop / if return var (which PyPTO creates and then replaces by
the shared one): parameters first (`"mem_ddr_0"`...), then the body. So `mem_acc_3` is the fourth
buffer the real compiler would have created, and the printed names match real-ir 32.

With `misses_iter_args` (legacy) the real pass's exact-`Var` tests are kept (an IterArg is not matched as
an identity-copy source nor as a then-arm yield): UNSOUND, the IterArg blind spot (TARGET_FACTS.md, "The
defects").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, cast

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Expr, For, Function, If, MemRef, MemSpace, Module, Scope, Stmt, TensorType, TileType,
    Type, Var, map_functions, var_like, replace,
)
from pypto_verify.lowering.memory.memrefs import (
    alloc_stmt, base_name, yield_values, is_alloc, memref_of_type, with_memref,
)
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError, Pass
from pypto_verify.rules import INPUT_ERROR
from pypto_verify.target import Target

STORE_TENSOR_ARG = 2
"""`tile.store(tile, offsets, tensor)`: the result is the stored-to tensor (output reuses input 2)."""


def run(module: Module, options: LowerOptions) -> Module:
    return map_functions(module, lambda fn: init_memref(fn, options))


def init_memref(fn: Function, options: LowerOptions) -> Function:
    """*fn* with a MemRef on every tile and tensor value and its alloc roots prepended."""
    state = _State(options.target, options.behaviours.misses_iter_args)
    params = tuple(replace(p, type=state.fresh_typed(p.name, p.type, p.span)) for p in fn.params)
    for p in params:
        state.types[p.name] = p.type
    body = state.body(tuple(s for s in fn.body if not is_alloc(s)))
    allocs = tuple(alloc_stmt(base, space, size) for base, space, size in state.roots if space is not MemSpace.DDR)
    return replace(fn, params=params, body=allocs + body)


@dataclass
class _State:
    target: Target
    misses_iter_args: bool
    types: dict[str, Type | None] = field(default_factory=dict)
    roots: list[tuple[str, MemSpace, int]] = field(default_factory=list)
    next_id: int = 0

    # ------------------------------------------------------------------------------------------ MemRefs

    def skip_id(self) -> None:
        """PyPTO creates a return var's MemRef, then replaces it by the shared one: the id is spent."""
        self.next_id += 1

    def fresh(self, name: str, t: Type, span) -> MemRef:
        """A new root for a value of type *t* (PyPTO CreateMemRef); consumes one id."""
        if isinstance(t, TileType):
            space = t.space or MemSpace.DDR
            shape = ops.static_shape(t.shape)
            if shape is None:
                raise LoweringError(INPUT_ERROR.id, span, f"tile `{name}` has a dynamic shape; PyPTO gives a tile "
                                    "compile-time dimensions only (tile.create, InitMemRef): allocate the bound and "
                                    "put the run-time extent in valid_shape")
            size = self.target.tile_bytes(shape, t.dtype, space)
        else:
            assert isinstance(t, TensorType)
            space = MemSpace.DDR
            shape = ops.static_shape(t.shape)
            size = 0 if shape is None else _product(shape) * t.dtype.bytes
        base = base_name(space, self.next_id)
        self.next_id += 1
        self.roots.append((base, space, size))
        return MemRef(base, 0, size, quoted=space is MemSpace.DDR)

    def fresh_typed(self, name: str, t: Type | None, span) -> Type | None:
        if isinstance(t, (TileType, TensorType)):
            return with_memref(t, self.fresh(name, t, span))
        return t

    def memref(self, expr: Expr | None) -> MemRef | None:
        v = var_like(expr)
        return memref_of_type(self.types.get(v.name)) if v is not None else None

    def exact_var(self, expr: Expr | None) -> Var | None:
        # UNSOUND (legacy): PyPTO's `As<Var>` does not match an IterArg (TARGET_FACTS.md, IterArg blind spot)
        if self.misses_iter_args:
            return expr if type(expr) is Var else None
        return var_like(expr)

    # ------------------------------------------------------------------------------------------ statements

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return tuple(self.stmt(s) for s in body)

    def stmt(self, stmt: Stmt) -> Stmt:
        if isinstance(stmt, Assign):
            return self.assign(stmt)
        if isinstance(stmt, For):
            return self.loop(stmt)
        if isinstance(stmt, If):
            return self.branch(stmt)
        if isinstance(stmt, Scope):
            return replace(stmt, body=self.body(stmt.body))
        return stmt

    def assign(self, stmt: Assign) -> Assign:
        name = stmt.target.name
        t = stmt.type if stmt.type is not None else self.inferred(stmt.value)
        if not isinstance(t, (TileType, TensorType)):
            self.types[name] = t
            return stmt
        shared = self.shared_memref(stmt.value)
        new_t = with_memref(t, shared) if shared is not None else self.fresh_typed(name, t, stmt.span)
        self.types[name] = new_t
        return replace(stmt, type=new_t)

    def shared_memref(self, value: Expr) -> MemRef | None:
        """The MemRef a value must share with one of its operands, if any."""
        if isinstance(value, Call):
            operand = var_like(value.args[0]) if value.args else None
            if operand is not None and ops.is_view(value, self.types.get(operand.name)):
                shared = self.memref(value.args[0])
                if shared is not None:
                    return shared
            source = ops.inplace_input(value)
            if source is None and value.op == ops.STORE and len(value.args) > STORE_TENSOR_ARG:
                source = value.args[STORE_TENSOR_ARG]
            if source is not None:
                return self.memref(source)
            return None
        return self.memref(self.exact_var(value))

    def inferred(self, value: Expr) -> Type | None:
        # the type rules read their operands with `env.get`, which finds an unknown type as None either
        # way: the table is passed as it is (a filtered copy per statement made long bodies quadratic)
        env = cast("dict[str, Type]", self.types)
        if isinstance(value, Call):
            return ops.infer_call_type(value, env)
        v = var_like(value)
        return env.get(v.name) if v is not None else None

    def loop(self, stmt: For) -> For:
        for arg, init in zip(stmt.iter_args, stmt.inits):
            v = var_like(init)
            self.types[arg.name] = self.types.get(v.name) if v is not None else None
        body = self.body(stmt.body)
        yielded = yield_values(body)
        return_types = []
        for i, rv in enumerate(stmt.return_vars):
            declared = stmt.return_types[i] if i < len(stmt.return_types) else None
            t = declared if declared is not None else self.yield_type(yielded, i)
            if not isinstance(t, (TileType, TensorType)):
                self.types[rv.name] = t
                return_types.append(declared)
                continue
            self.skip_id()
            carried = self.memref(stmt.iter_args[i]) if i < len(stmt.iter_args) else None
            new_t = with_memref(t, carried) if carried is not None else t
            self.types[rv.name] = new_t
            return_types.append(self.explicit(declared, new_t, yielded, i))
        return replace(stmt, body=body, return_types=tuple(return_types))

    def branch(self, stmt: If) -> If:
        then_body = self.body(stmt.then_body)
        else_body = self.body(stmt.else_body)
        arms = (yield_values(then_body), yield_values(else_body))
        return_types = []
        for i, rv in enumerate(stmt.return_vars):
            declared = stmt.return_types[i] if i < len(stmt.return_types) else None
            t = declared if declared is not None else (self.yield_type(arms[0], i) or self.yield_type(arms[1], i))
            if not isinstance(t, (TileType, TensorType)):
                self.types[rv.name] = t
                return_types.append(declared)
                continue
            self.skip_id()
            source = self.exact_var(arms[0][i]) if i < len(arms[0]) else None
            if source is None and i < len(arms[1]):
                source = self.exact_var(arms[1][i])
            shared = self.memref(source)
            new_t = with_memref(t, shared) if shared is not None else t
            self.types[rv.name] = new_t
            return_types.append(self.explicit(declared, new_t, arms[0], i))
        return replace(stmt, then_body=then_body, else_body=else_body, return_types=tuple(return_types))

    def yield_type(self, values: tuple[Expr, ...], i: int) -> Type | None:
        if i >= len(values):
            return None
        v = var_like(values[i])
        return self.types.get(v.name) if v is not None else None

    def explicit(self, declared: Type | None, new_t: Type, yielded: tuple[Expr, ...], i: int) -> Type | None:
        """Keep an implicit return type implicit when the yielded value's type already says it."""
        if declared is None and self.yield_type(yielded, i) == new_t:
            return None
        return new_t


def _product(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


PASS: Final = Pass("init-memref", run, mirrors="PyPTO 31 InitMemRef")
