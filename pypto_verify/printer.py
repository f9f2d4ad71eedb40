"""IR → kernel-language text (Form 2, or Form 3 when MemRefs are present); the output round-trips.

Owns: the one textual rendering of the IR (STYLE.md §5). `print_module` writes valid Python in the
style of the compiler's own dumps (`/work/shared/real-ir/*/34_after_MemoryReuse.py`): `@pl.program`
classes, free functions as `@pl.jit` functions, explicit SSA (`for i, (x,) in pl.range(...,
init_values=(...))`, `x: T = pl.yield_(v)`), tensor-level ops as `pl.tensor.X(...)`, tile ops as
`pl.tile.X(...)`, MemRefs as `pl.MemRef(base, pl.const(N, pl.INT64), size)`. Reading the text back
with the frontend gives a structurally equal IR (spans aside). Deterministic: no sets, no ids.

Input: `ir.Module` / `Function` / `Expr` / `Type`. Output: text.
"""

from __future__ import annotations

import json
import math

from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DictExpr, Direction, Eval, Expr, For, Function,
    FunctionKind, If, ListExpr, MemRef, Module, Param, Program, PtrType, Return, ScalarType,
    Scope, Stmt, Sym, TensorType, TileType, TupleExpr, TupleType, Type, UnaryOp, Var, Yield, expr_type,
    final_yield, type_env, walk_stmts,
)

_INDENT = "    "

# Python operator precedence, lowest first (only what the IR has).
_PREC_OR, _PREC_AND, _PREC_NOT, _PREC_CMP, _PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_POW, _PREC_ATOM = range(1, 10)
_BINOP_PREC = {"+": _PREC_ADD, "-": _PREC_ADD, "*": _PREC_MUL, "/": _PREC_MUL, "//": _PREC_MUL, "%": _PREC_MUL,
               "**": _PREC_POW}


# ---------------------------------------------------------------------------------------------- module


def print_module(module: Module) -> str:
    """The whole module as one Python file (Form 3 when any MemRef is present, else Form 2)."""
    form = 3 if _module_has_memref(module) else 2
    lines = [f"# pypto-verify IR (Form {form})", "import pypto.language as pl", ""]
    for program in module.programs:
        lines.append("")
        lines.extend(_program_lines(program))
    return "\n".join(lines).rstrip("\n") + "\n"


def print_function(fn: Function) -> str:
    """One function with its decorator, at top level (`self` kept if the function has it)."""
    return "\n".join(_function_lines(fn, 0)) + "\n"


def _program_lines(program: Program) -> list[str]:
    if program.name is None:
        lines: list[str] = []
        for i, fn in enumerate(program.functions):
            if i:
                lines.extend(["", ""])
            lines.extend(_function_lines(fn, 0))
        lines.append("")
        return lines
    lines = ["@pl.program", f"class {program.name}:"]
    if not program.functions:
        lines.append(_INDENT + "pass")
    for i, fn in enumerate(program.functions):
        if i:
            lines.append("")
        lines.extend(_function_lines(fn, 1))
    lines.append("")
    return lines


def _function_lines(fn: Function, depth: int) -> list[str]:
    pad = _INDENT * depth
    params = ["self"] if fn.has_self else []
    params.extend(_param(p) for p in fn.params)
    returns = ""
    if len(fn.return_types) == 1:
        returns = f" -> {print_type(fn.return_types[0])}"
    elif fn.return_types:
        returns = f" -> tuple[{', '.join(print_type(t) for t in fn.return_types)}]"
    lines = [pad + _decorator(fn), f"{pad}def {fn.name}({', '.join(params)}){returns}:"]
    lines.extend(_body_lines(fn.body, depth + 1, _lost_target_types(fn)))
    return lines


def _lost_target_types(fn: Function) -> frozenset[str]:
    """Return vars of multi-value loops and ifs whose type `a, b = pl.yield_(x, y)` would lose: given,
    and not the yielded value's (then arm first), which is what the reader derives for an undeclared
    target. A Form 3 dump after InitMemRef has them (a loop's return var on its init's window while
    its yield is on another, until MemoryReuse's yield fixup); they print as bare annotations above
    the yield (`a: T`)."""
    env = type_env(fn)
    lost: set[str] = set()
    for stmt in walk_stmts(fn.body):
        if not isinstance(stmt, (For, If)) or len(stmt.return_vars) < 2:
            continue
        arms = (stmt.body,) if isinstance(stmt, For) else (stmt.then_body, stmt.else_body)
        yields = [y.values for y in map(final_yield, arms) if y is not None]
        for i, (rv, rt) in enumerate(zip(stmt.return_vars, stmt.return_types)):
            derived = next((t for values in yields if i < len(values)
                            for t in [expr_type(values[i], env)] if t is not None), None)
            if rt is not None and rt != derived:
                lost.add(rv.name)
    return frozenset(lost)


