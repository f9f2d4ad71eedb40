"""Scalar expressions: constant folding and linear normal forms.

Owns: evaluating index arithmetic and conditions made of literals and named values. Used by the
frontend (a slice's extent `(k0 + TK) - k0` is the constant `TK`), by Simplify (folding `if 128 == 0:`),
and by the SMT encoder (which only needs the expression tree).

A linear form maps variable names to integer coefficients, with the constant under the key `""`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

from pypto_verify.ir import BinOp, BoolOp, Compare, Const, DType, Expr, UnaryOp, Var, map_expr, var_like

Linear = dict[str, int]

_CMP = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def floor_div(a: int, b: int) -> int:
    """Python's floor division: the language's `//` (operands are indices, usually non-negative)."""
    return a // b


# operands are int / bool / float (a `/` or a float literal); mixed lambdas and builtins infer as `object`
_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": floor_div, "%": lambda a, b: a % b, "min": min, "max": max,
}


_MAX_POWER_BITS = 4096
"""A power whose result would need more bits is not evaluated (None: unknown), as the frontend's constant
evaluator refuses it: `10**10**10` must not take the checker's time and memory."""


def _power(a: Any, b: Any) -> int | float | None:
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and a.bit_length() * b > _MAX_POWER_BITS:
        return None
    try:
        value = a ** b
    except (OverflowError, ZeroDivisionError):
        return None
    return value if isinstance(value, (int, float)) else None  # a complex root is no scalar of ours


def int_range(dtype: DType) -> tuple[int, int] | None:
    """The values of integer *dtype* (`BOOL` is 0 and 1, `INDEX` is 64 bits wide); None for a float or a
    task handle."""
    if dtype is DType.BOOL:
        return (0, 1)
    if dtype.is_float or dtype is DType.TASK_ID:
        return None
    bits = 8 * dtype.bytes
    if dtype.value.startswith("UINT"):
        return (0, (1 << bits) - 1)
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def cast_value(value: int | bool | float, dtype: DType) -> int | bool | float:
    """Scalar *value* converted to *dtype* as a scalar `pl.cast` does: an integer to an integer type wraps
    (two's complement, as a C conversion); a float to an integer type truncates toward zero (PyPTO's codegen
    emits `arith.fptosi` / `arith.fptoui`, which round toward zero); to `BOOL` it is `value != 0`, to `FP32` it
    rounds to nearest even. `ValueError` for what is not modelled: a float whose truncation the integer type
    does not hold, or a NaN (`fptosi` gives poison), another float type, a float overflow."""
    if dtype is DType.BOOL:
        return value != 0
    bounds = int_range(dtype)
    if bounds is not None:
        lo, hi = bounds
        if isinstance(value, float):
            if dtype is DType.INDEX and not value.is_integer():
                raise ValueError(f"a scalar cast of {value} to INDEX (PyPTO casts no float to INDEX)")
            if not (math.isfinite(value) and lo <= math.trunc(value) <= hi):
                raise ValueError(f"a scalar cast of {value} to {dtype.value} is undefined (outside the type)")
            return math.trunc(value)
        return (int(value) - lo) % (hi - lo + 1) + lo
    if dtype is DType.FP32:
        try:
            return struct.unpack("<f", struct.pack("<f", float(value)))[0]
        except OverflowError:
            raise ValueError(f"a scalar cast of {value} to FP32 overflows") from None
    raise ValueError(f"a scalar cast to {dtype.value} is not modelled")


def default_cast_mode(mode: Expr | None) -> bool:
    """Whether a scalar `pl.cast`'s `mode=` is absent or the default, `"round"` (2): PyPTO refuses a scalar cast
    in any other (its `pl.cast`), and its codegen's `arith.fptosi` then truncates whatever the name says."""
    return mode is None or (isinstance(mode, Const) and mode.value in ("round", 2))


def trip_count(start: int, stop: int, step: int) -> int:
    """Iterations of `range(start, stop, step)` (step != 0), for any size: `len(range(...))` overflows past
    `sys.maxsize`."""
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // -step)


