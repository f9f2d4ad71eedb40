"""Tiny IR builders and a debug renderer for the lowering unit tests (no frontend needed).

`v("x")` is a use, `it("c")` an iter_arg use, `c(3)` a literal; `call("tile.load", ...)` an op;
`tile(shape, dtype, space)` a type; `assign`, `for_`, `if_`, `yield_` statements; `kernel(...)` a
one-function Module. `render(module)` prints the IR in a compact, stable, Form-2-like text used by the
structural assertions (the golden tests use the real printer).
"""

from __future__ import annotations

from dataclasses import replace

from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DictExpr, Direction, DType, Eval, Expr, For, Function,
    FunctionKind, If, IterArg, ListExpr, LoopKind, MemSpace, Module, Param, Program, Return, Scope,
    PtrType, ScalarType, Stmt, Sym, TensorType, TileType, TupleExpr, Type, UnaryOp, Var, Yield,
)

BF16, FP32, INT8, INT32, FP16 = DType.BF16, DType.FP32, DType.INT8, DType.INT32, DType.FP16
Mat, Left, Right, Acc, Vec, Bias = (MemSpace.Mat, MemSpace.Left, MemSpace.Right, MemSpace.Acc,
                                    MemSpace.Vec, MemSpace.Bias)


def v(name: str) -> Var:
    return Var(name)


def it(name: str) -> IterArg:
    return IterArg(name)


def c(value) -> Const:
    return Const(value)


def lst(*items) -> ListExpr:
    return ListExpr(tuple(_e(i) for i in items))


def _e(x) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float, bool, str)):
        return Const(x)
    if isinstance(x, (list, tuple)):
        return lst(*x)
    raise TypeError(x)


def mem(space: MemSpace) -> Sym:
    return Sym(f"Mem.{space.value}")


def dt(dtype: DType) -> Sym:
    return Sym(dtype.value)


def call(op: str, *args, **kwargs) -> Call:
    return Call(op, tuple(_e(a) for a in args), tuple((k, _e(val)) for k, val in kwargs.items()))


def add(a, b) -> BinOp:
    return BinOp("+", _e(a), _e(b))


def mul(a, b) -> BinOp:
    return BinOp("*", _e(a), _e(b))


def eq(a, b) -> Compare:
    return Compare("==", _e(a), _e(b))


def tensor(shape, dtype: DType) -> TensorType:
    return TensorType(tuple(Const(d) for d in shape), dtype)


def tile(shape, dtype: DType, space: MemSpace | None = None) -> TileType:
    return TileType(tuple(Const(d) for d in shape), dtype, space)


def assign(name: str, value, type: Type | None = None) -> Assign:
    return Assign(Var(name), _e(value), type)


def eval_(value) -> Eval:
    return Eval(_e(value))


def yield_(*values) -> Yield:
    return Yield(tuple(_e(x) for x in values))


def ret(*values) -> Return:
    return Return(tuple(_e(x) for x in values))


def for_(var: str, start, stop, step, body, *, iter_args=(), inits=(), rvs=(), rtypes=None,
         kind=LoopKind.RANGE, stage=None) -> For:
    rtypes = tuple(rtypes) if rtypes is not None else tuple(None for _ in rvs)
    return For(Var(var), _e(start), _e(stop), _e(step), tuple(IterArg(a) for a in iter_args),
               tuple(_e(i) for i in inits), tuple(body), tuple(Var(r) for r in rvs), rtypes, kind=kind,
               stage=stage)


def if_(cond, then, else_=(), rvs=(), rtypes=None) -> If:
    rtypes = tuple(rtypes) if rtypes is not None else tuple(None for _ in rvs)
    return If(_e(cond), tuple(then), tuple(else_), tuple(Var(r) for r in rvs), rtypes)


def scope(body, **kwargs) -> Scope:
    return Scope(call("at", **kwargs), tuple(body))


def param(name: str, t: Type, direction: Direction = Direction.IN) -> Param:
    return Param(name, t, direction)


def kernel(params, body, *, name="main", kind=FunctionKind.INCORE, program: str | None = "Prog",
           decorator="function", path="test.py") -> Module:
    fn = Function(name, kind, tuple(params), (), tuple(body), decorator=decorator, has_self=program is not None)
    return Module(path, (Program(program, (fn,)),))


def function(module: Module) -> Function:
    (fn,) = [f for _, f in module.functions()]
    return fn


# ---------------------------------------------------------------------------------------------- render


