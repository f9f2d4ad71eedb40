"""The AST walk: a kernel file's text → `ir.Module`, one `_read_<node>` per construct.

Owns: reading all three input forms of KERNEL_LANGUAGE.md into the IR of docs/ir-conventions.md
(Form 1 rebinding → SSA, explicit `pl.yield_` SSA of Forms 2 and 3, MemRefs and allocs), helper
inlining, inline-slice hoisting, op-name mapping (`pl.matmul` → `tensor.matmul` / `tile.matmul`),
and type checking of written annotations (`ops.infer_call_type`). Rule: PV000 (input errors).

Input: source text and its path; the file is parsed with `ast` and never imported or executed.
Output: `ModuleResult` (the module, one `InputError` per problem, warnings). A function with an input
error is left out; the other functions of the file are still read.

Beyond the ops of docs/ir-conventions.md, what the wild kernels hold reads as (all opaque, all
printed back by `printer.py` to the same IR):
- `call.f(...)`: a call of another decorated function of the file or of a builtin (`f(...)`);
  `self.f(...)`: a call of a program method; `extern.f(...)`: a call of an imported or unknown function,
  or of a function that was left out (`pl.extern.f(...)`);
- `method.m(recv, ...)`: a method call `recv.m(...)` (an attribute read `recv.m` carries `__attribute__=True`);
- `funcref("f")`: a function named as a value; `dynamic("N")`: a symbolic size (`pl.dynamic("N")`, or a
  module name that is not a static constant);
- `opaque.listcomp(reads...)` (`opaque.lambda`, `opaque.ifexp`, ...): an expression outside the language
  that touches no accumulator, with the kernel values it reads;
- `tensor.getitem(v, i)` / `v = tensor.setitem(v, i, x)`: indexing a value that is not a tensor (a task-id
  array); `Assign(t, Call("scope.task_id"))` first in a `Scope` body: `with pl.at(...) as t:`;
- a loop over another `pl.X(...)` (`pl.split_aiv`) is a RANGE `For` with the kwarg `iterator="X"`.

What only PyPTO's own printer writes (docs/form3-grammar.md; tests/frontend/test_printer_grammar.py has one
test per production):
- `pl.func_attr({...})`: an `Eval` of `func_attr` (compiler metadata; kept, not checked, one warning);
- a scalar `pl.cast(v, pl.DT)` is `tensor.cast(v, DT)` typed as that scalar (the one spelling every later
  stage reads), a scalar `pl.min(a, b)` / `pl.max(a, b)` the `BinOp` `min` / `max` (on tensors and tiles
  they stay the element-wise ops);
- `pl.FunctionType.Group | Spmd | Inline` read as Opaque, `Graph` as Orchestration (a warning);
- `optimizations=[pl.split(...), pl.cross_core_slot(...)]` of a scope or `pl.spmd` keeps those calls as
  written (they are scope options, not ops);
- `for (a,) in pl.while_(init_values=(x,)):` is skipped like a `while` loop (no trip count); either is a
  PV000 when it runs a tile or tensor op (its loads and stores would escape every check);
- `with pl.scope():` that is a whole loop body or `if` arm may hold that body's final `pl.yield_`, and a
  body that carries nothing may end in `pl.yield_()`;
- `tensor.view` / `reinterpret_view` results take the shape operand's shape; `aiv_shard` / `aic_gather`
  results are left open (their written annotation is the type).
"""

from __future__ import annotations

import ast
import copy
import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypto_verify import ops
from pypto_verify.frontend import shapes
from pypto_verify.diagnostics import MAX_FILE_SIZE, InputError
from pypto_verify.frontend import constants as cst
from pypto_verify.frontend.ssa import (
    NO_STATIC, Binding, Frame, Names, accumulator_names, assigned_names, child_nodes, gm_names, touches,
    walk_statements,
)
from pypto_verify.frontend.types import (
    annotation_conflict, canonical_path, describe, read_param_annotation, read_return_annotation, read_type,
)
from pypto_verify.ir import (
    Assign, BinOp, BoolOp, Call, Compare, Const, DictExpr, DType, Eval, Expr, For, Function,
    FunctionKind, If, IterArg, ListExpr, LoopKind, MemSpace, Module, Param, Program, PtrType, Return,
    ScalarType, Scope, Span, Stmt, Sym, TensorType, TileType, TupleExpr, Type, UnaryOp, Var, Yield, display_name, map_stmt_exprs, map_stmts,
    var_like,
    walk_exprs, replace,
)
from pypto_verify.scalar import linear

# ---------------------------------------------------------------------------------------------- tables

_RESHAPING_VIEWS = frozenset({"tensor.view", "tensor.reinterpret_view", "tile.reinterpret_view"})
"""Views whose result shape is an operand (PyPTO `tensor.view(x, shape, valid_shape, layout=)`,
`reinterpret_view(x, dtype=, shape=)`), not the first operand's: typed by `FunctionReader._view_type`."""
_SPLIT_OPS = frozenset({"tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather"})
"""Cross-core split ops: the result's shape depends on the enclosing `pl.split_aiv` mode."""
_UNMODELLED_FUNCTION_TYPES = {
    # PyPTO's FunctionType values beyond ir.FunctionKind (include/pypto/ir/function.h), with what they are
    "Group": (FunctionKind.OPAQUE, "a wrapper calling co-scheduled AIC and AIV kernels; "
                                   "a kernel only if it holds tile ops"),
    "Spmd": (FunctionKind.OPAQUE, "a wrapper dispatching a kernel over a grid; a kernel only if it holds tile ops"),
    "Inline": (FunctionKind.OPAQUE, "a body spliced into its callers; a kernel only if it holds tile ops"),
    "Graph": (FunctionKind.ORCHESTRATION, "a replayable orchestration fragment"),
}
_LOOP_KINDS = {
    "range": LoopKind.RANGE, "pipeline": LoopKind.PIPELINE, "unroll": LoopKind.UNROLL,
    "parallel": LoopKind.PARALLEL, "spmd": LoopKind.SPMD,
}
_BINOP_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/", ast.Pow: "**",
}
_TENSOR_BINOPS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}
_CMP_SYMBOLS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_UNIFIED_RENAMES = {"create_tensor": "tensor.create", "create_tile": "tile.create"}

KNOWN_OPS = frozenset({
    # TARGET_FACTS.md / docs/ir-conventions.md and the pypto-lib kernels (Aug 2026): vector and data ops
    "matmul", "matmul_acc", "matmul_bias", "create", "load", "store", "extract", "move", "assemble", "alloc",
    "slice", "cast", "reshape", "read", "write", "full", "add", "sub", "mul", "div", "exp", "log", "sqrt",
    "rsqrt", "recip", "neg", "abs", "maximum", "minimum", "max", "min", "row_sum", "row_max", "row_min",
    "col_sum", "col_max", "col_min", "row_expand", "col_expand", "row_expand_mul", "row_expand_div",
    "row_expand_sub", "row_expand_add", "col_expand_mul", "col_expand_div", "col_expand_sub",
    "col_expand_add", "col_expand_expdif", "row_argmax", "gather", "gather_row", "scatter", "set_validshape",
    "fillpad", "arange", "mrgsort", "sort32", "cmp", "cmps", "sel", "concat", "transpose", "transpose_view", "dim",
    "get_block_idx", "get_subblock_idx", "fmods", "select", "split", "no_dep", "spmd_submit", "aiv_shard",
    "create_l1", "sigmoid", "silu", "relu", "tanh", "adds", "muls", "subs", "divs", "maxs", "mins", "expand",
    "broadcast", "sum", "mean", "pow", "rem", "and_", "or_", "xor", "not_", "shl", "shr", "topk", "view",
    "getitem", "setitem", "exp2", "log2", "floor", "ceil", "round", "clip", "where", "zeros", "ones",
})


_KERNEL_EXPR_BUDGET = 100_000
"""Static-evaluation steps for one kernel expression (a call of a plain helper on constants included)."""

MAX_EXPR_DEPTH = 100
"""Deepest expression nesting read (an AST depth; `pl.add(pl.add(x))` is 5 deep)."""


@dataclass
class ModuleResult:
    module: Module
    errors: list[InputError]
    warnings: list[InputError]


_CALL_SITE_ROUNDS = 8
"""Readings of one file that may type bare `pl.jit.inline` parameters from their calls: one call level each."""


@dataclass(frozen=True)
class _CallSite:
    """One call of a decorated function of this file: what it passes for each parameter."""

    line: int
    caller: str
    types: dict[str, Type | None]
    texts: dict[str, str]
    """Each argument as written."""
    why: dict[str, str]
    """Why an argument that is an untyped parameter of the caller has no type (`Param.untyped`)."""
    runtime: frozenset[str] = frozenset()
    """The parameters whose argument is a run-time shaped parameter of the caller (`Param.runtime_shaped`)."""


def _type_text(t: Type | None) -> str:
    if isinstance(t, (TensorType, TileType)):
        return f"[{', '.join(print_dim(d) for d in t.shape)}] {t.dtype.name}"
    return str(t)


class _Unmaterialisable(Exception):
    """A static value that is not an IR value (a config instance, a function)."""


# ---------------------------------------------------------------------------------------------- module


