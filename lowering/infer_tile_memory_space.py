"""Give every tile a memory space and insert the `tile.move`s its consumers need.

Mirrors PyPTO 17 InferTileMemorySpace (phases 0-3; the loop-invariant Mat residency of phase 4 is not
mirrored). Requires: tile IR (after auto-tile-matmul-l0). Leaves: every tile-typed `Assign` annotated
with a space, `target_memory=` of every `tile.create` / `tile.load` equal to its result's space, the
tile return types of loops and ifs updated, and every constrained operand in a space its op accepts.

Spaces. A value made by a cube op (`tile.matmul*`) is Acc; `tile.extract` / `tile.move` / other ops with
a `target_memory=` produce that space; views (`tile.transpose_view`, `tile.reshape`, `tile.slice`,
`tile.fillpad`) and `tile.assemble` inherit their source's; any other tile op is a vector op in Vec.
Values linked by a loop carry (init, iter_arg, yield, return var), an if-phi (arms, return var), an
identity copy or a view form one class. A class holding a cube result, or read as `matmul_acc`'s
accumulator, is Acc: this is what turns the converter's `tile.create(..., target_memory=Vec)` of an
accumulator into Acc (real-ir/tensor_proj, 11 -> 29). Otherwise a class takes the space of its first
producer with a fixed space, else Mat when it feeds the cube (a MAD operand or a `tile.extract`
source), else the `target_memory=` written on a create / load, else Vec. A value with a fixed producer keeps that producer's space.

Moves (the real pass's input constraints): `tile.matmul` wants (Left, Right), `tile.matmul_acc` (Acc,
Left, Right), `tile.matmul_bias` (Left, Right, Bias), `tile.store` Vec or Acc, and every other tile op
(vector ops) Vec for each tile operand; data movement (`create load extract move assemble alloc`) and
views take anything. An operand in another space gets `x_<Space> = tile.move(x, target_memory=Space)`
right before its consumer, shared by later consumers in the same statement list and the lists nested in
it, never across sibling lists (so each arm of an `if` makes its own, exactly as real-ir/hand_peel/29 and
two_accumulators/29 show).

Acc read by a vector op (`pl.cast(acc)`, `pl.add(acc, ...)`, anything but a store): the real compiler
inserts `acc_Vec = tile.move(acc, target_memory=Vec)`, the cube -> vector boundary that its
ExpandMixedKernel turns into `tpush_to_aiv` / `tpop_from_aic`. We mirror what that boundary is on each
target (TARGET_FACTS.md, "Who may read L0C"):
- a5 (`Target.acc_to_vec`): the same `acc_Vec = tile.move(acc, target_memory=Vec)`, a FIXPIPE Acc -> Vec
  drain.
- a2a3 (no Acc -> Vec path): the transfer goes through GM, so it is written out as the drain it is:
  `acc__gm = tensor.create([M, N], dtype=ACC)`, `acc__gm = tile.store(acc, [0, 0], acc__gm)`,
  `acc_Vec = tile.load(acc__gm, [0, 0], [M, N], target_memory=Vec)`.
Either way the kernel lowers cleanly and the only Acc reader added is a legal FIXPIPE drain.
"""

from __future__ import annotations

from typing import Final

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Const, Eval, Expr, For, Function, If, ListExpr, MemSpace, Module, Scope, Stmt, Sym,
    TensorType, TileType, Type, Var, display_name, var_like, walk_stmts, replace,
)
from pypto_verify.target import Target

from pypto_verify.lowering._pass_util import Namer, yield_values, infer_env, map_kernel_functions
from pypto_verify.lowering.pass_base import LowerOptions, Pass

