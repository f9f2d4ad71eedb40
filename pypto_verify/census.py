"""The census of accumulator idiom sites in source IR (issue: `pypto-verify sites`).

Owns: finding and classifying the three written forms of a K reduction's initialisation:
- `if-phi`: an `if` whose arms produce one accumulator by a fresh matmul and by a matmul_acc (either
  arm order, any condition; one site per `if`, however many accumulators it seeds);
- `seed-before-loop`: a fresh matmul whose result enters a loop that accumulates into it;
- `init-cond`: a `matmul_acc(..., init_cond=...)` written by the user.
Input: a parsed `ir.Module` (source form, before lowering). Output: `IdiomSite` records with a class:
loop kind, condition form, accumulators, nesting depth, consumer.
"""

from __future__ import annotations

from collections import Counter

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, Expr, For, Function, If, Module, Scope, Stmt, UnaryOp,
    Yield, display_name, var_like, walk_exprs, walk_stmts, yield_values, replace,
)
from pypto_verify.idiom import IdiomSite
from pypto_verify.scalar import truth



def _var_name(expr: Expr | None) -> str | None:
    """The name of the variable *expr* is (through a plain `Var`), or None."""
    var = var_like(expr)
    return var.name if var is not None else None


def find_sites(module: Module) -> list[IdiomSite]:
    """Every idiom site of every function of *module*, in source order."""
    sites: list[IdiomSite] = []
    for _, fn in module.functions():
        sites.extend(_FunctionCensus(module.path, fn).run())
    return sorted(sites, key=lambda s: (s.path, s.line, s.form))


def summarise(sites: list[IdiomSite]) -> dict[str, dict[str, int]]:
    """Counts by form and by each class dimension."""
    out: dict[str, dict[str, int]] = {}
    for key in ("form", "loop", "condition", "accumulators", "consumer"):
        out[key] = dict(sorted(Counter(str(getattr(s, key)) for s in sites).items()))
    return out


