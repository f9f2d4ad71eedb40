"""IR written in Python for the SMT tests, with spans: every statement gets `line=` (default: the next
line of a running counter), so a hand-written lowering can carry its source ops' spans, as the passes do.

`v("x")` is a use, `it("c")` an iter_arg use; ints / bools become `Const`, str a `Var`, lists a
`ListExpr`. `K(...)` builds a function; `kernel(...)` a one-function module.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DType, Direction, Eval, Expr, For, Function, FunctionKind,
    If, IterArg, ListExpr, LoopKind, MemSpace, Module, Param, Program, Return, ScalarType, Span, Stmt, Sym,
    TensorType, TileType, UnaryOp, Var, Yield, map_stmts,
)

FP32, BF16, INT8, INT32, INDEX = DType.FP32, DType.BF16, DType.INT8, DType.INT32, DType.INDEX
Mat, Left, Right, Acc, Vec, Bias = (MemSpace.Mat, MemSpace.Left, MemSpace.Right, MemSpace.Acc, MemSpace.Vec,
                                     MemSpace.Bias)
PATH = "<smt-test>"
_lines = itertools.count(1)


def span(line: int | None = None) -> Span:
    return Span(PATH, line if line is not None else next(_lines), 1)


def v(name: str) -> Var:
    return Var(name)


def it(name: str) -> IterArg:
    return IterArg(name)


def e(value) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, str):
        return Var(value)
    if isinstance(value, (list, tuple)):
        return ListExpr(tuple(e(x) for x in value))
    return Const(value)


def call(op: str, *args, line: int | None = None, **kwargs) -> Call:
    return Call(op, tuple(e(a) for a in args), tuple((k, e(x)) for k, x in kwargs.items()), span=span(line))


def mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


def add(a, b) -> BinOp:
    return BinOp("+", e(a), e(b))


def sub(a, b) -> BinOp:
    return BinOp("-", e(a), e(b))


def mul(a, b) -> BinOp:
    return BinOp("*", e(a), e(b))


def fdiv(a, b) -> BinOp:
    return BinOp("//", e(a), e(b))


def mod(a, b) -> BinOp:
    return BinOp("%", e(a), e(b))


def eq(a, b) -> Compare:
    return Compare("==", e(a), e(b))


def ne(a, b) -> Compare:
    return Compare("!=", e(a), e(b))


def lt(a, b) -> Compare:
    return Compare("<", e(a), e(b))


def and_(*xs) -> BoolOp:
    return BoolOp("and", tuple(e(x) for x in xs))


def not_(x) -> UnaryOp:
    return UnaryOp("not", e(x))


def tensor(shape, dtype: DType) -> TensorType:
    return TensorType(tuple(Const(d) for d in shape), dtype)


def tile(shape, dtype: DType, space: MemSpace | None = None) -> TileType:
    return TileType(tuple(Const(d) for d in shape), dtype, space)


def assign(name: str, value, type=None, *, line: int | None = None) -> Assign:
    s = span(line)
    value = e(value)
    if isinstance(value, Call) and line is not None:
        value = replace(value, span=s)
    return Assign(Var(name, span=s), value, type, span=s)


def ev(value, *, line: int | None = None) -> Eval:
    return Eval(e(value), span=span(line))


def yield_(*values) -> Yield:
    return Yield(tuple(e(x) for x in values), span=span())


def ret(*values) -> Return:
    return Return(tuple(e(x) for x in values), span=span())


def loop(var: str, start, stop, step, body: list[Stmt], *, iter_args=(), inits=(), returns=(),
         kind: LoopKind = LoopKind.RANGE, stage: int | None = None, line: int | None = None) -> For:
    return For(Var(var), e(start), e(stop), e(step), tuple(IterArg(a) for a in iter_args),
               tuple(e(x) for x in inits), tuple(body), tuple(Var(r) for r in returns),
               tuple(None for _ in returns), kind, stage, span=span(line))


def branch(cond, then: list[Stmt], orelse: list[Stmt] = (), returns=(), *, line: int | None = None) -> If:
    return If(e(cond), tuple(then), tuple(orelse), tuple(Var(r) for r in returns),
              tuple(None for _ in returns), span=span(line))


def param(name: str, type) -> Param:
    return Param(name, type)


def out(name: str, type) -> Param:
    return Param(name, type, Direction.OUT)


def scalar(name: str) -> Param:
    return Param(name, ScalarType(INDEX))


def function(name: str, params: list[Param], body: list[Stmt]) -> Function:
    return Function(name, FunctionKind.INCORE, tuple(params), (), tuple(body), has_self=False)


def kernel(name: str, params: list[Param], body: list[Stmt], path: str = PATH) -> Module:
    return Module(path, (Program(None, (function(name, params, body),)),))


def modules(*functions: Function, path: str = PATH) -> Module:
    return Module(path, (Program(None, tuple(functions)),))


# ---------------------------------------------------------------------------------------------- tile ops


def load(name: str, src: str, offsets, shape, space: MemSpace = Mat, dtype: DType = BF16, *,
         line: int | None = None) -> Assign:
    return assign(name, call("tile.load", src, list(offsets), list(shape), target_memory=mem(space)),
                  tile(shape, dtype, space), line=line)


def extract(name: str, src: str, row, col, shape, space: MemSpace, dtype: DType = BF16, *,
            line: int | None = None) -> Assign:
    return assign(name, call("tile.extract", src, row, col, list(shape), target_memory=mem(space)),
                  tile(shape, dtype, space), line=line)


def create(name: str, shape, dtype: DType = FP32, *, line: int | None = None) -> Assign:
    return assign(name, call("tile.create", list(shape), dtype=Sym(dtype.value), target_memory=mem(Acc)),
                  tile(shape, dtype, Acc), line=line)


def matmul(name: str, a, b, shape, *, line: int | None = None) -> Assign:
    return assign(name, call("tile.matmul", a, b), tile(shape, FP32, Acc), line=line)


def matmul_bias(name: str, a, b, bias, shape, *, line: int | None = None) -> Assign:
    return assign(name, call("tile.matmul_bias", a, b, bias), tile(shape, FP32, Acc), line=line)


def matmul_acc(name: str, acc, a, b, shape, init_cond=None, *, line: int | None = None) -> Assign:
    kwargs = {"init_cond": init_cond} if init_cond is not None else {}
    return assign(name, call("tile.matmul_acc", acc, a, b, **kwargs), tile(shape, FP32, Acc), line=line)


def store(name: str, value: str, offsets, dst: str, *, line: int | None = None) -> Assign:
    return assign(name, call("tile.store", value, list(offsets), dst), line=line)


def with_init_cond(module: Module, line: int, cond: Expr | None) -> Module:
    """*module* with the `init_cond` of the `matmul_acc` written at *line* replaced (a mutation)."""
    def swap(stmt: Stmt):
        if isinstance(stmt, Assign) and stmt.span.line == line and isinstance(stmt.value, Call):
            call_ = stmt.value.with_kwarg("init_cond", cond)
            return (replace(stmt, value=call_),)
        return None
    fn_map = lambda fn: replace(fn, body=map_stmts(fn.body, swap))  # noqa: E731
    return Module(module.path, tuple(replace(p, functions=tuple(fn_map(f) for f in p.functions))
                                     for p in module.programs))