VIEW_OPS = (ops.TRANSPOSE_VIEW, "tile.reshape", "tile.slice", "tile.fillpad", "tile.set_validshape")
"""Ops whose result lives where their first operand lives."""
UNCONSTRAINED = (ops.CREATE, ops.LOAD, ops.EXTRACT, ops.MOVE, ops.ASSEMBLE, ops.GATHER_ROW, ops.ALLOC, *VIEW_OPS)
"""Tile ops that accept operands in any space."""
RETARGETABLE = (ops.CREATE, ops.LOAD)
"""Producers whose `target_memory=` this pass may rewrite."""
INPUT_SPACES: dict[str, tuple[tuple[MemSpace, ...], ...]] = {
    ops.MATMUL: ((MemSpace.Left,), (MemSpace.Right,)),
    ops.MATMUL_ACC: ((MemSpace.Acc,), (MemSpace.Left,), (MemSpace.Right,)),
    ops.MATMUL_BIAS: ((MemSpace.Left,), (MemSpace.Right,), (MemSpace.Bias,)),
    ops.STORE: ((MemSpace.Vec, MemSpace.Acc),),
}
"""Allowed spaces per positional operand; the first is where a move goes."""


def infer_tile_memory_space(module: Module, options: LowerOptions) -> Module:
    """Assign every tile a space and insert the moves its consumers need."""
    return map_kernel_functions(module, lambda fn: _infer_function(fn, options.target))


def _infer_function(fn: Function, target: Target) -> Function:
    env = infer_env(fn)
    if not any(isinstance(t, TileType) for t in env.values()):
        return fn
    spaces = _Spaces(fn, env).solve()
    rewriter = _Rewriter(env, spaces, Namer(fn), target)
    return replace(fn, body=rewriter.body(fn.body))


# ---------------------------------------------------------------------------------------------- analysis


class _Spaces:
    """Phase 1: union carries, phis, copies and views into classes, then give each value a space."""

    def __init__(self, fn: Function, env: dict[str, Type]) -> None:
        self.fn = fn
        self.env = env
        self.parent: dict[str, str] = {}
        self.fixed: dict[str, MemSpace] = {}
        """values whose producer decides their space"""
        self.written: dict[str, MemSpace] = {}
        """`target_memory=` written on a retargetable producer"""
        self.order: list[str] = []
        """tile values in the order their definitions are visited"""
        self.noted: set[str] = set()
        self.acc_demand: set[str] = set()
        self.cube_demand: set[str] = set()

    def is_tile(self, name: str) -> bool:
        return isinstance(self.env.get(name), TileType)

    def find(self, name: str) -> str:
        root = name
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        self.parent[name] = root
        return root

    def union(self, a: Expr | str | None, b: Expr | str | None) -> None:
        na = a if isinstance(a, str) else _name(a)
        nb = b if isinstance(b, str) else _name(b)
        if na is None or nb is None or not (self.is_tile(na) and self.is_tile(nb)):
            return
        ra, rb = self.find(na), self.find(nb)
        if ra != rb:
            self.parent[rb] = ra

    def solve(self) -> dict[str, MemSpace]:
        for stmt in walk_stmts(self.fn.body):
            self.visit(stmt)
        classes: dict[str, list[str]] = {}
        for name in self.order:
            classes.setdefault(self.find(name), []).append(name)
        spaces: dict[str, MemSpace] = {}
        for members in classes.values():
            space = self.class_space(members)
            for name in members:
                spaces[name] = self.fixed.get(name, space)
        return spaces

    def class_space(self, members: list[str]) -> MemSpace:
        if any(self.fixed.get(n) is MemSpace.Acc or n in self.acc_demand for n in members):
            return MemSpace.Acc
        for n in members:
            if n in self.fixed:
                return self.fixed[n]
        if any(n in self.cube_demand for n in members):
            return MemSpace.Mat
        for n in members:
            if n in self.written:
                return self.written[n]
        return MemSpace.Vec

    def note(self, name: str) -> None:
        # a value may already be in a class before its definition is visited (an enclosing loop's
        # yield unions it first): membership in `parent` does not mean it was noted
        if self.is_tile(name) and name not in self.noted:
            self.noted.add(name)
            self.parent.setdefault(name, name)
            self.order.append(name)

    def visit(self, stmt: Stmt) -> None:
        if isinstance(stmt, Assign):
            name = stmt.target.name
            self.note(name)
            value = stmt.value
            if var_like(value) is not None:
                self.union(name, value)
            elif isinstance(value, Call):
                self.producer(name, value)
            if isinstance(value, Call):
                self.demands(value)
        elif isinstance(stmt, Eval) and isinstance(stmt.value, Call):
            self.demands(stmt.value)
        elif isinstance(stmt, For):
            yielded = yield_values(stmt.body)
            for i, (arg, init, rv) in enumerate(zip(stmt.iter_args, stmt.inits, stmt.return_vars)):
                self.note(arg.name)
                self.note(rv.name)
                self.union(arg.name, init)
                self.union(arg.name, rv.name)
                if i < len(yielded):
                    self.union(arg.name, yielded[i])
        elif isinstance(stmt, If):
            for i, rv in enumerate(stmt.return_vars):
                self.note(rv.name)
                for arm in (stmt.then_body, stmt.else_body):
                    values = yield_values(arm)
                    if i < len(values):
                        self.union(rv.name, values[i])

    def producer(self, name: str, call: Call) -> None:
        if not self.is_tile(name):
            return
        written = ops.target_memory(call)
        if call.op in ops.MADS:
            self.fixed[name] = MemSpace.Acc
        elif call.op in RETARGETABLE:
            if written is not None:
                self.written[name] = written
            if call.op == ops.LOAD and written is not None:
                self.fixed[name] = written
        elif call.op in VIEW_OPS:
            self.union(name, call.args[0] if call.args else None)
        elif call.op in (ops.ASSEMBLE, ops.GATHER_ROW):
            # in place: the result is the destination's buffer (a gather_row fills a Mat or Vec tile)
            self.union(name, call.args[0] if call.args else None)
        elif written is not None:
            self.fixed[name] = written
        else:
            self.fixed[name] = MemSpace.Vec

    def demands(self, call: Call) -> None:
        if call.op == ops.EXTRACT and call.args:
            source = _name(call.args[0])
            if source is not None:
                self.cube_demand.add(source)   # an L0 block is extracted from Mat
        if call.op == ops.MATMUL_ACC and call.args:
            acc = _name(call.args[0])
            if acc is not None:
                self.acc_demand.add(acc)
        if call.op in ops.MADS:
            parts = ops.matmul_parts(call)
            for operand in (parts.lhs, parts.rhs, parts.bias):
                n = _name(operand) if operand is not None else None
                if n is not None:
                    self.cube_demand.add(n)