class _FunctionCensus:
    def __init__(self, path: str, fn: Function) -> None:
        self.path, self.fn = path, fn
        self.producer: dict[str, Call] = {}
        self.defs: dict[str, Expr] = {}
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, Assign):
                self.defs[stmt.target.name] = stmt.value
                if isinstance(stmt.value, Call):
                    self.producer[stmt.target.name] = stmt.value
        self.phi_of: dict[str, tuple[If, int]] = {}
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, If):
                for i, rv in enumerate(stmt.return_vars):
                    self.phi_of[rv.name] = (stmt, i)
        self.readers = self._readers()

    def run(self) -> list[IdiomSite]:
        out: list[IdiomSite] = []
        self._walk(self.fn.body, loops=(), out=out, dead="")
        return out

    def _walk(self, body: tuple[Stmt, ...], loops: tuple[For, ...], out: list[IdiomSite], dead: str) -> None:
        """*dead*: why the lowering removes everything in *body* ("" when it may run)."""
        for stmt in body:
            if isinstance(stmt, If):
                site = self._if_site(stmt, loops)
                if site is not None:
                    out.append(replace(site, removed=dead) if dead else site)
                taken = truth(stmt.cond)
                why = f"the `if` at line {stmt.span.line} is {'true' if taken else 'false'} with the file's constants"
                self._walk(stmt.then_body, loops, out, dead or (why if taken is False else ""))
                self._walk(stmt.else_body, loops, out, dead or (why if taken is True else ""))
            elif isinstance(stmt, For):
                out.extend(replace(s, removed=dead) if dead else s for s in self._seed_sites(stmt, loops))
                self._walk(stmt.body, loops + (stmt,), out, dead)
            elif isinstance(stmt, Scope):
                self._walk(stmt.body, loops, out, dead)
            elif isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in ops.ACC_MADS:
                if ops.matmul_parts(stmt.value).init_cond is not None:
                    site = self._site(stmt.span.line, "init-cond", loops, "-", 1, self._consumer(stmt.target.name))
                    out.append(replace(site, removed=dead) if dead else site)

    # -- if-phi ----------------------------------------------------------------------------------

    def _if_site(self, stmt: If, loops: tuple[For, ...]) -> IdiomSite | None:
        seeded = 0
        consumer = "none"
        for i, rv in enumerate(stmt.return_vars):
            if self._phi_is_site(stmt, i):
                seeded += 1
                if consumer == "none":
                    consumer = self._consumer(rv.name)
        if not seeded:
            return None
        return self._site(stmt.span.line, "if-phi", loops, self._condition(stmt.cond, loops), seeded, consumer)

    def _phi_is_site(self, stmt: If, i: int) -> bool:
        """Phi i of *stmt* is seeded by a fresh matmul on one arm and accumulated on the other."""
        then_k = self._arm_kinds(yield_values(stmt.then_body), i)
        else_k = self._arm_kinds(yield_values(stmt.else_body), i)
        return ("fresh" in then_k and "accumulate" in else_k) or ("accumulate" in then_k and "fresh" in else_k)

    def _arm_kinds(self, values: tuple[Expr, ...], i: int, depth: int = 0) -> set[str]:
        """How an arm produces its i-th yield: `fresh`, `accumulate`, or — through an `elif` chain — the
        kinds of the nested if's arms (`site` when the nested if is itself a site, counted there)."""
        if i >= len(values) or depth > 32:
            return set()
        v = var_like(values[i])
        if v is None:
            return set()
        call = self.producer.get(v.name)
        if call is not None:
            return {"fresh"} if call.op in ops.INIT_MADS else {"accumulate"} if call.op in ops.ACC_MADS else set()
        nested = self.phi_of.get(v.name)
        if nested is None:
            return set()
        inner, j = nested
        if self._phi_is_site(inner, j):
            return {"site"}
        return (self._arm_kinds(yield_values(inner.then_body), j, depth + 1)
                | self._arm_kinds(yield_values(inner.else_body), j, depth + 1))

    def _condition(self, cond: Expr, loops: tuple[For, ...]) -> str:
        if isinstance(cond, (BoolOp, UnaryOp)):
            return "combined"
        if not isinstance(cond, Compare):
            return "other"
        loop_vars = {loop.loop_var.name: loop for loop in loops}
        for side, other in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
            v = var_like(side)
            if v is None:
                continue
            if v.name in loop_vars:
                loop = loop_vars[v.name]
                if cond.op != "==" or not _is_zero(other):
                    return "other"
                step = ops.const_int(loop.step)
                return "offset-loop-var" if step is not None and step > 1 else "loop-index"
            definition = self.defs.get(v.name)
            if isinstance(definition, BinOp) and any(
                    _var_name(e) in loop_vars for e in walk_exprs(definition)):
                return "derived-offset" if cond.op == "==" and _is_zero(other) else "other"
        return "other"

    # -- seed before loop ------------------------------------------------------------------------

    def _seed_sites(self, loop: For, loops: tuple[For, ...]) -> list[IdiomSite]:
        out = []
        for arg, init in zip(loop.iter_args, loop.inits):
            v = var_like(init)
            call = self.producer.get(v.name) if v is not None else None
            if call is None or call.op not in ops.INIT_MADS:
                continue
            if self._accumulates_into(loop.body, arg.name):
                i = loop.iter_args.index(arg)
                rv = loop.return_vars[i].name if i < len(loop.return_vars) else ""
                out.append(self._site(call.span.line or loop.span.line, "seed-before-loop", loops + (loop,), "-", 1,
                                      self._consumer(rv)))
        return out

    def _accumulates_into(self, body: tuple[Stmt, ...], name: str) -> bool:
        for stmt in walk_stmts(body):
            if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op in ops.ACC_MADS:
                acc = var_like(ops.matmul_parts(stmt.value).acc)
                if acc is not None and acc.name == name:
                    return True
        return False

    # -- shared ----------------------------------------------------------------------------------

    def _site(self, line: int, form: str, loops: tuple[For, ...], condition: str, accumulators: int,
              consumer: str) -> IdiomSite:
        loop = loops[-1].kind.value if loops else "none"
        return IdiomSite(self.path, line, self.fn.name, form, loop, condition, accumulators, len(loops), consumer)

    def _readers(self) -> dict[str, list[Stmt]]:
        readers: dict[str, list[Stmt]] = {}
        for stmt in walk_stmts(self.fn.body):
            exprs: tuple[Expr, ...] = ()
            if isinstance(stmt, Assign):
                exprs = (stmt.value,)
            elif isinstance(stmt, Yield):
                exprs = stmt.values
            elif isinstance(stmt, For):
                exprs = stmt.inits
            for expr in exprs:
                for e in walk_exprs(expr):
                    v = var_like(e)
                    if v is not None:
                        readers.setdefault(v.name, []).append(stmt)
        return readers

    def _consumer(self, name: str, depth: int = 0) -> str:
        """What finally reads the chain *name*: follows phis, carries and copies to the first real reader."""
        if depth > 16:
            return "none"
        for stmt in self.readers.get(name, []):
            if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
                op = stmt.value.op
                if op in ops.ACC_MADS and _var_name(ops.matmul_parts(stmt.value).acc) == name:
                    return self._consumer(stmt.target.name, depth + 1)
                return _consumer_kind(stmt.value)
            if isinstance(stmt, Assign) and var_like(stmt.value) is not None:
                return self._consumer(stmt.target.name, depth + 1)
        for stmt in walk_stmts(self.fn.body):
            if isinstance(stmt, For):
                y = yield_values(stmt.body)
                for i, rv in enumerate(stmt.return_vars):
                    if i < len(y) and _var_name(y[i]) == name:
                        return self._consumer(rv.name, depth + 1)
                for i, init in enumerate(stmt.inits):
                    if _var_name(init) == name and i < len(stmt.iter_args):
                        return self._consumer(stmt.iter_args[i].name, depth + 1)
            if isinstance(stmt, If):
                for arm in (stmt.then_body, stmt.else_body):
                    y = yield_values(arm)
                    for i, rv in enumerate(stmt.return_vars):
                        if i < len(y) and _var_name(y[i]) == name:
                            return self._consumer(rv.name, depth + 1)
        return "none"


def _consumer_kind(call: Call) -> str:
    op = call.op.split(".", 1)[-1]
    if op in ("store", "assemble"):
        atomic = call.kwarg("atomic")
        return "atomic-assemble" if atomic is not None else ("assemble" if op == "assemble" else "store")
    if op in ("cast",):
        return "cast"
    if op in ("reshape",):
        return "reshape"
    if op in ("move",):
        return "move"
    return "vector"


def _is_zero(expr: Expr) -> bool:
    return isinstance(expr, Const) and expr.value == 0 and not isinstance(expr.value, bool)


def display(site: IdiomSite) -> str:
    removed = f" (removed by the lowering: {site.removed})" if site.removed else ""
    return f"{site.path}:{site.line}: {site.form} in `{display_name(site.function)}` [{site.klass}]{removed}"