def _decorator(fn: Function) -> str:
    attrs = [f"{key}={print_expr(value)}" for key, value in fn.attrs]
    if fn.kind is FunctionKind.OPAQUE and fn.decorator != "function":
        return f"@pl.{fn.decorator}({', '.join(attrs)})" if attrs else f"@pl.{fn.decorator}"
    return f"@pl.function({', '.join([f'type=pl.FunctionType.{fn.kind.value}', *attrs])})"


def _param(param: Param) -> str:
    if param.type is None:
        if param.direction is Direction.IN:
            return param.name
        return f"{param.name}: pl.{param.direction.value}[pl.Tensor]"
    text = print_type(param.type)
    if param.direction is not Direction.IN:
        text = f"pl.{param.direction.value}[{text}]"
    return f"{param.name}: {text}"


# ---------------------------------------------------------------------------------------------- statements


def _body_lines(body: tuple[Stmt, ...], depth: int, lost: frozenset[str],
                targets: tuple | None = None) -> list[str]:
    """The statements of *body*; a final `Yield` prints against *targets* (return vars, types), with
    bare annotations for the targets in *lost* (`_lost_target_types`)."""
    lines: list[str] = []
    for i, stmt in enumerate(body):
        last = i == len(body) - 1
        if isinstance(stmt, Yield) and last and targets is not None:
            lines.extend(f"{_INDENT * depth}{rv.name}: {print_type(t)}"
                         for rv, t in zip(*targets) if rv.name in lost and t is not None)
            lines.append(_INDENT * depth + _yield_line(stmt, *targets))
        else:
            lines.extend(_stmt_lines(stmt, depth, lost))
    if not lines:
        lines.append(_INDENT * depth + "pass")
    return lines


def _yield_line(stmt: Yield, return_vars: tuple[Var, ...], return_types: tuple[Type | None, ...]) -> str:
    values = ", ".join(print_expr(v) for v in stmt.values)
    call = f"pl.yield_({values})"
    if not return_vars:
        return call
    if len(return_vars) == 1:
        t = return_types[0] if return_types else None
        annotation = f": {print_type(t)}" if t is not None else ""
        return f"{return_vars[0].name}{annotation} = {call}"
    return f"{', '.join(v.name for v in return_vars)} = {call}"


def _stmt_lines(stmt: Stmt, depth: int, lost: frozenset[str]) -> list[str]:
    pad = _INDENT * depth
    if isinstance(stmt, Assign):
        annotation = f": {print_type(stmt.type)}" if stmt.type is not None else ""
        return [f"{pad}{stmt.target.name}{annotation} = {print_expr(stmt.value)}"]
    if isinstance(stmt, Eval):
        return [pad + print_expr(stmt.value)]
    if isinstance(stmt, Return):
        return [f"{pad}return {', '.join(print_expr(v) for v in stmt.values)}".rstrip()]
    if isinstance(stmt, Yield):
        return [f"{pad}pl.yield_({', '.join(print_expr(v) for v in stmt.values)})"]
    if isinstance(stmt, For):
        return _for_lines(stmt, depth, lost)
    if isinstance(stmt, If):
        return _if_lines(stmt, depth, lost)
    if isinstance(stmt, Scope):
        return _scope_lines(stmt, depth, lost)
    raise TypeError(f"printer: unknown statement {type(stmt).__name__}")


def _for_lines(stmt: For, depth: int, lost: frozenset[str]) -> list[str]:
    pad = _INDENT * depth
    kwargs = list(stmt.kwargs)
    iterator = f"pl.{stmt.kind.value}"
    for key, value in kwargs:
        if key == "iterator" and isinstance(value, Const) and isinstance(value.value, str):
            iterator = f"pl.{value.value}"
            kwargs = [(k, v) for k, v in kwargs if k != "iterator"]
            break
    args = _loop_bounds(stmt)
    if stmt.stage is not None:
        args.append(f"stage={stmt.stage}")
    if stmt.iter_args:
        args.append(f"init_values={_tuple_text(stmt.inits)}")
    args.extend(f"{key}={print_expr(value)}" for key, value in kwargs)
    target = stmt.loop_var.name
    if stmt.iter_args:
        target += f", {_tuple_text(stmt.iter_args)}"
    lines = [f"{pad}for {target} in {iterator}({', '.join(args)}):"]
    lines.extend(_body_lines(stmt.body, depth + 1, lost, (stmt.return_vars, stmt.return_types)))
    return lines


