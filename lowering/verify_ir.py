"""SSA well-formedness of a module: what every pass must leave true (STYLE.md §7: tests run it after
every pass).

Checks, per function: every use names a value defined earlier on the path to it (parameters, earlier
statements of an enclosing body, the loop variable and iter_args inside their loop, return vars after
their loop / if); every name is defined once, except tensors (GM tensors keep their name when rebound,
docs/ir-conventions.md); a loop's inits, iter_args, final yield and return vars agree in number, and so
do both arms of an if and its return vars; a `Yield` appears only as the last statement of a loop body
or an if arm, and a `Return` only at the top level. `with` scopes are transparent: what they define is
visible after them.

Input: any Module (Form 1, 2 or 3). Output: a list of problems (empty when well formed), each one line
`function: path:line:col: what`. Never raises on bad IR: it is the test oracle for our own passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Eval, Expr, For, Function, If, Module, Return, Scope, Span, Stmt, TensorType, Type,
    Yield, expr_type, stmt_exprs, var_like, walk_exprs,
)


def verify_ir(module: Module) -> list[str]:
    """The SSA well-formedness problems of every function of *module* (empty when there are none)."""
    problems: list[str] = []
    for _, fn in module.functions():
        problems.extend(verify_function(fn))
    return problems


def verify_function(fn: Function) -> list[str]:
    """The problems of one function."""
    checker = _Checker(fn)
    checker.run()
    return checker.problems


@dataclass
class _Checker:
    fn: Function
    problems: list[str] = field(default_factory=list)
    types: dict[str, Type] = field(default_factory=dict)
    defined: set[str] = field(default_factory=set)

    def run(self) -> None:
        scope: set[str] = {"self"}
        for p in self.fn.params:
            if p.name in self.defined:
                self.report(p.span, f"parameter `{p.name}` is declared twice")
            self.defined.add(p.name)
            scope.add(p.name)
            if p.type is not None:
                self.types[p.name] = p.type
        self.body(self.fn.body, scope, role="function")

    def report(self, span: Span | None, message: str) -> None:
        self.problems.append(f"{self.fn.name}: {span}: {message}")

    # ------------------------------------------------------------------ definitions and uses

    def define(self, name: str, t: Type | None, span: Span, scope: set[str]) -> None:
        if name in self.defined:
            earlier = self.types.get(name)
            if not (isinstance(earlier, TensorType) or isinstance(t, TensorType)):
                self.report(span, f"`{name}` is defined more than once (only tensors may be rebound)")
        self.defined.add(name)
        if t is not None:
            self.types[name] = t
        scope.add(name)

    def uses(self, stmt: Stmt, exprs: tuple[Expr, ...], scope: set[str]) -> None:
        span = getattr(stmt, "span", None)
        missing: list[str] = []
        for expr in exprs:
            for e in walk_exprs(expr):
                v = var_like(e)
                if v is not None and v.name not in scope and v.name not in missing:
                    missing.append(v.name)
        for name in missing:
            self.report(span, f"`{name}` is used but not defined on this path")

    # ------------------------------------------------------------------ bodies

    def body(self, body: tuple[Stmt, ...], scope: set[str], role: str) -> None:
        """*role*: `function`, `loop`, `arm` or `scope` (what the body belongs to)."""
        for i, stmt in enumerate(body):
            last = i == len(body) - 1
            if isinstance(stmt, Yield):
                self.uses(stmt, stmt.values, scope)
                if not last or role not in ("loop", "arm"):
                    self.report(stmt.span, "a yield must be the last statement of a loop body or an if arm")
            elif isinstance(stmt, Return):
                self.uses(stmt, stmt.values, scope)
                if role != "function":
                    self.report(stmt.span, "a return must be at the top level of the function")
            elif isinstance(stmt, Assign):
                self.uses(stmt, (stmt.value,), scope)
                t = stmt.type
                if t is None and isinstance(stmt.value, Call):
                    t = ops.infer_call_type(stmt.value, self.types)
                elif t is None:
                    t = expr_type(stmt.value, self.types)
                self.define(stmt.target.name, t, stmt.span, scope)
            elif isinstance(stmt, Eval):
                self.uses(stmt, (stmt.value,), scope)
            elif isinstance(stmt, For):
                self.loop(stmt, scope)
            elif isinstance(stmt, If):
                self.branch(stmt, scope)
            elif isinstance(stmt, Scope):
                self.uses(stmt, (stmt.call,), scope)
                self.body(stmt.body, scope, role="scope")
            else:
                self.uses(stmt, stmt_exprs(stmt), scope)

    def loop(self, loop: For, scope: set[str]) -> None:
        self.uses(loop, (loop.start, loop.stop, loop.step, *loop.inits), scope)
        n = len(loop.iter_args)
        if len(loop.inits) != n or len(loop.return_vars) != n:
            self.report(loop.span, f"loop over `{loop.loop_var.name}` has {n} iter_args, {len(loop.inits)} "
                                   f"inits and {len(loop.return_vars)} return vars")
        if len(loop.return_types) != len(loop.return_vars):
            self.report(loop.span, f"loop over `{loop.loop_var.name}` has {len(loop.return_types)} return "
                                   f"types for {len(loop.return_vars)} return vars")
        inner = set(scope)
        self.define(loop.loop_var.name, None, loop.span, inner)
        for arg, init in zip(loop.iter_args, loop.inits):
            self.define(arg.name, expr_type(init, self.types), loop.span, inner)
        self.body(loop.body, inner, role="loop")
        last = loop.body[-1] if loop.body else None
        if n:
            if not isinstance(last, Yield):
                self.report(loop.span, f"loop over `{loop.loop_var.name}` carries {n} values but its body does "
                                       "not end in a yield")
            elif len(last.values) != n:
                self.report(last.span, f"loop over `{loop.loop_var.name}` yields {len(last.values)} values for "
                                       f"{n} iter_args")
        elif isinstance(last, Yield) and last.values:
            self.report(last.span, f"loop over `{loop.loop_var.name}` yields values but carries none")
        yielded = last.values if isinstance(last, Yield) else ()
        for i, rv in enumerate(loop.return_vars):
            t = loop.return_types[i] if i < len(loop.return_types) else None
            if t is None and i < len(yielded):
                t = expr_type(yielded[i], self.types)
            self.define(rv.name, t, loop.span, scope)

    def branch(self, stmt: If, scope: set[str]) -> None:
        self.uses(stmt, (stmt.cond,), scope)
        n = len(stmt.return_vars)
        if len(stmt.return_types) != n:
            self.report(stmt.span, f"if has {len(stmt.return_types)} return types for {n} return vars")
        arm_yields = []
        for arm_name, arm in (("then", stmt.then_body), ("else", stmt.else_body)):
            self.body(arm, set(scope), role="arm")
            last = arm[-1] if arm else None
            if n:
                if not isinstance(last, Yield):
                    self.report(stmt.span, f"the {arm_name} arm of an if with {n} return vars does not end "
                                           "in a yield")
                elif len(last.values) != n:
                    self.report(last.span, f"the {arm_name} arm yields {len(last.values)} values for {n} "
                                           "return vars")
            elif isinstance(last, Yield) and last.values:
                self.report(last.span, f"the {arm_name} arm yields values but the if has no return vars")
            arm_yields.append(last.values if isinstance(last, Yield) else ())
        for i, rv in enumerate(stmt.return_vars):
            t = stmt.return_types[i] if i < len(stmt.return_types) else None
            for values in arm_yields:
                if t is None and i < len(values):
                    t = expr_type(values[i], self.types)
            self.define(rv.name, t, stmt.span, scope)


__all__ = ["verify_ir", "verify_function"]