class ModuleReader:
    """Reads one file: finds the programs and decorated functions, reads each function."""

    def __init__(self, path: str, text: str, tree: ast.Module, max_file_size: int = MAX_FILE_SIZE,
                 modules: Mapping[Path, str] | None = None) -> None:
        self.path = path
        self.text = text
        self.tree = tree
        self.errors: list[InputError] = []
        self.warnings: list[InputError] = []
        self._warned: set[str] = set()
        self.failed: set[tuple[str | None, str]] = set()
        """Functions left out for an input error: (program, or None for a free function; name)."""
        self.loader = cst.Loader(max_file_size=max_file_size, modules=modules)
        self.scope = self.loader.module_scope(Path(path), tree)
        self.calls: dict[str, list[_CallSite]] = {}
        """The calls of each decorated function of this file, as the last reading found them."""
        self.inferred: dict[str, dict[str, tuple[Type | None, str, bool]]] = {}
        """The bare `pl.Tensor` parameters of each `pl.jit.inline` function: the type their calls give
        them, or None and why not, and whether every call passes a run-time shaped tensor
        (`_call_site_params`)."""

    def read(self) -> ModuleResult:
        """The file read; again while its calls type more bare `pl.jit.inline` parameters (each reading
        types them one call level deeper: an entry's typed argument, then the inline callee's own calls)."""
        result = self._read_once()
        for _ in range(_CALL_SITE_ROUNDS):
            inferred = self._call_site_params()
            if inferred == self.inferred:
                break
            self.inferred = inferred
            result = self._read_once()
        return result

    def _read_once(self) -> ModuleResult:
        self.errors, self.warnings, self._warned, self.failed, self.calls = [], [], set(), set(), {}
        programs: list[Program] = []
        free: list[Function] = []
        free_at: int | None = None
        for node, scope in self._top_level(self.tree.body, self.scope):
            if isinstance(node, ast.ClassDef) and self._is_program(node):
                programs.append(self._read_program(node, scope))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._pl_decorator(node) is not None:
                if free_at is None:
                    free_at = len(programs)
                fn = self._read_function_safely(node, None, scope=scope)
                if fn is not None:
                    free.append(fn)
        if free_at is not None and free:
            programs.insert(free_at, Program(None, tuple(free), span=self.span_of(self.tree.body[0])))
        if self.failed:
            programs = [replace(p, functions=tuple(self._unlink_failed(p.name, f) for f in p.functions))
                        for p in programs]
        return ModuleResult(Module(self.path, tuple(programs)), self.errors, self.warnings)

    def record_call(self, callee: str, site: _CallSite) -> None:
        self.calls.setdefault(callee, []).append(site)

    def _call_site_params(self) -> dict[str, dict[str, tuple[Type | None, str, bool]]]:
        """PyPTO splices a `pl.jit.inline` function into each caller, so a parameter annotated with a bare
        `pl.Tensor` has the type of the argument each call passes: that type when every call of the file
        passes the same one, else None with the reason (no call, an argument of no type, calls that
        disagree)."""
        out: dict[str, dict[str, tuple[Type | None, str, bool]]] = {}
        for node, _ in self._top_level(self.tree.body, self.scope):
            if not isinstance(node, ast.FunctionDef) or not self._is_inline(node):
                continue
            bare = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
                    if self.bare_tensor(a.annotation)]
            if not bare:
                continue
            sites = self.calls.get(node.name, [])
            here = f"is a bare `pl.Tensor` of the `pl.jit.inline` `{node.name}`, which takes the type of the argument each call passes"
            params: dict[str, tuple[Type | None, str, bool]] = {}
            for param in bare:
                if not sites:
                    params[param] = (None, f"{here}, and nothing in this file calls `{node.name}`", False)
                    continue
                untyped = next((site for site in sites if site.types.get(param) is None), None)
                if untyped is not None:
                    passed = untyped.texts.get(param)
                    what = f"passes `{passed}`, which {untyped.why.get(param) or 'has no type pypto-verify reads'}" \
                        if passed else f"passes no argument for `{param}`"
                    runtime = all(param in site.runtime for site in sites)
                    params[param] = (None, f"{here}; the call at line {untyped.line} (in `{untyped.caller}`) {what}",
                                     runtime)
                    continue
                types = {site.types[param] for site in sites}
                if len(types) > 1:
                    shown = "; ".join(f"line {site.line}: {_type_text(site.types[param])}" for site in sites)
                    params[param] = (None, f"{here}, and its calls pass different types ({shown})", False)
                    continue
                params[param] = (types.pop(), "", False)
            out[node.name] = params
        return out

    def _is_inline(self, node: ast.FunctionDef) -> bool:
        decorator = self._pl_decorator(node)
        if decorator is None:
            return False
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.pl_path_static(target) in ("jit.inline", "inline")

    def bare_tensor(self, annotation: ast.expr | None) -> bool:
        """*annotation* is `pl.Tensor`, `pl.Out[pl.Tensor]` or `pl.InOut[pl.Tensor]`: no shape, no dtype."""
        if isinstance(annotation, ast.Subscript) and self.pl_path_static(annotation.value) in ("Out", "InOut"):
            annotation = annotation.slice
        return annotation is not None and self.pl_path_static(annotation) == "Tensor"

    def entry_tensor(self, node: ast.FunctionDef | ast.AsyncFunctionDef, annotation: ast.expr | None) -> bool:
        """*annotation* is a bare `pl.Tensor` of the `pl.jit` entry *node*: pypto specialises the entry on the
        tensors each call passes, so the parameter's extents are those of the tensor passed at run time."""
        decorator = self._pl_decorator(node)
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.bare_tensor(annotation) and target is not None and self.pl_path_static(target) == "jit"

    def untyped_reason(self, node: ast.FunctionDef | ast.AsyncFunctionDef, annotation: ast.expr | None) -> str:
        """Why a parameter of *node* with *annotation* has no type (a clause after its name)."""
        if self.bare_tensor(annotation):
            decorator = self._pl_decorator(node)
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            path = self.pl_path_static(target) if target is not None else None
            return (f"is a bare `pl.Tensor` of the `pl.{path}` entry `{node.name}`: its shape and dtype are those of "
                    "the tensor passed at run time, which the source does not state")
        if annotation is None:
            return "has no annotation"
        return f"has an annotation pypto-verify does not read (`{ast.unparse(annotation)}`)"

    def _unlink_failed(self, program: str | None, fn: Function) -> Function:
        """Calls of a function that was left out (its input error) become opaque `extern.` calls, so
        the printed module names nothing it does not define: `self.f(...)` when *program*'s own `f`
        failed, `call.f(...)` when the free function `f` did."""
        def relink(expr: Expr) -> Expr | None:
            if isinstance(expr, Call) and expr.op.startswith(("call.", "self.")):
                owner = program if expr.op.startswith("self.") else None
                if (owner, expr.op.split(".", 1)[1]) in self.failed:
                    return replace(expr, op=f"extern.{expr.op}")
            return None

        return replace(fn, body=map_stmts(fn.body, lambda stmt: (map_stmt_exprs(stmt, relink),)))

    def _top_level(self, body: list[ast.stmt], scope: cst.Scope) -> list[tuple[ast.stmt, cst.Scope]]:
        """The module's statements with the scope their names resolve in: the branch a static module-level
        `if` takes is spliced in (`if M.name == "flash": @pl.jit.inline def ...`), as are `try` bodies and
        the programs a factory function builds (`def build(): @pl.program class X: ...`)."""
        out: list[tuple[ast.stmt, cst.Scope]] = []
        for node in body:
            if isinstance(node, ast.If):
                try:
                    taken = bool(self.scope.evaluator.eval(node.test, self.scope))
                except (cst.NotStatic, RecursionError):
                    out.extend(self._top_level(node.body, scope))
                    out.extend(self._top_level(node.orelse, scope))
                    continue
                out.extend(self._top_level(node.body if taken else node.orelse, scope))
            elif isinstance(node, ast.Try):
                out.extend(self._top_level(node.body, scope))
            elif isinstance(node, ast.FunctionDef) and self._pl_decorator(node) is None:
                programs = [item for item in node.body if isinstance(item, ast.ClassDef) and self._is_program(item)]
                if programs:
                    factory = cst.FactoryScope(self.scope, node)
                    out.extend((item, factory) for item in programs)
            else:
                out.append((node, scope))
        return out

    def span_of(self, node: ast.AST) -> Span:
        # ast columns are 0-based; we print 1-based (STYLE.md §6)
        return Span(self.path, getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)

    def warn_once(self, key: str, span: Span, what: str, why: str) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        self.warnings.append(InputError(span, what, why))

    def pl_path_static(self, node: ast.expr) -> str | None:
        """The `pypto.language` path *node* names at module level (`pl.jit.inline` → `jit.inline`)."""
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        try:
            value = self.scope.evaluator.eval(node, self.scope)
        except (cst.NotStatic, RecursionError):
            return None
        return value.path if isinstance(value, cst.PlPath) else None

    def _is_program(self, node: ast.ClassDef) -> bool:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if self.pl_path_static(target) == "program":
                return True
        return False

    def _pl_decorator(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr | None:
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            path = self.pl_path_static(target)
            if path is not None and (path == "function" or path == "jit" or path.startswith("jit.") or path == "inline"):
                return decorator
        return None

    def _read_program(self, node: ast.ClassDef, scope: cst.Scope) -> Program:
        functions: list[Function] = []
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._pl_decorator(item) is not None:
                fn = self._read_function_safely(item, node.name, scope=scope)
                if fn is not None:
                    functions.append(fn)
        return Program(node.name, tuple(functions), span=self.span_of(node))

    def _read_function_safely(self, node: ast.FunctionDef | ast.AsyncFunctionDef, program: str | None,
                              scope: cst.Scope) -> Function | None:
        """The function, or None after recording its input error (*program*: its class, None when free)."""
        try:
            fn = FunctionReader(self, node, program is not None, scope).read()
            for mismatch in shapes.matmul_k_mismatches(fn)[:1]:  # PV000: operands that disagree on K
                raise InputError(mismatch.span, mismatch.what, mismatch.why)
            return fn
        except InputError as error:
            if all((e.span, e.what) != (error.span, error.what) for e in self.errors):  # one per failing import
                self.errors.append(error)
        except RecursionError:
            self.errors.append(InputError(self.span_of(node), f"function `{node.name}`",
                                          "its statements or expressions are nested too deeply to read"))
        self.failed.add((program, node.name))
        return None


# ---------------------------------------------------------------------------------------------- function


def _target_declarations(body: list[ast.stmt]) -> dict[str, ast.AnnAssign]:
    """The bare annotations (`a: T`, no value) directly above the final statement of *body*, by name."""
    declared: dict[str, ast.AnnAssign] = {}
    for stmt in reversed(body[:-1]):
        if not (isinstance(stmt, ast.AnnAssign) and stmt.value is None and isinstance(stmt.target, ast.Name)):
            break
        declared.setdefault(stmt.target.id, stmt)
    return declared


def _is_empty_yield(stmt: ast.stmt) -> bool:
    """`pl.yield_()` written as a statement, with nothing to yield."""
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and not stmt.value.args and not stmt.value.keywords)


@dataclass
class _Terminal:
    """The `pl.yield_` that ends a loop body or an if arm."""

    targets: list[tuple[str, Type | None]]
    values: list[Expr]
    node: ast.stmt


@dataclass
class _LoopHeader:
    kind: LoopKind
    start: Expr
    stop: Expr
    step: Expr
    stage: int | None
    inits: list[Expr]
    kwargs: list[tuple[str, Expr]]
    has_init_values: bool = False


@dataclass
class _KernelScope(cst.Scope):
    """Static lookup inside a kernel: local bindings shadow the module's names."""

    reader: FunctionReader

    @property
    def module(self) -> cst.ModuleScope:
        return self.reader.frame.scope.module

    def lookup(self, name: str) -> Any:
        binding = self.reader.frame.env.get(name)
        if binding is not None:
            if binding.poison is None and binding.static is not NO_STATIC:
                return binding.static
            raise cst.NotStatic(f"`{name}` is a kernel value")
        return self.reader.frame.scope.lookup(name)

    def assign(self, name: str, value: Any) -> None:
        raise cst.NotStatic("assignment inside a kernel expression")