def _loop_bounds(stmt: For) -> list[str]:
    zero = isinstance(stmt.start, Const) and stmt.start == Const(0)
    one = isinstance(stmt.step, Const) and stmt.step == Const(1)
    if zero and one:
        return [print_expr(stmt.stop)]
    if one:
        return [print_expr(stmt.start), print_expr(stmt.stop)]
    return [print_expr(stmt.start), print_expr(stmt.stop), print_expr(stmt.step)]


def _if_lines(stmt: If, depth: int, lost: frozenset[str]) -> list[str]:
    pad = _INDENT * depth
    targets = (stmt.return_vars, stmt.return_types)
    lines = [f"{pad}if {print_expr(stmt.cond)}:"]
    lines.extend(_body_lines(stmt.then_body, depth + 1, lost, targets))
    if stmt.else_body:
        lines.append(f"{pad}else:")
        lines.extend(_body_lines(stmt.else_body, depth + 1, lost, targets))
    return lines


def _scope_lines(stmt: Scope, depth: int, lost: frozenset[str]) -> list[str]:
    pad = _INDENT * depth
    body = stmt.body
    alias = ""
    if body and isinstance(body[0], Assign) and isinstance(body[0].value, Call) and body[0].value.op == "scope.task_id" \
            and body[0].type is None and not body[0].value.args:
        alias = f" as {body[0].target.name}"
        body = body[1:]
    lines = [f"{pad}with {print_expr(stmt.call)}{alias}:"]
    lines.extend(_body_lines(body, depth + 1, lost))
    return lines


# ---------------------------------------------------------------------------------------------- expressions


def print_expr(expr: Expr) -> str:
    """*expr* as kernel-language source."""
    return _expr(expr)[0]


def _expr(expr: Expr) -> tuple[str, int]:
    """The text of *expr* and its precedence."""
    if isinstance(expr, Var):
        return expr.name, _PREC_ATOM
    if isinstance(expr, Const):
        return _const(expr)
    if isinstance(expr, Sym):
        return f"pl.{expr.path}", _PREC_ATOM
    if isinstance(expr, BinOp):
        return _binop(expr)
    if isinstance(expr, UnaryOp):
        if expr.op == "not":
            return f"not {_wrap(expr.operand, _PREC_NOT, strict=False)}", _PREC_NOT
        return f"-{_wrap(expr.operand, _PREC_UNARY, strict=False)}", _PREC_UNARY
    if isinstance(expr, Compare):
        return f"{_wrap(expr.lhs, _PREC_CMP, strict=True)} {expr.op} {_wrap(expr.rhs, _PREC_CMP, strict=True)}", _PREC_CMP
    if isinstance(expr, BoolOp):
        prec = _PREC_AND if expr.op == "and" else _PREC_OR
        return f" {expr.op} ".join(_wrap(e, prec, strict=True) for e in expr.operands), prec
    if isinstance(expr, ListExpr):
        return f"[{', '.join(print_expr(e) for e in expr.items)}]", _PREC_ATOM
    if isinstance(expr, TupleExpr):
        return _tuple_text(expr.items), _PREC_ATOM
    if isinstance(expr, DictExpr):
        return "{" + ", ".join(f"{json.dumps(k)}: {print_expr(v)}" for k, v in expr.items) + "}", _PREC_ATOM
    if isinstance(expr, Call):
        return _call(expr), _PREC_ATOM
    raise TypeError(f"printer: unknown expression {type(expr).__name__}")


def _const(expr: Const) -> tuple[str, int]:
    value = expr.value
    if value is None:
        text = "None"
    elif isinstance(value, bool):
        text = "True" if value else "False"
    elif isinstance(value, str):
        text = json.dumps(value)
    elif isinstance(value, float) and not math.isfinite(value):
        text = 'float("nan")' if math.isnan(value) else ('-float("inf")' if value < 0 else 'float("inf")')
    else:
        text = repr(value)
    if expr.dtype is not None:
        return f"pl.const({text}, pl.{expr.dtype.value})", _PREC_ATOM
    if text.startswith("-"):
        return text, _PREC_UNARY
    return text, _PREC_ATOM


