"""Which statements of a function run on a core (InCore scopes) and which at orchestration level.

PyPTO 08 OutlineIncoreScopes (with 07 / 09 for hierarchy and cluster scopes) turns every InCore scope of
an Opaque or Orchestration function into an InCore function of its own and calls it from what is left,
which becomes the orchestration function. pypto-verify keeps the scopes in place (one kernel stays one
function through every pass, so facts, sites and the simulator see the source's structure) and mirrors
the two consequences of outlining on memory instead:

- a tensor made, viewed or written at orchestration level lives in main memory: an orchestration
  function holds no tiles, so `pl.create_tensor`, `pl.slice`, `pl.reshape` / `tensor.view` and
  `pl.assemble` outside every InCore scope are GM tensors (convert-tensor-to-tile-ops reads
  `orchestration_names`), and a scope reads them through loads of its own;
- each outlined InCore function has the on-chip buffers to itself: buffers of two different InCore
  scopes are never live together, so allocate-memory-addr checks each space per scope (`region_of`),
  and only a buffer live in several scopes (a tile that crosses them) competes with all of them.

InCore scopes: `with pl.at(level=pl.Level.CORE_GROUP, ...)` (any optimizations), `with pl.cluster()`,
and the body of a `pl.spmd` loop (`for i in pl.spmd(n)` and `with pl.spmd(n) as tid`, both read as a
loop of kind SPMD). Scopes of other levels, `pl.scope()` and `pl.manual_scope()` are transparent (their
statements are at the level of what encloses them). A scope nested in an InCore scope is part of it. A
function of kind InCore / AIC / AIV, and a function without any InCore scope, is one region as a whole
(it has no orchestration level).
"""

from __future__ import annotations

from typing import Final

from pypto_verify.ir import Assign, Call, For, Function, FunctionKind, If, LoopKind, Scope, Stmt, Sym

ORCHESTRATION: Final = -1
"""The region of a statement outside every InCore scope of a function that has some."""
WHOLE: Final = 0
"""The region of every statement of a function without an orchestration level."""

_CORE_KINDS: Final = (FunctionKind.INCORE, FunctionKind.AIC, FunctionKind.AIV)


def is_incore_scope(stmt: Stmt) -> bool:
    """True when *stmt* opens an InCore scope (module docstring)."""
    if isinstance(stmt, For):
        return stmt.kind is LoopKind.SPMD
    if isinstance(stmt, Scope):
        return _is_incore_call(stmt.call)
    return False


def _is_incore_call(call: Call) -> bool:
    if call.op == "cluster":
        return True
    if call.op != "at":
        return False
    level = call.kwarg("level") or (call.args[0] if call.args else None)
    return isinstance(level, Sym) and level.path.rsplit(".", 1)[-1] == "CORE_GROUP"


def has_orchestration_level(fn: Function) -> bool:
    """True when *fn* would be outlined: not a core function, and holding at least one InCore scope."""
    if fn.kind in _CORE_KINDS:
        return False
    return any(_holds_incore(stmt) for stmt in fn.body)


def _holds_incore(stmt: Stmt) -> bool:
    if is_incore_scope(stmt):
        return True
    return any(_holds_incore(s) for s in _children(stmt))


def _children(stmt: Stmt) -> tuple[Stmt, ...]:
    if isinstance(stmt, (For, Scope)):
        return stmt.body
    if isinstance(stmt, If):
        return (*stmt.then_body, *stmt.else_body)
    return ()


def orchestration_names(fn: Function) -> frozenset[str]:
    """The names *fn* assigns outside every InCore scope (empty when it has no orchestration level)."""
    if not has_orchestration_level(fn):
        return frozenset()
    names: set[str] = set()

    def visit(body: tuple[Stmt, ...]) -> None:
        for stmt in body:
            if is_incore_scope(stmt):
                continue
            if isinstance(stmt, Assign):
                names.add(stmt.target.name)
            visit(_children(stmt))

    visit(fn.body)
    return frozenset(names)


class RegionCounter:
    """Numbers the InCore scopes of one function in program order as a walker meets them: `enter`
    on a statement gives the region its body runs in (a new one for an outermost InCore scope, the
    current one otherwise), `leave` restores the enclosing one."""

    def __init__(self, fn: Function) -> None:
        self.current = ORCHESTRATION if has_orchestration_level(fn) else WHOLE
        self.outlined = self.current == ORCHESTRATION
        self._count = 0
        self._stack: list[int] = []

    def enter(self, stmt: Stmt) -> None:
        self._stack.append(self.current)
        if self.outlined and self.current == ORCHESTRATION and is_incore_scope(stmt):
            self._count += 1
            self.current = self._count

    def leave(self) -> None:
        self.current = self._stack.pop()