class FunctionReader:
    """Reads one decorated function into an `ir.Function`; raises `InputError` on the first problem."""

    def __init__(self, module: ModuleReader, node: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool,
                 scope: cst.Scope) -> None:
        self.module = module
        self.node = node
        self.in_class = in_class
        self.names = Names()
        self.types: dict[str, Type] = {}
        self.pending: list[Stmt] = []
        self.frame = Frame({}, set(), set(), scope)
        self.static_scope = _KernelScope(self)
        self.evaluator = cst.Evaluator(cst.Budget(_KERNEL_EXPR_BUDGET))
        self.has_self = False
        self.call_types: dict[Call, Type] = {}
        """Result types of calls `ops` cannot type (a call of another kernel of this file)."""
        self.slice_shapes: dict[str, tuple[Expr, ...]] = {}
        """The shape of every value defined by a slice (checked where a constant shape is required)."""
        self.runtime: set[str] = set()
        """Scalars known only at run time (scalar parameters, `pl.read` results): symbolic values."""
        self.result_items: dict[Call, list[Type | None]] = {}
        """The type of each value a call of an imported function returns, where it returns several."""
        self.untyped: dict[str, str] = {}
        """Each parameter of no type: why (`Param.untyped`)."""
        self.runtime_shaped: set[str] = set()
        """The parameters whose extents are those of the tensor passed at run time (`Param.runtime_shaped`)."""

    # ------------------------------------------------------------------------------------------ utilities

    def span(self, node: ast.AST) -> Span:
        return self.module.span_of(node)

    def error(self, node: ast.AST, what: str, why: str = "") -> InputError:
        return InputError(self.span(node), what, why)

    def import_error(self, node: ast.AST, name: str, failure: cst.NotStatic | cst.Unknown) -> InputError:
        """The kernel reads *name*, whose module-level evaluation raises in Python (a sibling module not
        found, an attribute a closed class does not define): the error is at the failing expression when
        that is known (the file cannot even be imported), and says where the kernel reads it."""
        if failure.where is None:
            return self.error(node, f"name `{name}`", failure.reason)
        use = self.span(node)
        resolved, line, col = failure.where
        path = _as_given(resolved, use.path)
        what, _, why = failure.reason.partition(": ")
        if (path, line, col) == (use.path, use.line, use.col):
            return InputError(use, what, why)  # the kernel's own expression fails
        here = f"line {use.line}" if path == use.path else str(use)
        return InputError(Span(path, line, col), what, f"{why} (`{name}` is read by a kernel at {here})")

    def warn_once(self, key: str, span: Span, what: str, why: str) -> None:
        self.module.warn_once(key, span, what, why)

    def pl_path(self, node: ast.expr) -> str | None:
        """The `pypto.language` path an attribute chain names (`pl.tile.load` → `tile.load`), honouring
        local names that shadow the alias."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in self.frame.env:
            return None
        parts: list[str] = []
        cursor = node
        while isinstance(cursor, ast.Attribute):
            parts.append(cursor.attr)
            cursor = cursor.value
        try:
            base = self.frame.scope.lookup(root.id)
        except cst.NotStatic:
            return None
        if not isinstance(base, cst.PlPath):
            return None
        path = base.path
        for part in reversed(parts):
            path = f"{path}.{part}" if path else part
        return path

    def _is_kernel_call(self, func: ast.expr) -> bool:
        """Whether *func* is an opaque function call (another kernel of this file, `self.kernel`, an
        imported or unknown function, `pl.extern.f`): `y = f(x, y)` then updates the tensor `y`."""
        path = self.pl_path(func)
        if path is not None:
            return path.startswith("extern.")
        if isinstance(func, ast.Attribute):
            return True
        if not isinstance(func, ast.Name) or func.id in self.frame.env:
            return False
        raw = self.frame.scope.raw(func.id)
        if isinstance(raw, cst.FunctionValue):
            # a plain helper of this file is inlined, not called
            return raw.decorated or raw.scope is not self.frame.scope.module
        return isinstance(raw, cst.Unknown) and raw.missing is None

    def static(self, node: ast.expr) -> Any:
        """The static value of *node* in this kernel, or raise `NotStatic` (each evaluation has its own
        step budget, so a long kernel never runs out)."""
        self.evaluator.budget = cst.Budget(_KERNEL_EXPR_BUDGET)
        return self.evaluator.eval(node, self.static_scope)

    def static_int(self, node: ast.expr) -> int | None:
        try:
            value = self.static(node)
        except cst.NotStatic:
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def check_alloc(self, name: str, node: ast.AST) -> None:
        binding = self.frame.env.get(name)
        if binding is None or binding.var is None or not isinstance(self.types.get(binding.var.name), PtrType):
            raise self.error(node, f"MemRef base `{name}`", "it is not a `pl.tile.alloc` defined earlier in the function")

    def expr(self, node: ast.expr) -> Expr:
        return self._read_expr(node)

    # ------------------------------------------------------------------------------------------ function

    def read(self) -> Function:
        node = self.node
        if isinstance(node, ast.AsyncFunctionDef):
            raise self.error(node, f"`async def {node.name}`", "kernels are plain functions")
        decorator = self.module._pl_decorator(node)
        assert decorator is not None
        kind, decorator_name, attrs = self._read_decorator(decorator)
        params = self._read_params(node)
        returns = read_return_annotation(node.returns, self)
        param_names = [p.name for p in params]
        body = _strip_docstring(node.body)
        self.frame.gm = gm_names(param_names, body, self.pl_path, self._is_kernel_call)
        self.frame.acc = accumulator_names(body, self.pl_path)
        self.frame.assigned = set(assigned_names(body))
        stmts, terminal = self._read_body(body, top=True)
        if terminal is not None:
            raise self.error(terminal.node, "`pl.yield_`", "it ends a loop body or an `if` arm, not a function")
        return Function(node.name, kind, tuple(params), returns, tuple(stmts), decorator_name, tuple(attrs),
                        self.has_self, span=self.span(node))

    def _read_decorator(self, decorator: ast.expr) -> tuple[FunctionKind, str, list[tuple[str, Expr]]]:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        path = self.pl_path(target) or "function"
        attrs: list[tuple[str, Expr]] = []
        kind = FunctionKind.INCORE if path == "function" else FunctionKind.OPAQUE
        if isinstance(decorator, ast.Call):
            if decorator.args:
                raise self.error(decorator, f"decorator `{ast.unparse(decorator)}`", "it takes keyword arguments only")
            for keyword in decorator.keywords:
                if keyword.arg is None:
                    raise self.error(decorator, "`**` in a decorator", "not in the kernel language")
                if keyword.arg == "type" and path == "function":
                    kind = self._read_function_kind(keyword.value)
                    continue
                attrs.append((keyword.arg, self.expr(keyword.value)))
        return kind, path, attrs

    def _read_function_kind(self, node: ast.expr) -> FunctionKind:
        path = self.pl_path(node)
        if path is not None and path.startswith("FunctionType."):
            name = path.split(".", 1)[1]
            for kind in FunctionKind:
                if kind.value == name:
                    return kind
            if name in _UNMODELLED_FUNCTION_TYPES:
                kind, why = _UNMODELLED_FUNCTION_TYPES[name]
                self.warn_once(f"ftype:{name}", self.span(node), f"function type `pl.FunctionType.{name}`",
                               f"not a kind pypto-verify models; read as {kind.value} ({why})")
                return kind
        raise self.error(node, f"function type `{ast.unparse(node)}`",
                         "expected `pl.FunctionType.InCore | AIC | AIV | Orchestration | Opaque | Group | Spmd | "
                         "Inline | Graph`")

    def _read_params(self, node: ast.FunctionDef) -> list[Param]:
        spec = node.args
        if spec.vararg is not None or spec.kwarg is not None:
            raise self.error(node, f"`*args` / `**kwargs` of `{node.name}`", "a kernel's parameters are named")
        params: list[Param] = []
        arguments = [*spec.posonlyargs, *spec.args, *spec.kwonlyargs]
        for i, arg in enumerate(arguments):
            if i == 0 and arg.arg == "self" and self.in_class:
                self.has_self = True
                continue
            type_, direction = read_param_annotation(arg.annotation, self)
            untyped = ""
            runtime = False
            if type_ is None:
                inferred = None if self.in_class else self.module.inferred.get(node.name, {}).get(arg.arg)
                type_, untyped, runtime = inferred or (None, self.module.untyped_reason(node, arg.annotation),
                                                       self.module.entry_tensor(node, arg.annotation))
            name = self.names.first(arg.arg)
            var = Var(name, span=self.span(arg))
            self.frame.env[arg.arg] = Binding(var, type=type_)
            if type_ is not None:
                self.types[name] = type_
            else:
                self.untyped[name] = untyped
                if runtime:
                    self.runtime_shaped.add(name)
            if isinstance(type_, ScalarType):
                self.runtime.add(name)
            params.append(Param(name, type_, direction, span=self.span(arg), untyped=untyped,
                                runtime_shaped=runtime and type_ is None))
        return params

    # ------------------------------------------------------------------------------------------ bodies

    def _read_body(self, body: list[ast.stmt], top: bool = False) -> tuple[list[Stmt], _Terminal | None]:
        """The statements of *body*; a final `pl.yield_` is returned apart (it becomes the `Yield`)."""
        if len(body) == 1 and self._is_scope_ending_in_yield(body[0]):
            assert isinstance(body[0], ast.With)  # _is_scope_ending_in_yield
            return self._read_with_terminal(body[0], terminal_ok=True)
        out: list[Stmt] = []
        terminal: _Terminal | None = None
        declared = _target_declarations(body) if body and self._is_yield_stmt(body[-1]) else {}
        for i, stmt in enumerate(body):
            if self._is_yield_stmt(stmt):
                if i != len(body) - 1:
                    raise self.error(stmt, "`pl.yield_`", "it must be the last statement of a loop body or an `if` arm")
                if not top and _is_empty_yield(stmt):
                    break  # PyPTO prints the empty YieldStmt of a body that carries nothing as `pl.yield_()`
                terminal = self._read_terminal(stmt, declared)
                out.extend(self._flush())
                break
            produced = self._read_stmt(stmt, top)
            out.extend(self._flush())
            out.extend(produced)
        return out, terminal

    def _flush(self) -> list[Stmt]:
        pending, self.pending = self.pending, []
        return pending

    def _is_scope_ending_in_yield(self, stmt: ast.stmt) -> bool:
        """`with pl.scope():` that is a whole loop body or `if` arm and ends in its `pl.yield_`: how
        PyPTO's printer (VisitStmtBody) writes a runtime scope MaterializeRuntimeScopes wrapped around it."""
        if not (isinstance(stmt, ast.With) and len(stmt.items) == 1 and stmt.items[0].optional_vars is None
                and stmt.body and self._is_yield_stmt(stmt.body[-1])):
            return False
        context = stmt.items[0].context_expr
        return (isinstance(context, ast.Call) and not context.args and not context.keywords
                and self.pl_path(context.func) == "scope")

    def _without_yield(self, body: list[ast.stmt]) -> list[ast.stmt]:
        """*body* without its final `pl.yield_` (also at the end of a whole-body `with pl.scope():`)."""
        if body and self._is_yield_stmt(body[-1]):
            return body[:-1]
        if body and self._is_scope_ending_in_yield(body[-1]):
            scope = copy.copy(body[-1])
            assert isinstance(scope, ast.With)  # _is_scope_ending_in_yield
            scope.body = scope.body[:-1]
            return [*body[:-1], scope]
        return body

    def _is_yield_stmt(self, stmt: ast.stmt) -> bool:
        value = getattr(stmt, "value", None)
        return (isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) and isinstance(value, ast.Call)
                and self.pl_path(value.func) == "yield_")

    def _read_terminal(self, stmt: ast.stmt, declared: dict[str, ast.AnnAssign]) -> _Terminal:
        """The final `pl.yield_`; *declared* holds the bare annotations (`a: T`) directly above a
        multi-value `a, b = pl.yield_(x, y)`, which give its targets their types."""
        assert isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr))  # _is_yield_stmt
        call = stmt.value
        assert isinstance(call, ast.Call)  # _is_yield_stmt
        if call.keywords:
            raise self.error(call, "keyword arguments of `pl.yield_`", "it takes the yielded values only")
        values = [self._read_operand(arg) for arg in call.args]
        targets: list[tuple[str, Type | None]] = []
        if isinstance(stmt, ast.AnnAssign):
            if not isinstance(stmt.target, ast.Name):
                raise self.error(stmt.target, f"target `{ast.unparse(stmt.target)}`", "a yield target is a name")
            targets.append((stmt.target.id, read_type(stmt.annotation, self)))
        elif isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise self.error(stmt, "chained assignment of `pl.yield_`", "write one target list")
            target = stmt.targets[0]
            leaves = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            for leaf in leaves:
                if not isinstance(leaf, ast.Name):
                    raise self.error(leaf, f"target `{ast.unparse(leaf)}`", "a yield target is a name")
                declaration = declared.get(leaf.id)
                targets.append((leaf.id, read_type(declaration.annotation, self) if declaration is not None else None))
        names = {name for name, _ in targets}
        for name, declaration in declared.items():
            if name not in names or not isinstance(stmt, ast.Assign):
                raise self.error(declaration, f"declaration `{ast.unparse(declaration)}`",
                                 "a bare annotation above a `pl.yield_` declares one of its tuple targets")
        if targets and len(targets) != len(values):
            raise self.error(stmt, f"`{ast.unparse(stmt)[:60]}`",
                             f"{len(targets)} targets but {len(values)} yielded values")
        return _Terminal(targets, values, stmt)

    # ------------------------------------------------------------------------------------------ statements

    def _read_stmt(self, node: ast.stmt, top: bool = False) -> list[Stmt]:
        self._check_depth(node)
        match node:
            case ast.Assign() | ast.AnnAssign():
                return self._read_assign(node)
            case ast.AugAssign():
                return self._read_aug_assign(node)
            case ast.Expr():
                return self._read_expr_stmt(node)
            case ast.For():
                return self._read_for(node)
            case ast.If():
                return self._read_if(node)
            case ast.With():
                return self._read_with(node)
            case ast.Return():
                return self._read_return(node, top)
            case ast.Pass():
                return []
            case ast.Assert():
                return []
            case _:
                return self._read_unsupported(node)

    def _check_depth(self, node: ast.stmt) -> None:
        """Refuse expressions nested deeper than `MAX_EXPR_DEPTH` (a clear PV000, never a RecursionError)."""
        # every AST level takes at least one character: a short one-line statement cannot be that deep
        if node.lineno == node.end_lineno and (node.end_col_offset or 0) - node.col_offset < MAX_EXPR_DEPTH:
            return
        stack: list[tuple[ast.AST, int]] = []
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse", "finalbody", "handlers"):
                continue
            items = value if isinstance(value, list) else [value]
            stack.extend((item, 1) for item in items if isinstance(item, (ast.expr, ast.withitem, ast.keyword)))
        while stack:
            sub, depth = stack.pop()
            if depth > MAX_EXPR_DEPTH:
                raise self.error(sub, f"expression nested {MAX_EXPR_DEPTH}+ levels deep",
                                 f"the kernel language reads expressions up to {MAX_EXPR_DEPTH} levels deep")
            stack.extend((child, depth + 1) for child in child_nodes(sub))

    def _read_unsupported(self, node: ast.stmt, kind: str | None = None) -> list[Stmt]:
        kind = kind or _STMT_NAMES.get(type(node), f"`{type(node).__name__}` statement")
        touched = touches(node, self.frame.acc, self.pl_path)
        if touched is not None:
            raise self.error(node, f"{kind} inside kernel `{self.node.name}`",
                             f"not in the kernel language, and it touches {touched}")
        op = self._data_op_in(node)
        if op is not None:
            # skipping it would drop the op's loads and stores from every check: a silent pass
            raise self.error(node, f"{kind} inside kernel `{self.node.name}`",
                             f"not modelled: it runs `{op}`, whose effect the checks would not see")
        self.warn_once(f"skip:{self.node.name}:{node.lineno}", self.span(node), f"{kind} skipped",
                       "not in the kernel language; it does not touch an accumulator")
        for name in assigned_names([node]):
            self.frame.env[name] = Binding(None, poison=f"it is assigned by the unsupported {kind} at line {node.lineno}")
        return []

    def _data_op_in(self, node: ast.stmt) -> str | None:
        """The first `pl.` op *node* runs that reads or writes a tile or tensor (a definition runs nothing)."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                path = self.pl_path(sub.func)
                if path is not None and path.split(".")[0] not in _NOT_DATA_OPS:
                    return f"pl.{path}"
        return None

    def _read_return(self, node: ast.Return, top: bool) -> list[Stmt]:
        if not top:
            raise self.error(node, "`return` inside a loop, `if` or `with`", "a kernel returns at its end only")
        if node.value is None:
            return [Return((), span=self.span(node))]
        items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        values = tuple(self._read_operand(item) for item in items)
        return [Return(values, span=self.span(node))]

    def _read_expr_stmt(self, node: ast.Expr) -> list[Stmt]:
        value = node.value
        if isinstance(value, ast.Constant):
            return []
        if not isinstance(value, ast.Call):
            touched = touches(value, self.frame.acc, self.pl_path)
            if touched is not None:
                raise self.error(node, f"expression statement `{_text(value)}`", f"it touches {touched} and does nothing")
            return []
        inlined = self._try_inline(value)
        if inlined is not None:
            return []
        expr = self._read_expr(value)
        return [Eval(expr, span=self.span(node))]

    # ------------------------------------------------------------------------------------------ assignment

    def _read_assign(self, node: ast.Assign | ast.AnnAssign) -> list[Stmt]:
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return []
            targets: list[ast.expr] = [node.target]
        else:
            targets = node.targets
        if len(targets) != 1:
            raise self.error(node, "chained assignment `a = b = ...`", "write one assignment per name")
        target = targets[0]
        value = node.value
        assert value is not None
        annotation = node.annotation if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name):
            return self._assign_name(target.id, value, annotation, node)
        if isinstance(target, (ast.Tuple, ast.List)):
            return self._assign_tuple(target, value, node)
        if isinstance(target, ast.Subscript):
            return self._assign_item(target, value, node)
        raise self.error(target, f"assignment to `{_text(target)}`", "only names and tensor slices are assigned in a kernel")

    def _assign_name(self, name: str, value: ast.expr, annotation: ast.expr | None, node: ast.stmt) -> list[Stmt]:
        written = read_type(annotation, self) if annotation is not None else None
        inlined = self._try_inline(value)
        if inlined is not None:
            if isinstance(inlined, tuple):
                raise self.error(value, f"`{_text(value)}`", "the helper returns several values; unpack them")
            if isinstance(inlined, Var) and written is None and name not in self.frame.gm:
                # `acc = helper(acc, ...)` names the helper's result: no copy
                self.frame.env[name] = Binding(inlined, type=self._infer(inlined))
                return []
            return self._bind_value(name, inlined, written, value, node)
        static = self._try_static(value)
        if static is not NO_STATIC:
            try:
                expr = self._materialise(static, value)
            except _Unmaterialisable:
                self.frame.env[name] = Binding(None, static=static)
                return []
            out = self._bind_value(name, expr, written, value, node)
            binding = self.frame.env[name]
            binding.static = static
            return out
        expr = self._read_expr(value)
        return self._bind_value(name, expr, written, value, node)

    def _bind_value(self, name: str, expr: Expr, written: Type | None, value_node: ast.expr, node: ast.stmt) -> list[Stmt]:
        inferred = self._infer(expr)
        if isinstance(expr, Call) and expr.op in ops.MADS and isinstance(inferred, TileType):
            # TARGET_FACTS.md: a MAD writes an Acc tile, whatever space its acc operand was given before
            # InferTileMemorySpace (the compiler's own dumps carry a Vec iter_arg into matmul_acc).
            inferred = replace(inferred, space=MemSpace.Acc)
        if written is not None and annotation_conflict(written, inferred):
            assert inferred is not None
            spelling = f"`{ast.unparse(value_node.func)}`" if isinstance(value_node, ast.Call) else f"`{_text(value_node)}`"
            raise self.error(node, f"type annotation of `{name}`",
                             f"annotation says {describe(written)} but {spelling} gives {describe(inferred)}")
        target = self._define(name, node)
        var = Var(target, span=self.span(node))
        type_ = written if written is not None else inferred
        if type_ is not None:
            self.types[target] = type_
        if (isinstance(expr, Call) and expr.op == ops.T_READ) or any(
                isinstance(sub, Var) and sub.name in self.runtime for sub in walk_exprs(expr)):
            self.runtime.add(target)
        self._note_slice(target, expr)
        self.frame.env[name] = Binding(var, type=type_)
        if written is None and isinstance(expr, Call) and expr in self.call_types:
            # a type only this reading knows (what an imported callee returns): written down for the later
            # stages, which type the IR from its ops and annotations alone
            written = self.call_types[expr]
        return [Assign(var, expr, written, span=self.span(node))]

    def _define(self, name: str, node: ast.AST) -> str:
        """The SSA name a new definition of source name *name* gets."""
        if name in self.frame.gm:
            binding = self.frame.env.get(name)
            if binding is not None and binding.var is not None and binding.poison is None:
                return binding.var.name
            return self.names.first(name)
        return self.names.first(name)

    def _assign_tuple(self, target: ast.Tuple | ast.List, value: ast.expr, node: ast.stmt) -> list[Stmt]:
        leaves = target.elts
        if not all(isinstance(leaf, ast.Name) for leaf in leaves):
            raise self.error(target, f"target `{_text(target)}`", "unpack into names only")
        names = [leaf.id for leaf in leaves if isinstance(leaf, ast.Name)]  # all are (checked above)
        out: list[Stmt] = []
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
            exprs = [self._read_operand(elt) for elt in value.elts]
            out.extend(self._flush())
            for name, expr, elt in zip(names, exprs, value.elts):
                out.extend(self._bind_value(name, expr, None, elt, node))
            return out
        inlined = self._try_inline(value)
        if isinstance(inlined, tuple):
            if len(inlined) != len(names):
                raise self.error(node, f"`{_text(node)}`", f"{len(names)} targets but the helper returns {len(inlined)} values")
            out.extend(self._flush())
            for name, expr in zip(names, inlined):
                out.extend(self._bind_value(name, expr, None, value, node))
            return out
        if inlined is not None:
            raise self.error(node, f"`{_text(node)}`", "the helper returns one value")
        static = self._try_static(value)
        if static is not NO_STATIC and isinstance(static, (tuple, list)) and len(static) == len(names):
            for name, item in zip(names, static):
                try:
                    expr = self._materialise(item, value)
                except _Unmaterialisable:
                    self.frame.env[name] = Binding(None, static=item)
                    continue
                out.extend(self._bind_value(name, expr, None, value, node))
                self.frame.env[name].static = item
            return out
        expr = self._read_expr(value)
        out.extend(self._flush())
        holder = self.names.fresh(names[0], "tuple")
        holder_var = Var(holder, span=self.span(node))
        # the tuple's type where only this reading knows it (a callee of this file), as `_bind_value` writes it
        written = self.call_types.get(expr) if isinstance(expr, Call) else None
        out.append(Assign(holder_var, expr, written, span=self.span(node)))
        items = self.result_items.get(expr, []) if isinstance(expr, Call) else []
        for i, name in enumerate(names):
            item = Call("tensor.getitem", (holder_var, Const(i)), span=self.span(node))
            item_type = items[i] if len(items) == len(names) else None
            if item_type is not None:
                self.call_types[item] = item_type
            out.extend(self._bind_value(name, item, None, value, node))
        return out

    def _assign_item(self, target: ast.Subscript, value: ast.expr, node: ast.stmt) -> list[Stmt]:
        if not isinstance(target.value, ast.Name):
            raise self.error(target, f"assignment to `{_text(target)}`", "store into a named tensor")
        name = target.value.id
        base = self._read_name(target.value)
        source = self._read_operand(value)
        base_type = self.types.get(base.name) if isinstance(base, Var) else None
        elts = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        out = self._flush()
        if any(isinstance(e, ast.Slice) for e in elts) or isinstance(base_type, (TensorType, TileType)):
            offsets = []
            for elt in elts:
                if isinstance(elt, ast.Slice):
                    if elt.step is not None:
                        raise self.error(elt, f"strided slice `{_text(target)}`", "slices have no step in the kernel language")
                    offsets.append(self._read_expr(elt.lower) if elt.lower is not None else Const(0))
                else:
                    offsets.append(self._read_expr(elt))
            if isinstance(base_type, (TensorType, TileType)):
                offsets.extend(Const(0) for _ in range(len(base_type.shape) - len(offsets)))
            out.extend(self._flush())
            call = Call("tensor.assemble", (base, source, ListExpr(tuple(offsets))), span=self.span(node))
        else:
            index = self._read_expr(target.slice)
            out.extend(self._flush())
            call = Call("tensor.setitem", (base, index, source), span=self.span(node))
        out.extend(self._bind_value(name, call, None, value, node))
        return out

    def _read_aug_assign(self, node: ast.AugAssign) -> list[Stmt]:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, f"augmented assignment to `{_text(node.target)}`", "rebind a name instead")
        load = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
        combined = ast.copy_location(ast.BinOp(load, node.op, node.value), node)
        return self._assign_name(node.target.id, combined, None, node)

    # ------------------------------------------------------------------------------------------ loops

    def _read_for(self, node: ast.For) -> list[Stmt]:
        if node.orelse:
            raise self.error(node, "`for ... else`", "not in the kernel language")
        if isinstance(node.iter, ast.Call) and self.pl_path(node.iter.func) == "while_":
            # PyPTO's SSA while (`for (a,) in pl.while_(init_values=(x,)):` + `pl.cond(c)`): no trip count
            return self._read_unsupported(node, "`pl.while_` loop")
        if not isinstance(node.iter, ast.Call):
            raise self.error(node.iter, f"loop over `{_text(node.iter)}`",
                             "loops iterate `pl.range`, `pl.pipeline`, `pl.unroll`, `pl.parallel`, `pl.spmd` or `range`")
        jump = next(_own_jumps(node.body), None)
        if jump is not None and (touched := touches(node, self.frame.acc, self.pl_path)) is not None:
            kind = _STMT_NAMES[type(jump)]
            raise self.error(jump, f"{kind} in a loop that touches {touched}",
                             "the loop's trip count (or which iterations accumulate) would no longer follow its "
                             "bounds, and the checker does not model that")
        header = self._read_loop_header(node.iter)
        loop_name, explicit = self._read_loop_target(node.target)
        out = self._flush()
        if explicit and not header.has_init_values:
            raise self.error(node, f"iter_args `{_text(node.target)}`", "they need `init_values=(...)` in the loop call")
        if header.has_init_values and len(explicit) != len(header.inits):
            raise self.error(node.target, f"iter_args `{_text(node.target)}`",
                             f"{len(explicit)} iter_args but {len(header.inits)} init values")
        out.append(self._build_loop(node, header, loop_name, explicit, node.body, keep_loop_var=False))
        return out

    def _read_loop_target(self, target: ast.expr) -> tuple[str, list[str]]:
        if isinstance(target, ast.Name):
            return target.id, []
        if isinstance(target, ast.Tuple) and len(target.elts) == 2:
            first, rest = target.elts
            if (isinstance(first, ast.Name) and isinstance(rest, (ast.Tuple, ast.List))
                    and all(isinstance(e, ast.Name) for e in rest.elts)):
                return first.id, [e.id for e in rest.elts if isinstance(e, ast.Name)]
        raise self.error(target, f"loop target `{_text(target)}`", "write `for i in ...` or `for i, (a, b) in ...`")

    def _read_loop_header(self, call: ast.Call) -> _LoopHeader:
        path = self.pl_path(call.func)
        iterator: str | None = None
        if path is None:
            if isinstance(call.func, ast.Name) and call.func.id == "range" and "range" not in self.frame.env:
                kind = LoopKind.UNROLL
            else:
                raise self.error(call, f"loop over `{_text(call)}`",
                                 "loops iterate `pl.range`, `pl.pipeline`, `pl.unroll`, `pl.parallel`, `pl.spmd` or `range`")
        elif path in _LOOP_KINDS:
            kind = _LOOP_KINDS[path]
        else:
            kind = LoopKind.RANGE
            iterator = path
            self.warn_once(f"iter:{path}", self.span(call), f"loop over `pl.{path}`",
                           "not a loop kind pypto-verify models; read as a sequential `pl.range`")
        positional = [self._read_expr(arg) for arg in call.args if not isinstance(arg, ast.Starred)]
        if len(positional) != len(call.args) or not 1 <= len(positional) <= 3:
            raise self.error(call, f"loop bounds of `{_text(call)}`", "give `stop`, `start, stop` or `start, stop, step`")
        start: Expr
        stop: Expr
        step: Expr
        if len(positional) == 1:
            start, stop, step = Const(0), positional[0], Const(1)
        elif len(positional) == 2:
            start, stop, step = positional[0], positional[1], Const(1)
        else:
            start, stop, step = positional
            if isinstance(step, Const) and step.value == 0 and not isinstance(step.value, bool):
                raise self.error(call.args[2], f"loop step `{_text(call.args[2])}` of `{_text(call)}`",
                                 "the step is 0, so the loop never ends (Python's range rejects it too)")
        stage: int | None = None
        inits: list[Expr] = []
        has_inits = False
        kwargs: list[tuple[str, Expr]] = []
        if iterator is not None:
            kwargs.append(("iterator", Const(iterator)))
        for keyword in call.keywords:
            if keyword.arg is None:
                raise self.error(call, "`**` in a loop call", "not in the kernel language")
            if keyword.arg == "stage":
                stage = self.static_int(keyword.value)
                if stage is None or stage < 1:
                    raise self.error(keyword.value, f"`stage={_text(keyword.value)}`", "the stage count is a positive constant")
                continue
            if keyword.arg == "init_values":
                has_inits = True
                if not isinstance(keyword.value, (ast.Tuple, ast.List)):
                    raise self.error(keyword.value, f"`init_values={_text(keyword.value)}`", "write a tuple `(x0, y0)`")
                inits = [self._read_operand(e) for e in keyword.value.elts]
                continue
            kwargs.append((keyword.arg, self._read_scope_kwarg(keyword.arg, keyword.value)
                           if keyword.arg == "optimizations" else self._read_expr(keyword.value)))
        for bound in (start, stop, step):
            if not isinstance(bound, Const):
                self._note_runtime(bound, call)
        return _LoopHeader(kind, start, stop, step, stage, inits, kwargs, has_inits)

    def _note_runtime(self, expr: Expr, node: ast.AST) -> None:
        for sub in _walk_expr(expr):
            if isinstance(sub, Var) and sub.name in self.runtime:
                self.warn_once(f"runtime:{self.node.name}:{sub.name}", self.span(node), f"runtime scalar `{sub.name}`",
                               "used as a loop bound; treated as a symbolic value")

    def _build_loop(self, node: ast.stmt, header: _LoopHeader, loop_name: str, explicit: list[str],
                    body: list[ast.stmt], keep_loop_var: bool) -> For:
        env = self.frame.env
        saved = dict(env)
        # the targets of the final `a, b = pl.yield_(x, y)` name the loop's results after it (bound below),
        # even where a name was bound before the loop (its init): the body does not rebind them
        carried = [
            name for name in assigned_names(self._without_yield(body))
            if name in env and env[name].poison is None and not env[name].scoped
            and name not in self.frame.gm and name != loop_name and name not in explicit
        ]
        loop_var = Var(self.names.first(loop_name), span=self.span(node))
        self.types[loop_var.name] = ScalarType(DType.INDEX)
        env[loop_name] = Binding(loop_var, type=ScalarType(DType.INDEX), scoped=True)
        iter_args: list[IterArg] = []
        inits: list[Expr] = list(header.inits)
        for name, init in zip(explicit, header.inits):
            arg = IterArg(self.names.first(name), span=self.span(node))
            init_type = self._infer(init)
            if init_type is not None:
                self.types[arg.name] = init_type
            env[name] = Binding(arg, type=init_type, scoped=True)
            iter_args.append(arg)
        for name in carried:
            binding = saved[name]
            init = self._value_of(name, binding, node)
            arg = IterArg(self.names.fresh(name, "iter"), span=self.span(node))
            if binding.type is not None:
                self.types[arg.name] = binding.type
            env[name] = Binding(arg, type=binding.type, scoped=False)
            iter_args.append(arg)
            inits.append(init)
        stmts, terminal = self._read_body(body)
        body_env = self.frame.env
        if explicit:
            if terminal is None:
                raise self.error(node, f"loop with iter_args `{', '.join(explicit)}`", "its body must end with `pl.yield_(...)`")
            if len(terminal.values) != len(explicit):
                raise self.error(terminal.node, "`pl.yield_`", f"{len(terminal.values)} values for {len(explicit)} iter_args")
        elif terminal is not None:
            raise self.error(terminal.node, "`pl.yield_`", "the loop has no iter_args (`init_values=`)")
        yields: list[Expr] = list(terminal.values) if terminal is not None else []
        for name in carried:
            yields.append(self._value_of(name, body_env[name], node))
        return_vars: list[Var] = []
        return_types: list[Type | None] = []
        after: dict[str, Binding] = {}
        if terminal is not None:
            if terminal.targets and len(terminal.targets) != len(explicit):
                raise self.error(terminal.node, "`pl.yield_`", "one target per iter_arg")
            for i, (target, written) in enumerate(terminal.targets):
                rv = Var(self.names.first(target), span=self.span(terminal.node))
                type_ = written if written is not None else self._infer(terminal.values[i])
                if type_ is not None:
                    self.types[rv.name] = type_
                return_vars.append(rv)
                return_types.append(written)
                after[target] = Binding(rv, type=type_)
            if not terminal.targets:
                for name in explicit:
                    rv = Var(self.names.fresh(name, "rv"), span=self.span(terminal.node))
                    return_vars.append(rv)
                    return_types.append(None)
        for name, value in zip(carried, yields[len(explicit):]):
            rv = Var(self.names.fresh(name, "rv"), span=self.span(node))
            type_ = self._infer(value) or saved[name].type
            if type_ is not None:
                self.types[rv.name] = type_
            return_vars.append(rv)
            return_types.append(None)
            after[name] = Binding(rv, type=type_)
        restored = dict(saved)
        for name, binding in body_env.items():
            if name in saved or name in after or name == loop_name or name in explicit:
                continue
            restored[name] = Binding(None, poison=f"it is defined only inside the loop at line {node.lineno}")
        for name in self.frame.gm:
            if name in saved and name in body_env:
                restored[name] = body_env[name]
        for name in explicit:
            if name not in after:
                restored[name] = Binding(None, poison=f"it is an iter_arg of the loop at line {node.lineno}; "
                                                      "after the loop, read the loop's return value")
        restored.update(after)
        # Like Python, the loop variable stays bound after the loop (`with pl.spmd(...) as tid:` reads it).
        restored[loop_name] = Binding(loop_var, type=ScalarType(DType.INDEX), scoped=True)
        self.frame.env = restored
        if iter_args:
            stmts.append(Yield(tuple(yields), span=self.span(terminal.node if terminal is not None else node)))
        return For(loop_var, header.start, header.stop, header.step, tuple(iter_args), tuple(inits), tuple(stmts),
                   tuple(return_vars), tuple(return_types), header.kind, header.stage, tuple(header.kwargs),
                   span=self.span(node))

    def _value_of(self, name: str, binding: Binding, node: ast.AST) -> Expr:
        """What a use of *name* reads: its static value when it has one (as `_read_name` folds it), else its var."""
        if binding.poison is not None:
            raise self.error(node, f"read of `{name}`", binding.poison)
        if binding.static is not NO_STATIC:
            try:
                return self._materialise(binding.static, node)
            except _Unmaterialisable:
                pass
        if binding.var is not None:
            return binding.var
        return self._materialise_binding(name, binding, node)

    def _materialise_binding(self, name: str, binding: Binding, node: ast.AST) -> Expr:
        try:
            return self._materialise(binding.static, node)
        except _Unmaterialisable:
            raise self.error(node, f"`{name}`", "it holds a static object, not a kernel value") from None

    # ------------------------------------------------------------------------------------------ ifs

    def _read_if(self, node: ast.If) -> list[Stmt]:
        cond = self._read_expr(node.test)
        out = self._flush()
        saved = dict(self.frame.env)
        then_stmts, then_term = self._read_body(node.body)
        then_env = self.frame.env
        self.frame.env = dict(saved)
        else_stmts, else_term = self._read_body(node.orelse)
        else_env = self.frame.env
        explicit: list[tuple[str, Type | None]] = []
        then_values: list[Expr] = []
        else_values: list[Expr] = []
        if then_term is not None or else_term is not None:
            if then_term is None or else_term is None:
                raise self.error(node, "`if` with `pl.yield_` in one arm only", "both arms must yield the phi values")
            then_names = [t for t, _ in then_term.targets]
            else_names = [t for t, _ in else_term.targets]
            if then_names != else_names or len(then_term.values) != len(else_term.values):
                raise self.error(else_term.node, "`pl.yield_` of the else arm",
                                 f"it yields {else_names or len(else_term.values)} but the then arm yields "
                                 f"{then_names or len(then_term.values)}")
            explicit = then_term.targets
            then_values, else_values = then_term.values, else_term.values
        merged = dict(saved)
        phis: list[tuple[str, Expr, Expr]] = []
        for name in _union(then_env, else_env):
            a, b = then_env.get(name), else_env.get(name)
            before = saved.get(name)
            if a is before and b is before:
                continue
            if name in self.frame.gm:
                if a is None or b is None:
                    merged[name] = Binding(None, poison=f"it is defined only in one arm of the `if` at line {node.lineno}")
                else:
                    merged[name] = a if a is not before else b
                continue
            if a is None or b is None:
                merged[name] = Binding(None, poison=f"it is defined only in one arm of the `if` at line {node.lineno}")
                continue
            if a.poison is not None or b.poison is not None:
                merged[name] = a if a.poison is not None else b
                continue
            if a.scoped or b.scoped:
                merged[name] = a if a is not before else b
                continue
            if a.var is not None and b.var is not None and a.var.name == b.var.name:
                merged[name] = a
                continue
            phis.append((name, self._value_of(name, a, node), self._value_of(name, b, node)))
        return_vars: list[Var] = []
        return_types: list[Type | None] = []
        for i, (target, written) in enumerate(explicit):
            assert then_term is not None  # `explicit` is empty without the arms' yields
            rv = Var(self.names.first(target), span=self.span(then_term.node))
            type_ = written if written is not None else (self._infer(then_values[i]) or self._infer(else_values[i]))
            if type_ is not None:
                self.types[rv.name] = type_
            return_vars.append(rv)
            return_types.append(written)
            merged[target] = Binding(rv, type=type_)
        for name, then_value, else_value in phis:
            rv = Var(self.names.fresh(name, "phi"), span=self.span(node))
            type_ = self._infer(then_value) or self._infer(else_value)
            if type_ is not None:
                self.types[rv.name] = type_
            return_vars.append(rv)
            return_types.append(None)
            then_values.append(then_value)
            else_values.append(else_value)
            merged[name] = Binding(rv, type=type_)
        self.frame.env = merged
        if return_vars:
            then_span = self.span(then_term.node) if then_term is not None else self.span(node)
            else_span = self.span(else_term.node) if else_term is not None else self.span(node)
            then_stmts.append(Yield(tuple(then_values), span=then_span))
            else_stmts.append(Yield(tuple(else_values), span=else_span))
        out.append(If(cond, tuple(then_stmts), tuple(else_stmts), tuple(return_vars), tuple(return_types),
                      span=self.span(node)))
        return out

    # ------------------------------------------------------------------------------------------ with

    def _read_with(self, node: ast.With) -> list[Stmt]:
        stmts, _ = self._read_with_terminal(node, terminal_ok=False)
        return stmts

    def _read_with_terminal(self, node: ast.With, terminal_ok: bool) -> tuple[list[Stmt], _Terminal | None]:
        """The scope; with *terminal_ok* (a `pl.scope()` that is a whole loop body or `if` arm) its final
        `pl.yield_` is returned apart, as the yield of that body: the `Scope` is transparent to data flow."""
        if len(node.items) != 1:
            raise self.error(node, "`with` of several contexts", "write one `with` per scope")
        item = node.items[0]
        context = item.context_expr
        path = self.pl_path(context.func) if isinstance(context, ast.Call) else self.pl_path(context)
        if path is None:
            return self._read_unsupported(node), None
        if path == "spmd" and isinstance(context, ast.Call):
            if item.optional_vars is not None and not isinstance(item.optional_vars, ast.Name):
                raise self.error(item.optional_vars, f"`as {_text(item.optional_vars)}`", "bind one name")
            header = self._read_loop_header(context)
            out = self._flush()
            name = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else "__spmd"
            out.append(self._build_loop(node, header, name, [], node.body, keep_loop_var=True))
            return out, None
        call = self._read_scope_call(path, context)
        out = self._flush()
        body: list[Stmt] = []
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error(item.optional_vars, f"`as {_text(item.optional_vars)}`", "bind one name")
            name = item.optional_vars.id
            var = Var(self.names.first(name), span=self.span(item.optional_vars))
            self.frame.env[name] = Binding(var, scoped=True)
            body.append(Assign(var, Call("scope.task_id", span=self.span(context)), None, span=self.span(item.optional_vars)))
        stmts, terminal = self._read_body(node.body)
        if terminal is not None and not terminal_ok:
            raise self.error(terminal.node, "`pl.yield_` at the end of a `with` body", "yields end loop bodies and `if` arms")
        body.extend(stmts)
        out.append(Scope(call, tuple(body), span=self.span(node)))
        return out, terminal

    def _read_scope_call(self, path: str, context: ast.expr) -> Call:
        if not isinstance(context, ast.Call):
            return Call(path, span=self.span(context))
        args = tuple(self._read_operand(a) for a in context.args)
        if any(k.arg is None for k in context.keywords):
            raise self.error(context, "`**` in a scope call", "not in the kernel language")
        kwargs = tuple((k.arg, self._read_scope_kwarg(k.arg, k.value)) for k in context.keywords if k.arg is not None)
        return Call(path, args, kwargs, span=self.span(context))

    def _read_scope_kwarg(self, key: str, node: ast.expr) -> Expr:
        """A keyword of a scope or loop header; `optimizations=[pl.split(pl.SplitMode.X),
        pl.cross_core_slot(slot_num=N)]` names scope options, not the ops `tensor.split` / ..."""
        if key == "optimizations" and isinstance(node, (ast.List, ast.Tuple)):
            items: list[Expr] = []
            for item in node.elts:
                path = self.pl_path(item.func) if isinstance(item, ast.Call) else None
                if isinstance(item, ast.Call) and path is not None:
                    args, kwargs = self._read_args(item)
                    items.append(Call(path, args, kwargs, span=self.span(item)))
                else:
                    items.append(self._read_operand(item))
            return ListExpr(tuple(items), span=self.span(node))
        return self._read_operand(node)

    # ------------------------------------------------------------------------------------------ expressions

    def _try_static(self, node: ast.expr) -> Any:
        if isinstance(node, (ast.Compare, ast.BoolOp, ast.Lambda)) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return NO_STATIC
        if isinstance(node, ast.Call) and self.pl_path(node.func) is not None:
            # a `pl.X(...)` call in a kernel is an op (even `pl.dynamic`, which then prints as written)
            return NO_STATIC
        try:
            return self.static(node)
        except cst.NotStatic as error:
            if error.missing is not None and isinstance(node, ast.Name):
                raise self.import_error(node, node.id, error) from None
            return NO_STATIC
        except RecursionError:
            return NO_STATIC

    def _sym(self, path: str, node: ast.AST) -> Sym:
        """`pl.<path>`; a memory space must be one of the language's (ops.space_of_sym reads it)."""
        if path.startswith("Mem.") and path[4:] not in {m.value for m in MemSpace}:
            raise self.error(node, f"memory space `pl.{path}`", "not a memory space of the language")
        return Sym(path, span=self.span(node))

    def _materialise(self, value: Any, node: ast.AST) -> Expr:
        span = self.span(node)
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
            raise self.error(node, f"integer `{_text(node)[:40]}` of {value.bit_length()} bits",
                             "the kernel language computes in 64-bit integers (PyPTO's INDEX and INT64)")
        if value is None or isinstance(value, (bool, int, str)):
            return Const(value, span=span)
        if isinstance(value, float):
            return Const(value, span=span)
        if isinstance(value, cst.PlPath):
            return self._sym(canonical_path(value.path), node)
        if isinstance(value, cst.Dynamic):
            return Call("dynamic", (Const(value.name),), span=span)
        if isinstance(value, tuple):
            return TupleExpr(tuple(self._materialise(v, node) for v in value), span=span)
        if isinstance(value, list):
            return ListExpr(tuple(self._materialise(v, node) for v in value), span=span)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return DictExpr(tuple((k, self._materialise(v, node)) for k, v in value.items()), span=span)
        raise _Unmaterialisable()

    def _read_operand(self, node: ast.expr) -> Expr:
        """An operand of a call: an inline slice is hoisted into a temporary (docs/ir-conventions.md)."""
        return self._read_expr(node, hoist=True)

    def _read_expr(self, node: ast.expr, hoist: bool = False) -> Expr:
        static = self._try_static(node)
        if static is not NO_STATIC:
            try:
                return self._materialise(static, node)
            except _Unmaterialisable:
                raise self.error(node, f"`{_text(node)}`", "a static object (a config, a function) is not a kernel value") from None
        match node:
            case ast.Name():
                return self._read_name(node)
            case ast.Attribute():
                return self._read_attribute(node)
            case ast.Call():
                inlined = self._try_inline(node)
                if isinstance(inlined, tuple):
                    raise self.error(node, f"`{_text(node)}`", "the helper returns several values; unpack them")
                if inlined is not None:
                    return inlined
                return self._read_call(node)
            case ast.Subscript():
                expr = self._read_subscript(node)
                if hoist and isinstance(expr, Call) and expr.op in ("tensor.slice", "tile.slice"):
                    return self._hoist(expr, node)
                return expr
            case ast.BinOp():
                return self._read_binop(node)
            case ast.UnaryOp():
                return self._read_unaryop(node)
            case ast.Compare():
                return self._read_compare(node)
            case ast.BoolOp():
                op = "and" if isinstance(node.op, ast.And) else "or"
                return BoolOp(op, tuple(self._read_expr(v) for v in node.values), span=self.span(node))
            case ast.List():
                return ListExpr(tuple(self._read_operand(e) for e in node.elts), span=self.span(node))
            case ast.Tuple():
                return TupleExpr(tuple(self._read_operand(e) for e in node.elts), span=self.span(node))
            case ast.Dict():
                return self._read_dict(node)
            case ast.Constant():
                raise self.error(node, f"constant `{_text(node)}`", "not a value of the kernel language")
            case _:
                return self._read_opaque_expr(node)

    def _read_opaque_expr(self, node: ast.expr) -> Expr:
        kind = _EXPR_NAMES.get(type(node), f"`{type(node).__name__}` expression")
        touched = touches(node, self.frame.acc, self.pl_path)
        if touched is not None:
            raise self.error(node, f"{kind} inside kernel `{self.node.name}`",
                             f"not in the kernel language, and it touches {touched}")
        self.warn_once(f"opaque:{self.node.name}:{node.lineno}:{node.col_offset}", self.span(node),
                       f"{kind} `{_text(node)}`", "not in the kernel language; read as an opaque value")
        reads: list[Expr] = []
        bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        bound |= {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda) for a in n.args.args}
        seen: set[str] = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in bound and sub.id not in seen:
                binding = self.frame.env.get(sub.id)
                if binding is not None and binding.var is not None and binding.poison is None:
                    seen.add(sub.id)
                    reads.append(binding.var)
        return Call(f"opaque.{_OPAQUE_KINDS.get(type(node), 'expr')}", tuple(reads), span=self.span(node))

    def _hoist(self, expr: Call, node: ast.AST) -> Var:
        base = expr.args[0]
        base_name = base.name if isinstance(base, Var) else "t"
        name = self.names.fresh(base_name, "slice")
        var = Var(name, span=self.span(node))
        inferred = self._infer(expr)
        if inferred is not None:
            self.types[name] = inferred
        self._note_slice(name, expr)
        self.pending.append(Assign(var, expr, None, span=self.span(node)))
        return var

    def _note_slice(self, name: str, expr: Expr) -> None:
        if isinstance(expr, Call) and expr.op in (ops.T_SLICE, "tile.slice") and len(expr.args) > 1:
            shape = expr.args[1]
            if isinstance(shape, ListExpr):
                self.slice_shapes[name] = shape.items

    def _read_name(self, node: ast.Name) -> Expr:
        binding = self.frame.env.get(node.id)
        if binding is not None:
            if binding.poison is not None:
                raise self.error(node, f"read of `{node.id}`", binding.poison)
            if binding.var is not None:
                return replace(binding.var, span=self.span(node))
            return self._materialise_binding(node.id, binding, node)
        raw = self.frame.scope.raw(node.id)
        if raw is cst._MARKER:
            if node.id in self.frame.assigned:
                raise self.error(node, f"read of `{node.id}`", "no assignment reaches it here (a value a loop "
                                 "carries, or an `if` arm reads, is defined before the loop or the `if`)")
            raise self.error(node, f"undefined name `{node.id}`",
                             "it is not a parameter, a local, a module constant or an import")
        if isinstance(raw, cst.Unknown):
            if raw.missing is not None:
                raise self.import_error(node, node.id, raw)
            self.warn_once(f"symbolic:{node.id}", self.span(node), f"module name `{node.id}`",
                           f"not a static constant ({raw.reason}); treated as a symbolic value")
            return Call("dynamic", (Const(node.id),), span=self.span(node))
        if isinstance(raw, cst.FunctionValue):
            return Call("funcref", (Const(node.id),), span=self.span(node))
        try:
            return self._materialise(raw, node)
        except _Unmaterialisable:
            raise self.error(node, f"`{node.id}`", "a static object (a config, a class, a module) is not a kernel value") from None

    def _read_attribute(self, node: ast.Attribute) -> Expr:
        path = self.pl_path(node)
        if path is not None:
            return self._sym(canonical_path(path), node)
        if isinstance(node.value, ast.Name) and node.value.id == "self" and "self" not in self.frame.env:
            # `self.kernel` names a function of the program (free `@pl.jit` functions are materialised as one)
            return Call("funcref", (Const(f"self.{node.attr}"),), span=self.span(node))
        try:
            self.static(node)
            reason = "not a value"
        except cst.NotStatic as error:
            if error.missing is not None:
                raise self.import_error(node, _text(node), error) from None
            reason = error.reason
        base = node.value
        if isinstance(base, ast.Name) and base.id not in self.frame.env:
            raw = self.frame.scope.raw(base.id)
            if raw is cst._MARKER:
                raise self.error(base, f"undefined name `{base.id}`",
                                 "it is not a parameter, a local, a module constant or an import")
            if isinstance(raw, (cst.Unknown, cst.External)):
                dotted = ast.unparse(node)
                self.warn_once(f"symbolic:{dotted}", self.span(node), f"module name `{dotted}`",
                               f"not a static constant ({reason}); treated as a symbolic value")
                return Call("dynamic", (Const(dotted),), span=self.span(node))
            # a config, class or module that has no such attribute
            raise self.error(node, f"`{_text(node)}`", reason)
        receiver = self._read_expr(base)
        self.warn_once(f"attr:{node.attr}", self.span(node), f"attribute `.{node.attr}`",
                       "not in the kernel language; read as an opaque value")
        return Call(f"method.{node.attr}", (receiver,), (("__attribute__", Const(True)),), span=self.span(node))

    def _read_dict(self, node: ast.Dict) -> Expr:
        items: list[tuple[str, Expr]] = []
        for key, value in zip(node.keys, node.values):
            if key is None or not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise self.error(node, f"dict `{_text(node)}`", "dict keys are string literals")
            items.append((key.value, self._read_operand(value)))
        return DictExpr(tuple(items), span=self.span(node))

    def _read_binop(self, node: ast.BinOp) -> Expr:
        symbol = _BINOP_SYMBOLS.get(type(node.op))
        if symbol is None:
            return self._read_opaque_expr(node)
        lhs = self._read_expr(node.left, hoist=True)
        rhs = self._read_expr(node.right, hoist=True)
        return self._binop(symbol, lhs, rhs, self.span(node))

    def _binop(self, symbol: str, lhs: Expr, rhs: Expr, span: Span) -> Expr:
        """`lhs symbol rhs`: scalar arithmetic, or the element-wise op when an operand is a tensor or tile."""
        for operand in (lhs, rhs):
            t = self._infer(operand)
            if isinstance(t, (TensorType, TileType)) and symbol in _TENSOR_BINOPS:
                prefix = "tile" if isinstance(t, TileType) else "tensor"
                return Call(f"{prefix}.{_TENSOR_BINOPS[symbol]}", (lhs, rhs), span=span)
        return BinOp(symbol, lhs, rhs, span=span)

    def _difference(self, upper: Expr, lower: Expr, node: ast.AST) -> Expr:
        """A slice extent `upper - lower`, a `Const` when constant (`k0 + 256 - k0` is 256)."""
        simplified = _difference(upper, lower)
        if isinstance(simplified, BinOp) and simplified.op == "-" and simplified.lhs is upper and simplified.rhs is lower:
            return self._binop("-", upper, lower, self.span(node))
        return simplified

    def _read_unaryop(self, node: ast.UnaryOp) -> Expr:
        if isinstance(node.op, ast.Not):
            return UnaryOp("not", self._read_expr(node.operand), span=self.span(node))
        if isinstance(node.op, ast.USub):
            operand = self._read_expr(node.operand, hoist=True)
            t = self._infer(operand)
            if isinstance(t, (TensorType, TileType)):
                prefix = "tile" if isinstance(t, TileType) else "tensor"
                return Call(f"{prefix}.neg", (operand,), span=self.span(node))
            return UnaryOp("-", operand, span=self.span(node))
        if isinstance(node.op, ast.UAdd):
            return self._read_expr(node.operand)
        return self._read_opaque_expr(node)

    def _read_compare(self, node: ast.Compare) -> Expr:
        parts: list[Expr] = []
        lhs = self._read_expr(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            symbol = _CMP_SYMBOLS.get(type(op))
            if symbol is None:
                return self._read_opaque_expr(node)
            rhs = self._read_expr(comparator)
            parts.append(Compare(symbol, lhs, rhs, span=self.span(node)))
            lhs = rhs
        if len(parts) == 1:
            return parts[0]
        return BoolOp("and", tuple(parts), span=self.span(node))

    # ------------------------------------------------------------------------------------------ subscripts

    def _read_subscript(self, node: ast.Subscript) -> Expr:
        base = self._read_expr(node.value, hoist=True)
        base_type = self._infer(base)
        elts = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not any(isinstance(e, ast.Slice) for e in elts) and not isinstance(base_type, (TensorType, TileType)):
            index = self._read_expr(node.slice)
            return Call("tensor.getitem", (base, index), span=self.span(node))
        shape: list[Expr] = []
        offsets: list[Expr] = []
        dims = base_type.shape if isinstance(base_type, (TensorType, TileType)) else None
        if dims is not None and len(elts) > len(dims):
            raise self.error(node, f"slice `{_text(node)}`", f"{len(elts)} indices for a {len(dims)}-D value")
        if dims is not None and len(elts) == len(dims) and not any(isinstance(e, ast.Slice) for e in elts):
            # pypto's parser: an all-scalar, full-rank subscript (`idx[s]` of a 1-D tensor) reads one element
            # (`tensor.read` / `tile.read`); any other subscript is a slice
            op = "tile.read" if isinstance(base_type, TileType) else ops.T_READ
            indices = ListExpr(tuple(self._read_expr(e) for e in elts))
            return Call(op, (base, indices), span=self.span(node))
        for k, elt in enumerate(elts):
            if isinstance(elt, ast.Slice):
                if elt.step is not None:
                    raise self.error(elt, f"strided slice `{_text(node)}`", "slices have no step in the kernel language")
                lower = self._read_expr(elt.lower) if elt.lower is not None else Const(0)
                if elt.upper is None:
                    extent = self._dim_of(base, dims, k, node)
                    shape.append(self._difference(extent, lower, node))
                else:
                    shape.append(self._difference(self._read_expr(elt.upper), lower, node))
                if isinstance(shape[-1], Const) and isinstance(shape[-1].value, int) and shape[-1].value < 0:
                    # the fuzzer's `K_TILE = -1` verified (issue 15). An empty window (extent 0) is left to the
                    # later stages: pypto-lib writes one in a branch its constants make dead
                    # (`if VOCAB_TAIL != 0:` in `deepseek_v4_pro/lm_head.py`), which the lowering removes
                    raise self.error(elt, f"slice `{_text(node)}`",
                                     f"its extent along dimension {k} is {shape[-1].value}; a window cannot have a "
                                     "negative extent")
                offsets.append(lower)
            else:
                offsets.append(self._read_expr(elt))
                shape.append(Const(1))
        if dims is not None:
            for k in range(len(elts), len(dims)):
                shape.append(self._dim_of(base, dims, k, node))
                offsets.append(Const(0))
        op = "tile.slice" if isinstance(base_type, TileType) else "tensor.slice"
        return Call(op, (base, ListExpr(tuple(shape)), ListExpr(tuple(offsets))), span=self.span(node))

    def _dim_of(self, base: Expr, dims: tuple[Expr, ...] | None, k: int, node: ast.AST) -> Expr:
        if dims is not None:
            return dims[k]
        return Call("tensor.dim", (base, Const(k)), span=self.span(node))

    # ------------------------------------------------------------------------------------------ calls

    def _read_call(self, node: ast.Call) -> Expr:
        path = self.pl_path(node.func)
        if path is not None:
            return self._read_pl_call(path, node)
        func = node.func
        if isinstance(func, ast.Name):
            return self._read_name_call(func.id, node)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id == "self" and "self" not in self.frame.env:
                args, kwargs = self._read_args(node)
                return Call(f"self.{func.attr}", args, kwargs, span=self.span(node))
            return self._read_method_call(func, node)
        raise self.error(node, f"call `{_text(node)}`", "not in the kernel language")

    def _read_args(self, node: ast.Call) -> tuple[tuple[Expr, ...], tuple[tuple[str, Expr], ...]]:
        args: list[Expr] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, f"`*{_text(arg.value)}` in a call", "not in the kernel language")
            args.append(self._read_operand(arg))
        kwargs: list[tuple[str, Expr]] = []
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error(keyword.value, f"`**{_text(keyword.value)}` in a call", "not in the kernel language")
            kwargs.append((keyword.arg, self._read_operand(keyword.value)))
        return tuple(args), tuple(kwargs)

    def _read_pl_call(self, path: str, node: ast.Call) -> Expr:
        if path == "yield_":
            raise self.error(node, "`pl.yield_`", "it is a statement that ends a loop body or an `if` arm")
        if path in _LOOP_KINDS or path in ("at", "incore"):
            raise self.error(node, f"`pl.{path}(...)`", "it is used in a `for` or `with` header only")
        if path == "const":
            return self._read_const(node)
        if path in ("dynamic", "funcref"):
            args, kwargs = self._read_args(node)
            return Call(path, args, kwargs, span=self.span(node))
        if path == "func_attr":
            # the printer's function-attribute prologue `pl.func_attr({"split": pl.SplitMode.X, ...})`
            args, kwargs = self._read_args(node)
            self.warn_once(f"func_attr:{self.node.name}", self.span(node), "function attributes `pl.func_attr({...})`",
                           "compiler metadata (split mode, slot counts, ...); kept, not checked")
            return Call(path, args, kwargs, span=self.span(node))
        if path in ("min", "max") and len(node.args) == 2 and not node.keywords \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            # the printer's scalar Min / Max (`pl.min(a, b)`); on a tensor or tile it is the element-wise op
            lhs, rhs = (self._read_operand(a) for a in node.args)
            if all(self._is_scalar(v) for v in (lhs, rhs)):
                return BinOp(path, lhs, rhs, span=self.span(node))
            args, kwargs = (lhs, rhs), ()
        else:
            args, kwargs = self._read_args(node)
        op = self._op_name(path, args)
        call = Call(op, args, kwargs, span=self.span(node))
        self._check_op(op, path, node)
        self._check_operands(op, path, call, node)
        if op in ops.TENSOR_MADS:
            self._check_matmul_shapes(call, node)
        return call

    def _is_scalar(self, expr: Expr) -> bool:
        """Known to be a scalar: a constant, scalar arithmetic, or a value typed `pl.Scalar[...]`."""
        if isinstance(expr, (Const, BinOp, UnaryOp, Compare, BoolOp)):
            return True
        return isinstance(self._infer(expr), ScalarType)

    def _read_const(self, node: ast.Call) -> Expr:
        if len(node.args) != 2 or node.keywords:
            raise self.error(node, f"`{_text(node)}`", "write `pl.const(value, pl.DTYPE)`")
        value = self._try_static(node.args[0])
        dtype_path = self.pl_path(node.args[1])
        if value is NO_STATIC or not isinstance(value, (int, float, bool)) or dtype_path not in DType.__members__:
            raise self.error(node, f"`{_text(node)}`", "`pl.const` takes a literal and a dtype")
        assert dtype_path is not None  # None is no member: raised above
        return Const(value, DType[dtype_path], span=self.span(node))

    def _op_name(self, path: str, args: tuple[Expr, ...]) -> str:
        if path in _UNIFIED_RENAMES:
            return _UNIFIED_RENAMES[path]
        if "." in path:
            return path
        if path == "load":
            return "tile.load"
        for arg in args:
            t = self._infer(arg)
            if isinstance(t, TileType):
                if path == "cmp" and len(args) > 1 and not isinstance(self._infer(args[1]), TileType):
                    return "tile.cmps"  # PyPTO's unified `cmp` of a tile and a scalar
                return f"tile.{path}"
            if isinstance(t, TensorType):
                break
        return f"tensor.{path}"

    def _check_op(self, op: str, path: str, node: ast.Call) -> None:
        head, _, name = op.partition(".")
        if head in ("tensor", "tile") and name in KNOWN_OPS:
            return
        if head in ("system", "array", "prefetch", "distributed", "extern", "opaque", "scope"):
            return
        if op in ("TileView", "MemRef"):
            return
        self.warn_once(f"op:{op}", self.span(node), f"unknown op `pl.{path}`", "read as an opaque op")

    def _check_operands(self, op: str, path: str, call: Call, node: ast.Call) -> None:
        """The operands the lowering reads by position are all there (`ops.matmul_parts`, ConvertTensorToTileOps)."""
        head, _, name = op.partition(".")
        wanted = _MAD_OPERANDS.get(name) if head in ("tensor", "tile") else None
        if head == "tensor" and name in _TENSOR_OPERANDS:
            wanted = _TENSOR_OPERANDS[name]
        if wanted is None:
            return
        given = len(call.args) + (1 if name == "matmul_bias" and call.kwarg("bias") is not None else 0)
        if given < len(wanted) or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.error(node, f"`pl.{path}` with {given} operand{'s' * (given != 1)}",
                             f"it takes {len(wanted)}: {', '.join(wanted)}")

    def _check_matmul_shapes(self, call: Call, node: ast.Call) -> None:
        # Only slices are checked: their shape is what the source wrote (an opaque op's type is a guess).
        for operand in call.args[:3]:
            if not isinstance(operand, Var):
                continue
            shape = self.slice_shapes.get(operand.name)
            if shape is not None and ops.static_shape(shape) is None:
                dims = ", ".join(print_dim(d) for d in shape)
                # a `:` over a parameter of no type is its `tensor.dim`: say why the parameter has none
                untyped = [f"; the parameter `{display_name(v.name)}` {self.untyped[v.name]}" for d in shape
                           for c in walk_exprs(d) if isinstance(c, Call) and c.op == "tensor.dim" and c.args
                           and (v := var_like(c.args[0])) is not None and self.untyped.get(v.name)]
                raise self.error(node, f"operand `{display_name(operand.name)}` of `{ast.unparse(node.func)}`",
                                 f"its slice shape [{dims}] is not constant; a matmul operand needs a constant "
                                 f"shape{untyped[0] if untyped else ''}")

    def _read_name_call(self, name: str, node: ast.Call) -> Expr:
        if name in self.frame.env:
            raise self.error(node, f"call of `{name}`", "it is a kernel value, not a function")
        if name in ("min", "max") and len(node.args) >= 2 and not node.keywords:
            operands = [self._read_expr(a) for a in node.args]
            result = operands[0]
            for operand in operands[1:]:
                result = BinOp(name, result, operand, span=self.span(node))
            return result
        raw = self.frame.scope.raw(name)
        if raw is cst._MARKER:
            raise self.error(node.func, f"undefined name `{name}`",
                             "it is not a parameter, a local, a module constant or an import")
        if isinstance(raw, cst.Unknown) and raw.missing is not None:
            raise self.import_error(node.func, name, raw)
        args, kwargs = self._read_args(node)
        if isinstance(raw, cst.FunctionValue) and raw.scope is self.frame.scope.module and raw.decorated:
            # another function of this file (a kernel calling a kernel): opaque, printed `name(...)`
            call = Call(f"call.{name}", args, kwargs, span=self.span(node))
            self._record_call(name, raw.node, node, args, kwargs)
            result_type = self._callee_result_type(raw.node, args, kwargs)
            if result_type is not None:
                self.call_types[call] = result_type
            return call
        if isinstance(raw, cst.Builtin) and name in cst._BUILTINS:
            return Call(f"call.{name}", args, kwargs, span=self.span(node))
        self.warn_once(f"call:{name}", self.span(node), f"call of `{name}`",
                       "not a kernel of this file or a plain helper; read as an opaque call")
        call = Call(f"extern.{name}", args, kwargs, span=self.span(node))
        if isinstance(raw, cst.FunctionValue) and raw.decorated and isinstance(raw.node, ast.FunctionDef):
            # a decorated function of another module (`from sibling import f`): it returns the tensors passed
            # for its out-parameters, so its results have their arguments' types (the module is only parsed)
            returned = self._returned_args(raw.node, raw.scope, self._given(raw.node, args, kwargs), 0)
            types = [self._infer(a) if a is not None else None for a in returned or ()]
            if len(types) == 1 and types[0] is not None:
                self.call_types[call] = types[0]
            elif len(types) > 1:
                self.result_items[call] = types
        return call

    @staticmethod
    def _given(callee: ast.FunctionDef, args: Any, kwargs: Any) -> dict[str, Any]:
        """*callee*'s parameters bound to what a call passes (positional, then keywords)."""
        params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args, *callee.args.kwonlyargs)]
        if params and params[0] == "self":
            params = params[1:]
        given = dict(zip(params, args))
        given.update((k, v) for k, v in kwargs if k in params)
        return given

    def _returned_args(self, callee: ast.FunctionDef, scope: cst.Scope, given: dict[str, Expr | None],
                       depth: int) -> list[Expr | None] | None:
        """For each value *callee* returns (`return y` / `return a, b`), the argument of this call it is: a
        parameter returned as passed (or only assembled into), or a value a decorated function of *scope*
        returns for such a parameter (`a, b = g(x, y)` then `return a, b`); None for anything else."""
        last = callee.body[-1] if callee.body else None
        if depth > _CALL_SITE_ROUNDS or not isinstance(last, ast.Return) or last.value is None:
            return None
        items = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
        assigns: dict[str, list[ast.Assign]] = {}
        for stmt in ast.walk(callee):
            if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
                assigns.setdefault(stmt.target.id, []).append(ast.Assign([stmt.target], ast.Constant(None)))
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    for leaf in ([target] if isinstance(target, ast.Name) else getattr(target, "elts", [])):
                        if isinstance(leaf, ast.Name):
                            assigns.setdefault(leaf.id, []).append(stmt)

        def argument(item: ast.expr) -> Expr | None:
            if not isinstance(item, ast.Name):
                return None
            defs = assigns.get(item.id, [])
            if item.id in given:
                assembled = all(isinstance(d.value, ast.Call) and isinstance(d.value.func, ast.Attribute)
                                and d.value.func.attr == "assemble" and d.value.args
                                and isinstance(d.value.args[0], ast.Name) and d.value.args[0].id == item.id
                                for d in defs)
                return given[item.id] if assembled else None
            if len(defs) != 1 or not isinstance(defs[0].value, ast.Call) or not isinstance(defs[0].value.func, ast.Name):
                return None
            (target,) = defs[0].targets
            position = 0 if isinstance(target, ast.Name) else \
                [getattr(e, "id", None) for e in getattr(target, "elts", [])].index(item.id)
            if not isinstance(scope, (cst.ModuleScope, cst.FactoryScope)):
                return None
            inner = scope.raw(defs[0].value.func.id)
            if not (isinstance(inner, cst.FunctionValue) and inner.decorated and isinstance(inner.node, ast.FunctionDef)):
                return None
            passed = [argument(a) for a in defs[0].value.args]
            named = tuple((k.arg, argument(k.value)) for k in defs[0].value.keywords if k.arg is not None)
            returned = self._returned_args(inner.node, inner.scope, self._given(inner.node, passed, named), depth + 1)
            if returned is None or position >= len(returned) or (isinstance(target, ast.Name) and len(returned) != 1):
                return None
            return returned[position]

        return [argument(item) for item in items]

    def _record_call(self, name: str, callee: ast.AST, node: ast.Call, args: tuple[Expr, ...],
                     kwargs: tuple[tuple[str, Expr], ...]) -> None:
        """Note the types this call of *name* gives its parameters (`ModuleReader._call_site_params`)."""
        if not isinstance(callee, ast.FunctionDef):
            return
        params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args, *callee.args.kwonlyargs)]
        if params and params[0] == "self":
            params = params[1:]
        given = dict(zip(params, args))
        given.update((k, v) for k, v in kwargs if k in params)
        types = {p: self._infer(v) for p, v in given.items()}
        texts = {p: _text(a) for p, a in zip(params, node.args)}
        texts.update((k.arg, _text(k.value)) for k in node.keywords if k.arg in params)
        why = {p: self.untyped.get(v.name, "") for p, v in given.items() if isinstance(v, Var)}
        runtime = frozenset(p for p, v in given.items() if isinstance(v, Var) and v.name in self.runtime_shaped)
        self.module.record_call(name, _CallSite(self.span(node).line, self.node.name, types, texts, why, runtime))

    def _callee_result_type(self, callee: ast.AST, args: tuple[Expr, ...],
                            kwargs: tuple[tuple[str, Expr], ...]) -> Type | None:
        """The type a call of another kernel of this file gives: its `->` annotation, or the type of
        the argument passed for the parameter it returns (`return xn`)."""
        if not isinstance(callee, ast.FunctionDef):
            return None
        if callee.returns is not None and not isinstance(callee.returns, ast.Tuple):
            try:
                annotated = read_type(callee.returns, self)
            except InputError:
                annotated = None
            if annotated is not None:
                return annotated
        last = callee.body[-1] if callee.body else None
        if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Name):
            return None
        params = [a.arg for a in callee.args.args]
        if params and params[0] == "self":
            params = params[1:]
        returned = last.value.id
        given = dict(zip(params, args))
        given.update(kwargs)
        value = given.get(returned)
        return self._infer(value) if value is not None else None

    def _read_method_call(self, func: ast.Attribute, node: ast.Call) -> Expr:
        base = func.value
        if isinstance(base, ast.Name) and base.id not in self.frame.env:
            raw = self.frame.scope.raw(base.id)
            if raw is cst._MARKER:
                raise self.error(base, f"undefined name `{base.id}`",
                                 "it is not a parameter, a local, a module constant or an import")
            if isinstance(raw, cst.Unknown) and raw.missing is not None:
                raise self.import_error(base, base.id, raw)
            if not isinstance(raw, (int, float, str, list, tuple, dict)):
                dotted = ast.unparse(func)
                args, kwargs = self._read_args(node)
                self.warn_once(f"call:{dotted}", self.span(node), f"call of `{dotted}`", "read as an opaque call")
                return Call(f"extern.{dotted}", args, kwargs, span=self.span(node))
        receiver = self._read_expr(base, hoist=True)
        args, kwargs = self._read_args(node)
        if func.attr not in _KNOWN_METHODS:
            self.warn_once(f"method:{func.attr}", self.span(node), f"method call `.{func.attr}(...)`",
                           "read as an opaque call")
        return Call(f"method.{func.attr}", (receiver, *args), kwargs, span=self.span(node))

    # ------------------------------------------------------------------------------------------ helpers

    def _try_inline(self, node: ast.expr) -> Expr | tuple[Expr, ...] | None:
        """The value of a call to a plain helper of this file, its body inlined into `pending`."""
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        name = node.func.id
        if name in self.frame.env:
            return None
        raw = self.frame.scope.raw(name)
        if not isinstance(raw, cst.FunctionValue) or raw.decorated or not isinstance(raw.node, ast.FunctionDef):
            return None
        if raw.scope is not self.frame.scope.module:
            return None
        static = self._try_static(node)
        if static is not NO_STATIC:
            try:
                return self._materialise(static, node)
            except _Unmaterialisable:
                raise self.error(node, f"`{_text(node)}`", "the helper returns a static object, not a kernel value") from None
        return self._inline(raw, node)

    def _inline(self, fn: cst.FunctionValue, call: ast.Call) -> Expr | tuple[Expr, ...]:
        helper = fn.node
        assert isinstance(helper, ast.FunctionDef)
        if helper.name in self.frame.helper_stack:
            raise self.error(call, f"call of helper `{helper.name}`", "it is recursive; only plain helpers are inlined")
        if len(self.frame.helper_stack) > 16:
            raise self.error(call, f"call of helper `{helper.name}`", "helpers nest too deeply to inline")
        spec = helper.args
        if spec.vararg is not None or spec.kwarg is not None or spec.posonlyargs or spec.kwonlyargs:
            raise self.error(call, f"call of helper `{helper.name}`", "its parameters are not plain; it cannot be inlined")
        bindings = self._bind_helper_args(helper, call, fn)
        body = _strip_docstring(helper.body)
        returns = [i for i, s in enumerate(body) if isinstance(s, ast.Return)]
        nested = walk_statements(body, handlers=False, async_defs=True)
        nested_returns = [s for s in nested if isinstance(s, ast.Return)]
        if len(nested_returns) > len(returns) or (returns and returns[-1] != len(body) - 1) or len(returns) > 1:
            raise self.error(call, f"call of helper `{helper.name}`",
                             "it returns from inside a loop or an `if`; only plain helpers are inlined")
        outer = self.frame
        params = [a.arg for a in spec.args]
        frame = Frame(bindings, gm_names(params, body, self.pl_path, self._is_kernel_call),
                      accumulator_names(body, self.pl_path),
                      fn.scope, (*outer.helper_stack, helper.name), set(assigned_names(body)))
        self.frame = frame
        try:
            stmts, terminal = self._read_body(body[:-1] if returns else body)
            if terminal is not None:
                raise self.error(terminal.node, "`pl.yield_` in a helper", "yields end loop bodies and `if` arms")
            result: Expr | tuple[Expr, ...]
            if returns:
                ret = body[-1]
                assert isinstance(ret, ast.Return)
                if ret.value is None:
                    result = Const(None)
                elif isinstance(ret.value, ast.Tuple):
                    result = tuple(self._read_operand(e) for e in ret.value.elts)
                else:
                    result = self._read_expr(ret.value)
                stmts.extend(self._flush())
            else:
                result = Const(None)
        finally:
            self.frame = outer
        self.pending.extend(stmts)
        return result

    def _bind_helper_args(self, helper: ast.FunctionDef, call: ast.Call, fn: cst.FunctionValue) -> dict[str, Binding]:
        params = [a.arg for a in helper.args.args]
        defaults = dict(zip(params[len(params) - len(helper.args.defaults):], helper.args.defaults))
        given: dict[str, ast.expr] = {}
        if len(call.args) > len(params):
            raise self.error(call, f"call of helper `{helper.name}`", "too many arguments")
        for param, arg in zip(params, call.args):
            if isinstance(arg, ast.Starred):
                raise self.error(arg, f"`*{_text(arg.value)}` in a call", "not in the kernel language")
            given[param] = arg
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg not in params or keyword.arg in given:
                raise self.error(call, f"call of helper `{helper.name}`", f"bad keyword argument `{keyword.arg}`")
            given[keyword.arg] = keyword.value
        bindings: dict[str, Binding] = {}
        for param in params:
            if param in given:
                arg = given[param]
                static = self._try_static(arg)
                if static is not NO_STATIC:
                    try:
                        expr = self._materialise(static, arg)
                    except _Unmaterialisable:
                        bindings[param] = Binding(None, static=static)
                        continue
                    bindings[param] = Binding(None, static=static, type=self._infer(expr))
                    continue
                expr = self._read_operand(arg)
                if isinstance(expr, Var):
                    bindings[param] = Binding(expr, type=self._infer(expr))
                    continue
                name = self.names.fresh(param, "ssa") if param in self.names.used else self.names.first(param)
                var = Var(name, span=self.span(arg))
                type_ = self._infer(expr)
                if type_ is not None:
                    self.types[name] = type_
                self.pending.append(Assign(var, expr, None, span=self.span(arg)))
                bindings[param] = Binding(var, type=type_)
            elif param in defaults:
                try:
                    self.evaluator.budget = cst.Budget(_KERNEL_EXPR_BUDGET)
                    value = self.evaluator.eval(defaults[param], fn.scope)
                except cst.NotStatic as error:
                    raise self.error(call, f"default of `{param}` in helper `{helper.name}`", error.reason) from None
                bindings[param] = Binding(None, static=value)
            else:
                raise self.error(call, f"call of helper `{helper.name}`", f"missing argument `{param}`")
        return bindings

    # ------------------------------------------------------------------------------------------ types

    def _infer(self, expr: Expr) -> Type | None:
        if isinstance(expr, Var):
            return self.types.get(expr.name)
        if isinstance(expr, Call):
            if expr in self.call_types:
                return self.call_types[expr]
            if expr.op in _RESHAPING_VIEWS:
                return self._view_type(expr)
            if expr.op in _SPLIT_OPS:
                return None  # the half a split mode gives: left open (the printed annotation says it)
            if expr.op == ops.T_CAST and len(expr.args) == 2 and self._is_scalar(expr.args[0]):
                dtype = ops.dtype_of_sym(expr.args[1])
                return ScalarType(dtype) if dtype is not None else None
            try:
                inferred = ops.infer_call_type(expr, self.types)
                if inferred is None and any(isinstance(a, Call) for a in expr.args):
                    inferred = self._infer_nested(expr)
            except (IndexError, KeyError, TypeError, ValueError, AttributeError):
                inferred = None
            if expr.op == ops.T_READ or expr.op == "tensor.dim":
                return inferred or ScalarType(DType.INDEX)
            return inferred
        return None

    def _view_type(self, call: Call) -> Type | None:
        """`pl.tensor.view(x, shape)` (shape optional: a layout-only view keeps x's) and
        `pl.{tile,tensor}.reinterpret_view(x, dtype=pl.DT, shape=[...])` (without a shape the contiguous
        dimension is rescaled: left open). Not the element-wise default: the shape is the shape operand's."""
        source = self._infer(call.args[0]) if call.args else None
        if not isinstance(source, (TensorType, TileType)):
            return None
        reinterpret = call.op.endswith("reinterpret_view")
        shape_arg = call.kwarg("shape") if call.kwarg("shape") is not None else (call.args[1] if len(call.args) > 1 else None)
        dtype = ops.dtype_of_sym(call.kwarg("dtype")) if reinterpret else source.dtype
        if dtype is None:
            return None
        if shape_arg is None:
            if reinterpret:
                return None
            shape: tuple[Expr, ...] = source.shape
        elif isinstance(shape_arg, (ListExpr, TupleExpr)):
            shape = tuple(shape_arg.items)
        else:
            return None
        if isinstance(source, TileType):
            return TileType(shape, dtype, source.space)
        return TensorType(shape, dtype)

    def _infer_nested(self, expr: Call) -> Type | None:
        """The type of *expr* whose operands are calls written inline (`pl.mul(pl.cast(acc, ...), s)`):
        each call operand stands for a value of its own inferred type, so the static shape of a computed
        value is known (a bare `:` slice of it then takes that extent, not a `tensor.dim`)."""
        env = dict(self.types)
        args = []
        for i, arg in enumerate(expr.args):
            t = self._infer(arg) if isinstance(arg, Call) else None
            if t is None:
                args.append(arg)
                continue
            stand_in = f"__operand_{i}"
            env[stand_in] = t
            args.append(Var(stand_in))
        return ops.infer_call_type(replace(expr, args=tuple(args)), env)


