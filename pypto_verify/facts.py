"""Fact export: lowered IR -> the input relations of `datalog/schema.dl`, for every kernel of a run.

Owns: numbering (kernels, program points, values, windows, buffer bases, condition expressions), the
control-flow graph, and the side table that maps ids back to names, source spans and window text.
Input: `(path, Function)` pairs of lowered kernels (every tile has a MemRef). Output: a `FactSet`;
`write_facts(facts, dir)` writes one tab-separated `<relation>.facts` per input relation, rows sorted.

Every symbol that reaches a file is ours (space names, op names, node kinds): no user text ever does,
so no tab, newline or backslash can break the format. Names, paths and window text live in the side
table (`side_table.json` next to the facts) and are joined back by `findings.py`.

Program points. Every statement is a point; a `for` has three (`for_entry` reads the inits,
`for_header` defines the loop variable and the iter_args and is the target of the back edge, `for_exit`
defines the return vars), an `if` two (`if` reads the condition, `if_join` defines the phis), and each
function has an `entry` and an `exit`. Ids are per kernel, in program order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pypto_verify import ops
from pypto_verify.ir import (
    Assign, Call, Eval, Expr, For, Function, If, Return, Scope, Span, Stmt, TileType, Type, Window,
    Yield, type_env, var_like, var_names, walk_stmts, yield_values,
)
from pypto_verify.printer import print_expr
from pypto_verify.scalar import evaluate, trip_count
from pypto_verify.target import Target

# The input relations, in schema order, with their column count (tests check this against schema.dl).
RELATIONS: dict[str, int] = {
    "kernel": 1, "capacity": 3, "acc_to_vec": 1,
    "node": 3, "block_member": 5, "succ": 3, "branch": 4, "loop_back": 3, "cond_literal": 3,
    "value": 2, "defines": 3, "uses": 4, "op": 3,
    "tile": 5, "tile_shape": 3, "window": 3, "window_range": 5, "alloc": 4,
    "carry": 7, "phi": 4, "phi_arm": 5, "copy": 4, "inplace": 4,
    "init_cond": 3, "init_cond_literal": 3, "span": 4, "chain_of": 3,
}

_SAFE_OP = re.compile(r"^[A-Za-z0-9_.]+$")


@dataclass
class KernelTable:
    """Side table of one kernel: what its ids mean."""

    kernel: int
    path: str
    function: str
    program: str | None
    values: dict[int, str] = field(default_factory=dict)
    """value id -> SSA name"""
    windows: dict[int, str] = field(default_factory=dict)
    """window id -> `base[lo:hi]`"""
    bases: dict[int, str] = field(default_factory=dict)
    points: dict[int, tuple[int, int]] = field(default_factory=dict)
    """program point -> (line, col)"""
    conds: dict[int, str] = field(default_factory=dict)
    """condition expression id -> its text"""
    ops: dict[int, str] = field(default_factory=dict)
    """program point -> op name as written (when it is not a safe symbol)"""

    def value_name(self, v: int) -> str:
        return self.values.get(v, f"v{v}")

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "path": self.path, "function": self.function, "program": self.program,
                "values": self.values, "windows": self.windows, "bases": self.bases,
                "points": {p: list(lc) for p, lc in self.points.items()}, "conds": self.conds}


@dataclass
class FactSet:
    """All input relations of a run, plus the side tables."""

    rows: dict[str, set[tuple]] = field(default_factory=lambda: {r: set() for r in RELATIONS})
    kernels: dict[int, KernelTable] = field(default_factory=dict)

    def add(self, relation: str, *row: int | str) -> None:
        assert len(row) == RELATIONS[relation], (relation, row)
        self.rows[relation].add(row)


def export_facts(kernels: Iterable[tuple[str, Function]], target: Target) -> FactSet:
    """Facts for every `(path, kernel)`; kernel ids count from 1 in the given order."""
    facts = FactSet()
    for k, (path, fn) in enumerate(kernels, start=1):
        _KernelExporter(facts, k, path, fn, target).run()
    return facts


def render_facts(facts: FactSet) -> dict[str, str]:
    """Each relation's file text: tab-separated rows, sorted, newline-terminated."""
    return {name: "".join("\t".join(map(str, row)) + "\n" for row in sorted(rows))
            for name, rows in facts.rows.items()}