def _name(expr: Expr | None) -> str | None:
    v = var_like(expr) if expr is not None else None
    return v.name if v is not None else None


# ---------------------------------------------------------------------------------------------- rewriting


class _Rewriter:
    """Phases 2-3: retype values, retarget creates / loads, insert moves before consumers."""

    def __init__(self, env: dict[str, Type], spaces: dict[str, MemSpace], namer: Namer, target: Target) -> None:
        self.env = env
        self.spaces = spaces
        self.namer = namer
        self.target = target
        self.moves: list[dict[tuple[str, MemSpace], Var]] = []

    def retype(self, name: str, t: Type | None) -> Type | None:
        space = self.spaces.get(name)
        if isinstance(t, TileType) and space is not None and t.space is not space:
            return replace(t, space=space)
        return t

    def space_of(self, expr: Expr) -> MemSpace | None:
        v = var_like(expr)
        return self.spaces.get(v.name) if v is not None else None

    def find_move(self, name: str, space: MemSpace) -> Var | None:
        for scope in reversed(self.moves):
            if (name, space) in scope:
                return scope[(name, space)]
        return None

    def body(self, body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        self.moves.append({})
        out: list[Stmt] = []
        try:
            for stmt in body:
                out.extend(self.stmt(stmt))
        finally:
            self.moves.pop()
        return tuple(out)

    def stmt(self, stmt: Stmt) -> list[Stmt]:
        out: list[Stmt] = []
        if isinstance(stmt, Assign):
            value = stmt.value
            if isinstance(value, Call):
                value = self.legalise(value, out)
                value = self.retarget(stmt.target.name, value)
            t = stmt.type if stmt.type is not None else self.env.get(stmt.target.name)
            if not isinstance(t, TileType):
                t = stmt.type
            typed = self.retype(stmt.target.name, t)
            out.append(stmt if value is stmt.value and typed is stmt.type else replace(stmt, value=value, type=typed))
        elif isinstance(stmt, Eval) and isinstance(stmt.value, Call):
            value = self.legalise(stmt.value, out)
            out.append(stmt if value is stmt.value else replace(stmt, value=value))
        elif isinstance(stmt, For):
            return_types = tuple(self.retype(rv.name, rt) for rv, rt in zip(stmt.return_vars, stmt.return_types))
            out.append(replace(stmt, body=self.body(stmt.body), return_types=return_types))
        elif isinstance(stmt, If):
            return_types = tuple(self.retype(rv.name, rt) for rv, rt in zip(stmt.return_vars, stmt.return_types))
            out.append(replace(stmt, then_body=self.body(stmt.then_body), else_body=self.body(stmt.else_body),
                               return_types=return_types))
        elif isinstance(stmt, Scope):
            out.append(replace(stmt, body=self.body(stmt.body)))
        else:
            out.append(stmt)
        return out

    def retarget(self, name: str, call: Call) -> Call:
        space = self.spaces.get(name)
        if call.op in RETARGETABLE and space is not None and ops.target_memory(call) is not space:
            return call.with_kwarg("target_memory", Sym(f"Mem.{space.value}"))
        return call

    def allowed(self, call: Call, index: int) -> tuple[MemSpace, ...] | None:
        if call.op in INPUT_SPACES:
            table = INPUT_SPACES[call.op]
            return table[index] if index < len(table) else None
        if not call.op.startswith("tile.") or call.op in UNCONSTRAINED:
            return None
        return (MemSpace.Vec,)

    def legalise(self, call: Call, out: list[Stmt]) -> Call:
        args = list(call.args)
        for i, arg in enumerate(args):
            allowed = self.allowed(call, i)
            v = var_like(arg)
            if allowed is None or v is None or not isinstance(self.env.get(v.name), TileType):
                continue
            space = self.space_of(arg)
            if space is None or space in allowed:
                continue
            args[i] = self.move(v, allowed[0], out, call)
        return replace(call, args=tuple(args)) if tuple(args) != call.args else call

    def move(self, v: Var, space: MemSpace, out: list[Stmt], consumer: Call) -> Var:
        existing = self.find_move(v.name, space)
        if existing is not None:
            return existing
        src = self.env[v.name]
        assert isinstance(src, TileType)
        span = consumer.span
        name = self.namer.fresh(f"{v.name}_{space.value}")
        moved = Var(name, span=span)
        t = TileType(src.shape, src.dtype, space, valid_shape=src.valid_shape)
        mem = Sym(f"Mem.{space.value}")
        if self.spaces.get(v.name) is MemSpace.Acc and space is MemSpace.Vec and not self.target.acc_to_vec:
            # a2a3 has no Acc -> Vec path: the cube -> vector boundary drains through GM (module doc)
            gm = Var(self.namer.fresh(f"{display_name(v.name)}__gm"), span=span)
            gm_t = TensorType(src.shape, src.dtype)
            shape = ListExpr(tuple(src.shape))
            zeros = ListExpr(tuple(Const(0) for _ in src.shape))
            out.append(Assign(gm, Call(ops.T_CREATE, (shape,), (("dtype", Sym(src.dtype.value)),), span=span), gm_t,
                              span=span))
            out.append(Assign(gm, Call(ops.STORE, (v, zeros, gm), span=span), gm_t, span=span))
            call = Call(ops.LOAD, (gm, zeros, shape), (("target_memory", mem),), span=span)
            self.env[gm.name] = gm_t
        else:
            call = Call(ops.MOVE, (v,), (("target_memory", mem),), span=span)
        out.append(Assign(moved, call, t, span=span))
        self.env[name] = t
        self.spaces[name] = space
        self.moves[-1][(v.name, space)] = moved
        return moved


PASS: Final = Pass("infer-tile-memory-space", infer_tile_memory_space, mirrors="PyPTO 17 InferTileMemorySpace")