# ---------------------------------------------------------------------------------------------- helpers


def _own_jumps(body: list[ast.stmt]) -> Iterator[ast.Break | ast.Continue]:
    """The `break` / `continue` statements of a loop body that act on that loop (not on a loop nested in it)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            yield node
        elif not isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                                   ast.ClassDef, ast.Lambda)):
            # only the nodes that hold statements: an expression holds no `break` (the order of the rest is kept)
            stack.extend(child for child in child_nodes(node) if isinstance(child, _HOLDS_STATEMENTS))


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
"""The nodes a statement list can hold a `break` or `continue` under: statements, `except` handlers, `case`s."""


_NOT_DATA_OPS = frozenset({"while_", "cond", "yield_", "const", "cast", "min", "max", "dynamic", "range", "unroll", "parallel",
                           "pipeline", "system"})
"""Heads of `pl.` calls that move no tile or tensor data (control, scalar arithmetic, synchronisation)."""

_STMT_NAMES: dict[type, str] = {
    ast.While: "`while` loop", ast.Try: "`try` statement", ast.Global: "`global` statement",
    ast.Nonlocal: "`nonlocal` statement", ast.Delete: "`del` statement", ast.Raise: "`raise` statement",
    ast.Import: "`import` statement", ast.ImportFrom: "`import` statement", ast.FunctionDef: "nested `def`",
    ast.ClassDef: "nested `class`", ast.AsyncFor: "`async for` loop", ast.AsyncWith: "`async with` block",
    ast.Match: "`match` statement", ast.Break: "`break` statement", ast.Continue: "`continue` statement",
    ast.With: "`with` block", ast.AsyncFunctionDef: "nested `async def`",
}
if hasattr(ast, "TryStar"):
    _STMT_NAMES[ast.TryStar] = "`try` statement"

_EXPR_NAMES: dict[type, str] = {
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression", ast.Lambda: "`lambda`", ast.IfExp: "conditional expression",
    ast.NamedExpr: "`:=` expression", ast.Await: "`await`", ast.Yield: "`yield`", ast.YieldFrom: "`yield from`",
    ast.JoinedStr: "f-string", ast.Starred: "starred expression", ast.Set: "set display",
}
_OPAQUE_KINDS: dict[type, str] = {
    ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexp",
    ast.Lambda: "lambda", ast.IfExp: "ifexp", ast.JoinedStr: "fstring", ast.Set: "set", ast.BinOp: "binop",
    ast.UnaryOp: "unaryop", ast.Compare: "compare",
}
_KNOWN_METHODS = frozenset({"bind_dynamic"})


def _strip_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[1:]
    return body


def _walk_expr(expr: Expr) -> list[Expr]:
    return list(walk_exprs(expr))


def _union(a: dict[str, Binding], b: dict[str, Binding]) -> list[str]:
    out = list(a)
    seen = set(out)
    out.extend(name for name in b if name not in seen)
    return out


def _text(node: ast.AST) -> str:
    text = ast.unparse(node)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def print_dim(dim: Expr) -> str:
    """A shape dimension as a message shows it (`16`, `ctx_len - 0`)."""
    if isinstance(dim, Const):
        return str(dim.value)
    if isinstance(dim, Var):
        return display_name(dim.name)
    if isinstance(dim, BinOp):
        return f"{print_dim(dim.lhs)} {dim.op} {print_dim(dim.rhs)}"
    return "?"


# ---------------------------------------------------------------------------------------------- linear forms


def _difference(upper: Expr, lower: Expr) -> Expr:
    """`upper - lower` simplified: a `Const` when the difference is constant (`k0 + 256 - k0`)."""
    hi, lo = linear(upper, opaque=True), linear(lower, opaque=True)
    if hi is not None and lo is not None:
        terms = dict(hi)
        for key, coeff in lo.items():
            terms[key] = terms.get(key, 0) - coeff
        if all(c == 0 for key, c in terms.items() if key != ""):
            return Const(terms.get("", 0))
    if isinstance(lower, Const) and lower.value == 0 and lower.dtype is None:
        return upper
    return BinOp("-", upper, lower)


_MAD_OPERANDS = {"matmul": ("lhs", "rhs"), "matmul_acc": ("acc", "lhs", "rhs"), "matmul_bias": ("lhs", "rhs", "bias")}
"""The operands each matmul op needs, in order (KERNEL_LANGUAGE.md; `bias` may be a keyword)."""
_TENSOR_OPERANDS = {"assemble": ("target", "source", "offsets"), "slice": ("tensor", "shape", "offsets")}
"""The operands of the tensor ops the lowering reads by position."""


def parse_tree(path: str, text: str) -> tuple[ast.Module | None, InputError | None]:
    """`ast.parse` with every failure as one input error (never a crash)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a SyntaxWarning is not ours to print
            return ast.parse(text, filename=path), None
    except SyntaxError as error:
        line = error.lineno or 1
        col = error.offset or 1
        return None, InputError(Span(path, line, col), "syntax error", error.msg or "invalid syntax")
    except (ValueError, MemoryError) as error:
        return None, InputError(Span(path, 1, 1), "unreadable source", str(error) or type(error).__name__)
    except RecursionError:
        return None, InputError(Span(path, 1, 1), "source nested too deeply", "Python's parser gives up on it")


def _as_given(resolved: str, kernel: str) -> str:
    """The module at *resolved* (an absolute path, as the loader finds it) spelled from *kernel*'s path as
    the user gave it: *kernel* itself, or the module's place relative to it, so a report names the file
    the way the run was asked (never an absolute path for a relative argument)."""
    here = Path(kernel)
    if Path(resolved) == here.resolve():
        return kernel
    if here.is_absolute():
        return resolved
    return os.path.normpath(os.path.join(here.parent, os.path.relpath(resolved, here.resolve().parent)))