def write_facts(facts: FactSet, directory: Path) -> None:
    """Write `<relation>.facts` for every input relation and `side_table.json` into *directory*."""
    write_relations(facts, directory)
    side = {k: table.to_json() for k, table in sorted(facts.kernels.items())}
    (directory / "side_table.json").write_text(json.dumps(side, indent=1, sort_keys=True), encoding="utf-8")


def write_relations(facts: FactSet, directory: Path) -> None:
    """Write `<relation>.facts` for every input relation into *directory* (what an engine reads)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in render_facts(facts).items():
        (directory / f"{name}.facts").write_text(text, encoding="utf-8")


class _KernelExporter:
    """Walks one function once, numbering as it goes and emitting rows."""

    def __init__(self, facts: FactSet, k: int, path: str, fn: Function, target: Target) -> None:
        self.facts, self.k, self.fn, self.target = facts, k, fn, target
        self.table = KernelTable(k, path, fn.name, None)
        facts.kernels[k] = self.table
        self.env: dict[str, Type] = type_env(fn)
        self.value_ids: dict[str, int] = {}
        self.window_ids: dict[Window, int] = {}
        self.base_ids: dict[str, int] = {}
        self.next_point = 0
        self.next_cond = 0
        self.constants = constant_scalars(fn)
        self.acc_values: set[int] = set()
        self.flow_edges: list[tuple[int, int]] = []
        """the `flows` edges of datalog/flow.dl (phi arm, loop carry, identity copy, in-place), for chain_of"""

    # -- numbering ------------------------------------------------------------------------------

    def point(self, kind: str, span: Span) -> int:
        self.next_point += 1
        p = self.next_point
        self.facts.add("node", self.k, p, kind)
        if span.line:
            self.facts.add("span", self.k, p, span.line, span.col)
            self.table.points[p] = (span.line, span.col)
        return p

    def value(self, name: str) -> int:
        v = self.value_ids.get(name)
        if v is None:
            v = len(self.value_ids) + 1
            self.value_ids[name] = v
            self.table.values[v] = name
            self.facts.add("value", self.k, v)
            self._describe_value(v, name)
        return v

    def _describe_value(self, v: int, name: str) -> None:
        t = self.env.get(name)
        if not isinstance(t, TileType) or t.space is None:
            return
        shape = ops.static_shape(t.shape)
        dims = shape if shape is not None else ()
        size = self.target.tile_bytes(dims, t.dtype, t.space) if shape is not None else 0
        self.facts.add("tile", self.k, v, t.space.value, t.dtype.value, size)
        if t.space.value == "Acc":
            self.acc_values.add(v)
        if shape is not None:
            self.facts.add("tile_shape", self.k, v, "x".join(str(d) for d in shape))
        if t.memref is not None:
            self.facts.add("window", self.k, v, self.window(t.memref.window))

    def window(self, w: Window) -> int:
        wid = self.window_ids.get(w)
        if wid is None:
            wid = len(self.window_ids) + 1
            self.window_ids[w] = wid
            self.table.windows[wid] = str(w)
            self.facts.add("window_range", self.k, wid, self.base(w.base), w.offset, w.offset + w.size)
        return wid

    def base(self, name: str) -> int:
        b = self.base_ids.get(name)
        if b is None:
            b = len(self.base_ids) + 1
            self.base_ids[name] = b
            self.table.bases[b] = name
        return b

    def cond(self, expr: Expr) -> int:
        self.next_cond += 1
        self.table.conds[self.next_cond] = print_expr(expr)
        return self.next_cond

    # -- walk -----------------------------------------------------------------------------------

    def run(self) -> None:
        k = self.k
        self.facts.add("kernel", k)
        for space, size in self.target.capacity.items():
            self.facts.add("capacity", k, space.value, size)
        if self.target.acc_to_vec:
            self.facts.add("acc_to_vec", k)
        entry = self.point("entry", self.fn.span)
        for p in self.fn.params:
            self.facts.add("defines", k, entry, self.value(p.name))
        self._allocs()
        exits = self.block(self.fn.body, parent=0, arm=0, preds=[entry])
        end = self.point("exit", self.fn.span)
        self.link(exits, end)
        for v, r in chain_roots(self.acc_values, self.flow_edges).items():
            self.facts.add("chain_of", k, v, r)

    def flow(self, relation: str, *row: int) -> None:
        """Add a row of a relation `flows` is made of, and its edge (source, result)."""
        self.facts.add(relation, self.k, *row)
        if relation == "carry":
            _, _, init, arg, yielded, rv = row
            self.flow_edges += [(init, arg), (yielded, arg), (yielded, rv), (init, rv)]
        else:  # copy / inplace (p, src, dst)
            self.flow_edges.append((row[1], row[2]))

    def _allocs(self) -> None:
        for stmt in self.fn.body:
            if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == ops.ALLOC:
                space = ops.space_of_sym(stmt.value.args[0]) if stmt.value.args else None
                size = ops.const_int(stmt.value.args[1]) if len(stmt.value.args) > 1 else None
                if space is not None and size is not None:
                    self.facts.add("alloc", self.k, self.base(stmt.target.name), space.value, size)

    def link(self, preds: list[int], target: int) -> None:
        for p in preds:
            self.facts.add("succ", self.k, p, target)

    def block(self, body: tuple[Stmt, ...], parent: int, arm: int, preds: list[int]) -> list[int]:
        """Emit *body*; *preds* flow into its first point; returns the points that flow out of it."""
        for index, stmt in enumerate(body):
            first, preds = self.stmt(stmt, preds)
            self.facts.add("block_member", self.k, first, parent, arm, index)
        return preds

    def stmt(self, stmt: Stmt, preds: list[int]) -> tuple[int, list[int]]:
        """Emit one statement; returns (its first point, the points that flow out of it)."""
        if isinstance(stmt, For):
            return self.for_(stmt, preds)
        if isinstance(stmt, If):
            return self.if_(stmt, preds)
        if isinstance(stmt, Scope):
            p = self.point("scope", stmt.span)
            self.link(preds, p)
            return p, self.block(stmt.body, parent=p, arm=0, preds=[p])
        kind = {Assign: "assign", Eval: "eval", Yield: "yield", Return: "return"}[type(stmt)]
        assert isinstance(stmt, (Assign, Eval, Yield, Return))  # the lookup above raised otherwise
        p = self.point(kind, stmt.span)
        self.link(preds, p)
        if isinstance(stmt, Assign):
            self.assign(p, stmt)
        elif isinstance(stmt, Eval):
            self.reads(p, (stmt.value,))
            self.call(p, stmt.value, None)
        else:
            self.reads(p, stmt.values)
        return p, [p]

    def assign(self, p: int, stmt: Assign) -> None:
        k = self.k
        target = self.value(stmt.target.name)
        self.facts.add("defines", k, p, target)
        source = var_like(stmt.value)
        if source is not None:
            self.reads(p, (stmt.value,))
            self.flow("copy", p, self.value(source.name), target)
            return
        if isinstance(stmt.value, Call):
            self.reads(p, stmt.value.args + tuple(v for _, v in stmt.value.kwargs))
            self.call(p, stmt.value, target)
        else:
            self.reads(p, (stmt.value,))

    def call(self, p: int, call: Expr, target: int | None) -> None:
        if not isinstance(call, Call):
            return
        k = self.k
        name = call.op if _SAFE_OP.match(call.op) else "opaque"
        self.facts.add("op", k, p, name)
        inplace = ops.inplace_input(call)
        source = var_like(inplace) if inplace is not None else None
        if source is not None and target is not None:
            self.flow("inplace", p, self.value(source.name), target)
        if call.op == ops.MATMUL_ACC:
            init = ops.matmul_parts(call).init_cond
            if init is not None:
                literal = evaluate(init, self.constants)
                if isinstance(literal, bool):
                    self.facts.add("init_cond_literal", k, p, int(literal))
                else:
                    self.facts.add("init_cond", k, p, self.cond(init))

    def reads(self, p: int, exprs: tuple[Expr, ...]) -> None:
        """`uses` rows: position i for the i-th operand, for every variable inside it."""
        for pos, expr in enumerate(exprs):
            for name in var_names(expr):
                self.facts.add("uses", self.k, p, self.value(name), pos)

    def for_(self, loop: For, preds: list[int]) -> tuple[int, list[int]]:
        k = self.k
        entry = self.point("for_entry", loop.span)
        self.link(preds, entry)
        self.reads(entry, (loop.start, loop.stop, loop.step, *loop.inits))
        header = self.point("for_header", loop.span)
        self.link([entry], header)
        self.facts.add("defines", k, header, self.value(loop.loop_var.name))
        for arg in loop.iter_args:
            self.facts.add("defines", k, header, self.value(arg.name))
        # A literal zero trip count: control never enters the body, so neither the edge into it nor its
        # back edge exists (the body is unreachable, and nothing it writes flows past the loop).
        never_runs = self.literal_trip_count(loop) == 0
        tail = self.block(loop.body, parent=entry, arm=0, preds=[] if never_runs else [header])
        for t in [] if never_runs else tail:
            self.facts.add("succ", k, t, header)
            self.facts.add("loop_back", k, t, header)
        exit_ = self.point("for_exit", loop.span)
        self.link([header], exit_)
        for rv in loop.return_vars:
            self.facts.add("defines", k, exit_, self.value(rv.name))
        yielded = yield_values(loop.body)
        for i, (arg, init, rv) in enumerate(zip(loop.iter_args, loop.inits, loop.return_vars)):
            init_v = var_like(init)
            y = var_like(yielded[i]) if i < len(yielded) else None
            if init_v is not None and y is not None:
                self.flow("carry", entry, i, self.value(init_v.name), self.value(arg.name), self.value(y.name),
                          self.value(rv.name))
        return entry, [exit_]

    def literal_trip_count(self, loop: For) -> int | None:
        """How often *loop* runs when its bounds fold to integers (`pl.range(K_SLICE // K_TILE)` with
        constants), else None: a symbolic bound keeps every edge (a may-analysis)."""
        bounds = [evaluate(e, self.constants) for e in (loop.start, loop.stop, loop.step)]
        ints = [b for b in bounds if isinstance(b, int) and not isinstance(b, bool)]
        if len(ints) != 3 or ints[2] == 0:
            return None  # a zero step is the frontend's PV000
        return trip_count(*ints)

    def if_(self, stmt: If, preds: list[int]) -> tuple[int, list[int]]:
        k = self.k
        p = self.point("if", stmt.span)
        self.link(preds, p)
        self.reads(p, (stmt.cond,))
        literal = evaluate(stmt.cond, self.constants)
        if isinstance(literal, bool):
            self.facts.add("cond_literal", k, p, int(literal))
        join_preds: list[int] = []
        empty_arms: list[int] = []
        for arm, body in ((1, stmt.then_body), (0, stmt.else_body)):
            first = self.next_point + 1
            tail = self.block(body, parent=p, arm=arm, preds=[p])
            if body:
                self.facts.add("branch", k, p, first, arm)
                join_preds.extend(tail)
            else:
                join_preds.append(p)
                empty_arms.append(arm)
        join = self.point("if_join", stmt.span)
        self.link(join_preds, join)
        for arm in empty_arms:
            self.facts.add("branch", k, p, join, arm)
        for i, rv in enumerate(stmt.return_vars):
            rv_id = self.value(rv.name)
            self.facts.add("defines", k, join, rv_id)
            self.facts.add("phi", k, p, i, rv_id)
            for arm, body in ((1, stmt.then_body), (0, stmt.else_body)):
                values = yield_values(body)
                if i < len(values):
                    y = var_like(values[i])
                    if y is not None:
                        self.facts.add("phi_arm", k, p, arm, i, self.value(y.name))
                        self.flow_edges.append((self.value(y.name), rv_id))
        return p, [join]


def chain_roots(acc: set[int], edges: Iterable[tuple[int, int]]) -> dict[int, int]:
    """The `chain_of` rows: each Acc value -> the smallest value of its chain, the connected component of
    *acc* under the *edges* that join two Acc values (datalog/acc_chain.dl says why this is exported, not
    derived). Union-find by smallest root, with path halving: near-linear in values and edges."""
    parent = {v: v for v in acc}

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in edges:
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    return {v: find(v) for v in acc}


def constant_scalars(fn: Function) -> dict[str, int | bool]:
    """Scalars whose value is known statically: `d0 = 0 * 64` in a literal tail clone is 0. Conditions
    over them are literal too (`if d0 == 0:`), exactly like `if 0 == 0:`."""
    env: dict[str, int | bool] = {}
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, Assign) and not isinstance(stmt.value, Call):
            value = evaluate(stmt.value, env)
            if isinstance(value, (int, bool)):
                env[stmt.target.name] = value
    return env
