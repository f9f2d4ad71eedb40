"""Python rebinding → SSA: names, bindings, and the scans that decide carries and phis.

Owns: the naming scheme of docs/ir-conventions.md "Names and SSA" (`acc`, `acc__ssa_vN`,
`acc__iter_vN`, `acc__phi_vN`, `acc__rv_vN`, `x__slice_vN`; N counts per base name within a
function, from 1), `Binding` (what a source name currently means), and the syntactic scans over a
function body: which names are GM tensors (rebound only by self-updates, so they keep their name and
never become phis or iter_args), which names a loop body assigns, which names hold accumulators.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable

from pypto_verify import ops
from pypto_verify.ir import Type, Var

NO_STATIC: Any = object()
"""`Binding.static` when the name holds no static value."""


@dataclass
class Binding:
    """What a source name means at a point of the function."""

    var: Var | None
    """The SSA value (a `Var` or an `IterArg`); None for a purely static binding (a helper param bound to a config)."""
    static: Any = NO_STATIC
    """The static value when known (`n = 4`, a helper parameter bound to a constant)."""
    type: Type | None = None
    poison: str | None = None
    """Why reading the name is an input error here (`defined only inside the loop at line 12`)."""
    scoped: bool = False
    """A loop variable or an iter_arg: never carried by an enclosing loop, never a phi."""


class Names:
    """The SSA names of one function: the first definition keeps the user's name."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counters: dict[str, int] = {}

    def first(self, name: str) -> str:
        """*name* itself when no definition used it yet, else a fresh `name__ssa_vN`."""
        if name not in self.used:
            self.used.add(name)
            return name
        return self.fresh(name, "ssa")

    def fresh(self, name: str, kind: str) -> str:
        """`base__kind_vN` with N the next count of the base name."""
        base = name.split("__", 1)[0] if "__" in name and not name.startswith("__") else name
        while True:
            n = self.counters.get(base, 0) + 1
            self.counters[base] = n
            candidate = f"{base}__{kind}_v{n}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def reserve(self, name: str) -> None:
        self.used.add(name)


# ---------------------------------------------------------------------------------------------- scans


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list, in the same order, made without its two generators (`iter_fields`
    under it): the reader's scans of every node of a kernel spend most of their time there."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


def _walk_same_scope(nodes: list[ast.stmt]) -> list[ast.AST]:
    """Every node of *nodes*, not descending into nested functions, classes or lambdas."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(child_nodes(node)))
    return out


def walk_statements(body: list[ast.stmt], *, handlers: bool = True, async_defs: bool = False) -> list[ast.stmt]:
    """Every statement of *body* and of the blocks nested in it, in preorder.

    It enters each statement's `body`, `orelse` and `finalbody`; with *handlers*, also the bodies of `except`
    handlers (after `finalbody`) and of `match` cases. It never enters a nested `def` or `class`, and enters
    a nested `async def` only with *async_defs*.
    """
    out: list[ast.stmt] = []
    stack: list[ast.stmt] = list(reversed(body))
    while stack:
        stmt = stack.pop()
        out.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.AsyncFunctionDef) and not async_defs:
            continue
        children: list[ast.stmt] = []
        for name in ("body", "orelse", "finalbody"):
            children.extend(getattr(stmt, name, ()) or ())
        if handlers:
            for handler in getattr(stmt, "handlers", ()) or ():
                children.extend(handler.body)
            for case in getattr(stmt, "cases", ()) or ():
                children.extend(case.body)
        stack.extend(reversed(children))
    return out


def _target_names(target: ast.expr) -> list[str]:
    """The names an assignment target rebinds (`a`, `a, b`, the base of `t[...]`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return [target.value.id]
    return []


def _stmt_targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target] if not (isinstance(stmt, ast.AnnAssign) and stmt.value is None) else []
    return []


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """Names *body* rebinds (assignment targets and item-store bases), in order; loop variables and
    `with ... as` targets excluded (they are scoped to their statement)."""
    names: list[str] = []
    seen: set[str] = set()
    for stmt in walk_statements(body):
        for target in _stmt_targets(stmt):
            for name in _target_names(target):
                if name not in seen:
                    seen.add(name)
                    names.append(name)
    return names


_SELF_UPDATE_FIRST = frozenset({"assemble", "tensor.assemble", "tensor.setitem", "write", "tensor.write",
                                "tensor.set_validshape"})
"""Ops whose first operand is the tensor they update: `y = pl.assemble(y, acc, [0, 0])`."""
_SELF_UPDATE_LAST = frozenset({"store", "tile.store"})
"""Ops whose last positional operand is the tensor they update: `out = pl.tile.store(c, [0, 0], out)`."""