def render_expr(e: Expr) -> str:
    if isinstance(e, IterArg):
        return e.name
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Const):
        return repr(e.value) if isinstance(e.value, str) else str(e.value)
    if isinstance(e, Sym):
        return e.path
    if isinstance(e, BinOp):
        if e.op in ("min", "max"):
            return f"{e.op}({render_expr(e.lhs)}, {render_expr(e.rhs)})"
        return f"({render_expr(e.lhs)} {e.op} {render_expr(e.rhs)})"
    if isinstance(e, UnaryOp):
        return f"({e.op} {render_expr(e.operand)})"
    if isinstance(e, Compare):
        return f"{render_expr(e.lhs)} {e.op} {render_expr(e.rhs)}"
    if isinstance(e, BoolOp):
        return "(" + f" {e.op} ".join(render_expr(o) for o in e.operands) + ")"
    if isinstance(e, ListExpr):
        return "[" + ", ".join(render_expr(i) for i in e.items) + "]"
    if isinstance(e, TupleExpr):
        return "(" + ", ".join(render_expr(i) for i in e.items) + ",)"
    if isinstance(e, DictExpr):
        return "{" + ", ".join(f"{k!r}: {render_expr(x)}" for k, x in e.items) + "}"
    if isinstance(e, Call):
        parts = [render_expr(a) for a in e.args] + [f"{k}={render_expr(x)}" for k, x in e.kwargs]
        return f"{e.op}(" + ", ".join(parts) + ")"
    raise TypeError(e)


def render_type(t: Type | None) -> str:
    if t is None:
        return ""
    if isinstance(t, TileType):
        shape = ", ".join(render_expr(d) for d in t.shape)
        space = f", {t.space.value}" if t.space is not None else ""
        return f": Tile[[{shape}], {t.dtype.value}{space}]"
    if isinstance(t, TensorType):
        return f": Tensor[[{', '.join(render_expr(d) for d in t.shape)}], {t.dtype.value}]"
    if isinstance(t, ScalarType):
        return f": Scalar[{t.dtype.value}]"
    return f": {type(t).__name__}"


def render_body(body, indent: int, lines: list[str], *, drop_attrs: bool) -> None:
    pad = "    " * indent
    for s in body:
        if isinstance(s, Assign):
            value = s.value
            if drop_attrs and isinstance(value, Call):
                value = value.with_kwarg("attrs", None)
            lines.append(f"{pad}{s.target.name}{render_type(s.type)} = {render_expr(value)}")
        elif isinstance(s, Eval):
            lines.append(f"{pad}{render_expr(s.value)}")
        elif isinstance(s, Yield):
            lines.append(f"{pad}yield {', '.join(render_expr(x) for x in s.values)}")
        elif isinstance(s, Return):
            lines.append(f"{pad}return {', '.join(render_expr(x) for x in s.values)}")
        elif isinstance(s, For):
            carries = ""
            if s.iter_args:
                carries = (", (" + ", ".join(a.name for a in s.iter_args) + ") <- ("
                           + ", ".join(render_expr(i) for i in s.inits) + ")")
            stage = f", stage={s.stage}" if s.stage is not None else ""
            rvs = f" -> {', '.join(r.name for r in s.return_vars)}" if s.return_vars else ""
            lines.append(f"{pad}for {s.loop_var.name}{carries} in {s.kind.value}({render_expr(s.start)}, "
                         f"{render_expr(s.stop)}, {render_expr(s.step)}{stage}){rvs}:")
            render_body(s.body, indent + 1, lines, drop_attrs=drop_attrs)
        elif isinstance(s, If):
            rvs = f" -> {', '.join(r.name for r in s.return_vars)}" if s.return_vars else ""
            lines.append(f"{pad}if {render_expr(s.cond)}{rvs}:")
            render_body(s.then_body, indent + 1, lines, drop_attrs=drop_attrs)
            if s.else_body:
                lines.append(f"{pad}else:")
                render_body(s.else_body, indent + 1, lines, drop_attrs=drop_attrs)
        elif isinstance(s, Scope):
            lines.append(f"{pad}with {render_expr(s.call)}:")
            render_body(s.body, indent + 1, lines, drop_attrs=drop_attrs)
        else:
            lines.append(f"{pad}{s!r}")


def render(module_or_fn, *, drop_attrs: bool = True) -> str:
    """The function body of a one-function module (or a Function) as compact text."""
    fn = module_or_fn if isinstance(module_or_fn, Function) else function(module_or_fn)
    lines: list[str] = []
    render_body(fn.body, 0, lines, drop_attrs=drop_attrs)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- running


def options(mode: str = "fixed", target: str = "a2a3"):
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.target import TARGETS

    return LowerOptions(mode=mode, target=TARGETS[target])


def run_pass(pass_, module: Module, mode: str = "fixed", target: str = "a2a3") -> Module:
    """One pass on *module*, with verify_ir on its input and its output."""
    from pypto_verify.lowering.verify_ir import verify_ir

    assert verify_ir(module) == [], verify_ir(module)
    out = pass_.run(module, options(mode, target))
    assert verify_ir(out) == [], (pass_.name, verify_ir(out))
    return out


def lower_checked(module: Module, mode: str = "fixed", stop_after: str | None = None, target: str = "a2a3"):
    """`lower` with every dump checked by verify_ir."""
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.lowering.verify_ir import verify_ir

    result = lower(module, options(mode, target), keep_dumps=True, stop_after=stop_after)
    for name, dumped in result.dumps:
        assert verify_ir(dumped) == [], (name, verify_ir(dumped))
    return result


# names the tests use through this module
__all__ = ["replace", "PtrType", "Stmt", "DictExpr", "FunctionKind", "Function", "ScalarType", "DType",
           "BoolOp", "Compare", "Assign", "Call", "If", "For", "LoopKind"]