def evaluate(expr: Expr, env: dict[str, int | bool] | None = None) -> int | bool | float | None:
    """The value of *expr* with names from *env*, or None when something is unknown."""
    env = env or {}
    if isinstance(expr, Const):
        return expr.value if not isinstance(expr.value, str) else None
    v = var_like(expr)
    if v is not None:
        return env.get(v.name)
    if isinstance(expr, BinOp):
        a, b = evaluate(expr.lhs, env), evaluate(expr.rhs, env)
        if a is None or b is None:
            return None
        if expr.op in ("//", "%") and b == 0:
            return None
        if expr.op == "/":
            return a / b if b else None
        if expr.op == "**":
            return _power(a, b)
        fn = _ARITH.get(expr.op)
        return fn(a, b) if fn else None
    if isinstance(expr, Compare):
        a, b = evaluate(expr.lhs, env), evaluate(expr.rhs, env)
        if a is None or b is None:
            return None
        return _CMP[expr.op](a, b)
    if isinstance(expr, UnaryOp):
        a = evaluate(expr.operand, env)
        if a is None:
            return None
        return (not a) if expr.op == "not" else -a
    if isinstance(expr, BoolOp):
        values = [evaluate(e, env) for e in expr.operands]
        if expr.op == "and":
            if any(x is False for x in values):
                return False
            return True if all(x is True for x in values) else None
        if any(x is True for x in values):
            return True
        return False if all(x is False for x in values) else None
    return None


def truth(cond: Expr) -> bool | None:
    """The truth value of a condition the constants decide (it evaluates with no name and not to a float), else
    None: the `if`s the lowering folds to one arm (`simplify`, `simplify_literal_conditions`), and so the arms
    `census` and the SMT stage know never run."""
    value = evaluate(cond)
    return None if value is None or isinstance(value, float) else bool(value)


def linear(expr: Expr, *, opaque: bool = False) -> Linear | None:
    """*expr* as a linear form over names, or None when it is not linear with int coefficients.

    With *opaque*, a sub-expression that is not linear (`i // 2`, `i * j`, a call) counts as one more name,
    keyed by its `repr`, instead of making the form None; a float or bool literal in a sum still makes it None.
    """
    if isinstance(expr, Const):
        if isinstance(expr.value, bool) or not isinstance(expr.value, int):
            return None
        return {"": expr.value}
    v = var_like(expr)
    if v is not None:
        return {v.name: 1}
    if isinstance(expr, UnaryOp) and expr.op == "-":
        inner = linear(expr.operand, opaque=opaque)
        return None if inner is None else {k: -c for k, c in inner.items()}
    if isinstance(expr, BinOp) and expr.op in ("+", "-"):
        a, b = linear(expr.lhs, opaque=opaque), linear(expr.rhs, opaque=opaque)
        if a is None or b is None:
            return None
        sign = 1 if expr.op == "+" else -1
        out = dict(a)
        for k, c in b.items():
            out[k] = out.get(k, 0) + sign * c
        return {k: c for k, c in out.items() if c != 0 or k == ""}
    if isinstance(expr, BinOp) and expr.op == "*":
        a, b = linear(expr.lhs, opaque=opaque), linear(expr.rhs, opaque=opaque)
        if a is not None and b is not None:
            if set(a) <= {""}:
                a, b = b, a
            if set(b) <= {""}:
                factor = b.get("", 0)
                return {name: c * factor for name, c in a.items()}
    return {repr(expr): 1} if opaque else None


def difference(hi: Expr, lo: Expr) -> int | None:
    """`hi - lo` as an int when it is constant (e.g. `(k0 + TK) - k0`), else None."""
    a, b = linear(hi), linear(lo)
    if a is None or b is None:
        value_hi, value_lo = evaluate(hi), evaluate(lo)
        if isinstance(value_hi, int) and isinstance(value_lo, int):
            return value_hi - value_lo
        return None
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) - c
    if any(c != 0 for k, c in out.items() if k != ""):
        return None
    return out.get("", 0)


def substitute(expr: Expr, values: dict[str, Expr]) -> Expr:
    """*expr* with every named value in *values* replaced."""
    def swap(e: Expr) -> Expr | None:
        v = var_like(e)
        return values.get(v.name) if v is not None else None
    return map_expr(expr, swap)


def fold(expr: Expr) -> Expr:
    """*expr* with every literal-only sub-expression replaced by its value."""
    def step(e: Expr) -> Expr | None:
        if isinstance(e, (BinOp, Compare, UnaryOp, BoolOp)):
            value = evaluate(e)
            if value is not None and not isinstance(value, float):
                return Const(value, span=getattr(e, "span"))
        return None
    return map_expr(expr, step)


def names_in(expr: Expr) -> set[str]:
    """The variable names *expr* reads."""
    from pypto_verify.ir import walk_exprs

    return {e.name for e in walk_exprs(expr) if isinstance(e, Var)}