def gm_names(params: list[str], body: list[ast.stmt], pl_path: Callable[[ast.expr], str | None],
             is_kernel_call: Callable[[ast.expr], bool]) -> set[str]:
    """Names every later binding of which is a self-update of a tensor (item store, `assemble` into
    itself, `store` into itself, `y = other_kernel(x, y)`): they keep their name (docs/ir-conventions.md,
    tensor-typed names). *is_kernel_call* tells a call of another kernel of the file by its callee."""
    first_seen: set[str] = set(params)
    ok: dict[str, bool] = {}

    def bind(name: str, self_update: bool, value: ast.expr | None = None) -> None:
        if name not in first_seen:
            first_seen.add(name)
            # a name first bound to a value an op computes (`rows = pl.cast(x_tile, ...)`) holds a tile:
            # assembling into it later updates that tile, a loop carry like any other (PyPTO 10 makes it a
            # `tile.assemble` on the loop's iter_arg), never a GM tensor kept under its name
            ok.setdefault(name, not _computes(value, pl_path))
        elif not self_update:
            ok[name] = False

    for stmt in walk_statements(body):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in _stmt_targets(stmt):
                if isinstance(target, ast.Subscript):
                    for name in _target_names(target):
                        ok.setdefault(name, True)
                        first_seen.add(name)
                    continue
                plain = isinstance(target, ast.Name) and not isinstance(stmt, ast.AugAssign)
                for name in _target_names(target):
                    bind(name, plain and _is_self_update(name, stmt.value, pl_path, is_kernel_call),
                         stmt.value if plain else None)
        elif isinstance(stmt, ast.For):
            for name in _target_names(stmt.target):
                bind(name, False)
        elif isinstance(stmt, ast.With):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in _target_names(item.optional_vars):
                        bind(name, False)
    return {name for name in first_seen if ok.get(name, True)}


_GM_MAKERS = frozenset({"create_tensor", "create", "full", "slice", "view", "reshape", "set_validshape",
                        "transpose_view"})
"""Ops (after `pl.`, `pl.tensor.`) whose result may be a GM tensor a kernel then assembles into."""


def _computes(value: ast.expr | None, pl_path: Callable[[ast.expr], str | None]) -> bool:
    """True when *value* is a `pl` op that computes a tile (`pl.cast`, `pl.add`, `pl.tile.load`, ...), not a
    tensor made, sliced or viewed, an on-core array (`pl.array.create`), a call of a function or kernel, or a
    name."""
    if not isinstance(value, ast.Call):
        return False
    path = pl_path(value.func)
    if path is None:
        return False
    return path.removeprefix("tensor.") not in _GM_MAKERS and not path.startswith(("tensor.create", "array.", "jit",
                                                                                  "spmd", "submit", "at", "range"))


def _is_self_update(name: str, value: ast.expr | None, pl_path: Callable[[ast.expr], str | None],
                    is_kernel_call: Callable[[ast.expr], bool]) -> bool:
    if not isinstance(value, ast.Call) or not value.args:
        return False
    if is_kernel_call(value.func):
        # the callee writes the tensor passed in and hands it back (`q = proj_cols(x, wq, q)`)
        operands = [*value.args, *(k.value for k in value.keywords)]
        return any(isinstance(a, ast.Name) and a.id == name for a in operands)
    path = pl_path(value.func)
    if path in _SELF_UPDATE_FIRST:
        first = value.args[0]
        return isinstance(first, ast.Name) and first.id == name
    if path in _SELF_UPDATE_LAST:
        last = value.args[-1]
        return isinstance(last, ast.Name) and last.id == name
    return False


_MATMULS = frozenset({"matmul", "matmul_acc", "matmul_bias", *ops.ALL_MADS})
"""A matmul as the kernel spells it after `pl.`: the bare names and every MAD op."""


def is_matmul_call(node: ast.AST, pl_path: Callable[[ast.expr], str | None]) -> bool:
    return isinstance(node, ast.Call) and pl_path(node.func) in _MATMULS


def accumulator_names(body: list[ast.stmt], pl_path: Callable[[ast.expr], str | None]) -> set[str]:
    """Names that hold an accumulator somewhere in *body*: matmul results and matmul_acc's acc operand
    (however the matmul is spelled: `pl_path` resolves aliases such as `from pypto.language import matmul as mm`)."""
    names: set[str] = set()
    for node in _walk_same_scope(body):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and is_matmul_call(node.value, pl_path):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        if isinstance(node, ast.Call) and is_matmul_call(node, pl_path):
            path = pl_path(node.func) or ""
            if path.endswith("matmul_acc") and node.args and isinstance(node.args[0], ast.Name):
                names.add(node.args[0].id)
    return names


def touches(node: ast.AST, acc_names: set[str], pl_path: Callable[[ast.expr], str | None]) -> str | None:
    """The accumulator name (or matmul) *node* mentions, or None."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in acc_names:
            return f"the accumulator `{sub.id}`"
        if isinstance(sub, (ast.Global, ast.Nonlocal)):
            for name in sub.names:
                if name in acc_names:
                    return f"the accumulator `{name}`"
        if isinstance(sub, ast.Call) and is_matmul_call(sub, pl_path):
            return f"a `{ast.unparse(sub.func)}`"
    return None


@dataclass
class Frame:
    """The per-body state of a reader: the current bindings, the GM names and accumulator names of
    the function (or inlined helper) being read."""

    env: dict[str, Binding]
    gm: set[str]
    acc: set[str]
    scope: Any
    """The module scope names resolve in (the helper's module for an inlined helper)."""
    helper_stack: tuple[str, ...] = field(default=())
    assigned: set[str] = field(default_factory=set)
    """Every name the body assigns somewhere (to tell a read-before-assignment from an undefined name)."""