def _binop(expr: BinOp) -> tuple[str, int]:
    if expr.op in ("min", "max"):
        return f"{expr.op}({print_expr(expr.lhs)}, {print_expr(expr.rhs)})", _PREC_ATOM
    prec = _BINOP_PREC[expr.op]
    if expr.op == "**":
        lhs = _wrap(expr.lhs, prec, strict=True)
        rhs = _wrap(expr.rhs, _PREC_UNARY, strict=False)
    else:
        lhs = _wrap(expr.lhs, prec, strict=False)
        rhs = _wrap(expr.rhs, prec, strict=True)
    return f"{lhs} {expr.op} {rhs}", prec


def _wrap(expr: Expr, prec: int, strict: bool) -> str:
    """*expr*'s text, parenthesised when its precedence is below *prec* (or equal, when *strict*)."""
    text, own = _expr(expr)
    if own < prec or (strict and own == prec):
        return f"({text})"
    return text


def _call(call: Call) -> str:
    op = call.op
    args = [print_expr(a) for a in call.args]
    kwargs = [f"{key}={print_expr(value)}" for key, value in call.kwargs]
    if op.startswith("call."):
        return f"{op[5:]}({', '.join([*args, *kwargs])})"
    if op.startswith("self."):
        return f"{op}({', '.join([*args, *kwargs])})"
    if op.startswith("method.") and call.args:
        receiver = _wrap(call.args[0], _PREC_ATOM, strict=False)
        if call.kwargs == (("__attribute__", Const(True)),) and len(call.args) == 1:
            return f"{receiver}.{op[7:]}"
        return f"{receiver}.{op[7:]}({', '.join([*args[1:], *kwargs])})"
    return f"pl.{op}({', '.join([*args, *kwargs])})"


def _tuple_text(items: tuple[Expr, ...]) -> str:
    if len(items) == 1:
        return f"({print_expr(items[0])},)"
    return f"({', '.join(print_expr(e) for e in items)})"


# ---------------------------------------------------------------------------------------------- types


def print_type(t: Type) -> str:
    """*t* as an annotation: `pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096), pl.Mem.Acc]`."""
    if isinstance(t, TensorType):
        items = [_dims(t.shape), f"pl.{t.dtype.value}"]
        if t.memref is not None:
            items.append(print_memref(t.memref))
        return f"pl.Tensor[{', '.join(items)}]"
    if isinstance(t, TileType):
        items = [_dims(t.shape), f"pl.{t.dtype.value}"]
        if t.memref is not None:
            items.append(print_memref(t.memref))
        if t.space is not None:
            items.append(f"pl.Mem.{t.space.value}")
        if t.view is not None:
            items.append(print_expr(t.view))
        elif t.valid_shape is not None:
            items.append(f"pl.TileView(valid_shape={_dims(t.valid_shape)})")
        return f"pl.Tile[{', '.join(items)}]"
    if isinstance(t, ScalarType):
        return f"pl.Scalar[pl.{t.dtype.value}]"
    if isinstance(t, PtrType):
        return "pl.Ptr"
    if isinstance(t, TupleType):
        return f"tuple[{', '.join(print_type(i) for i in t.items) or '()'}]"  # `tuple[]` is not Python
    raise TypeError(f"printer: unknown type {type(t).__name__}")


def print_memref(memref: MemRef) -> str:
    """`pl.MemRef(base, pl.const(offset, pl.INT64), size[, slots=N])[slot]` as the compiler prints it."""
    base = json.dumps(memref.base) if memref.quoted else memref.base
    text = f"pl.MemRef({base}, pl.const({memref.offset}, pl.INT64), {memref.size}"
    if memref.slots is not None:
        text += f", slots={memref.slots}"
    text += ")"
    if memref.slot is not None:
        text += f"[{memref.slot}]"
    return text


def _dims(shape: tuple[Expr, ...]) -> str:
    return f"[{', '.join(print_expr(d) for d in shape)}]"


def _module_has_memref(module: Module) -> bool:
    def has(t: Type | None) -> bool:
        if isinstance(t, (TensorType, TileType)):
            return t.memref is not None
        if isinstance(t, TupleType):
            return any(has(i) for i in t.items)
        return False

    for _, fn in module.functions():
        if any(has(p.type) for p in fn.params) or any(has(t) for t in fn.return_types):
            return True
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, Assign) and (has(stmt.type) or isinstance(stmt.type, PtrType)):
                return True
            if isinstance(stmt, (For, If)) and any(has(t) for t in stmt.return_types):
                return True
    return False

