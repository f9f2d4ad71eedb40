"""The peel codemod's text half: find hand-written peels and rewrite them into the predicated form.

A peel is an `if` whose arms are the seed and the accumulate of the same accumulators (`sites`' if-phi
form), either arm order:

    if <cond>:                                   if <cond>:
        acc = pl.matmul(a, b, ...)                   acc = pl.matmul_acc(acc, a, b, ...)
    else:                                        else:
        acc = pl.matmul_acc(acc, a, b, ...)          acc = pl.matmul(a, b, ...)

becomes `acc = pl.matmul_acc(acc, a, b, ..., init_cond=(<cond>))` (`not` of it for the second order; a
single comparison is inverted instead: `kb != 0` → `kb == 0`), one statement per accumulator when an arm
seeds several. Owns: `find_peels` (every candidate `if`, each a `Peel` with its edit or the reason it is
not rewritten: an `elif` chain, a `matmul_bias` seed — it stays, as in the compiler —, other statements
in an arm, arms that assign different accumulators, multiply different operands or take different
options), `apply` (the edits, exact over the source spans `ast` gives, so every other byte — formatting,
comments — is kept; the comments inside a rewritten `if` move above it) and `LineMap` (where each line of
the rewritten text was in the original, so a proof can pair the rewritten kernel with the original:
`pypto_verify.fix`). Text in, text out: whether a rewrite is *sound* is `fix`'s question, not this
module's.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

SEED = "matmul"
ACCUMULATE = "matmul_acc"
BIAS = "matmul_bias"
DROPPED_OPTIONS = frozenset({"out_dtype"})
"""Options of the seed that the accumulate does not take: its accumulator fixes the output type."""

_INVERSE = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">"}


@dataclass(frozen=True)
class Statement:
    """One rewritten statement: its text and where the accumulate it replaces was."""

    text: str
    """`acc = pl.matmul_acc(acc, a, b, init_cond=(k == 0))`, continuation lines dedented to the `if`."""
    line: int
    col: int
    """The original accumulate statement's line and 0-based column."""
    dedent: int
    """How many columns its continuation lines moved left."""
    target: str


@dataclass(frozen=True)
class Peel:
    """One candidate `if`: its edit, or why it is not rewritten."""

    line: int
    col: int
    """The `if`'s line and 0-based column."""
    end_line: int
    end_col: int
    """Where the `if` statement ends (its last arm's last statement)."""
    function: str
    targets: tuple[str, ...]
    reason: str = ""
    """Empty when the peel is rewritten."""
    statements: tuple[Statement, ...] = ()
    comments: tuple[str, ...] = ()
    """The comments inside the `if` (moved above the rewritten statements)."""

    @property
    def rewritable(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class LineMap:
    """Where each line of a rewritten text was in the original: `origin(line, col)`."""

    rows: tuple[tuple[int, int], ...]
    """Per line of the rewritten text (index 0 = line 1): (original line, column shift)."""

    def origin(self, line: int, col: int) -> tuple[int, int]:
        """The original (line, 1-based column) of a 1-based position of the rewritten text."""
        if not 1 <= line <= len(self.rows):
            return line, col
        old, shift = self.rows[line - 1]
        return old, col + shift


# ---------------------------------------------------------------------------------------------- finding peels


def _call_name(node: ast.expr) -> str | None:
    """`matmul` for `pl.matmul(...)` (any module alias: `pl`, `pypto.language`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _mad(stmt: ast.stmt) -> tuple[str, str, ast.Call] | None:
    """`(target, op, call)` when *stmt* is `name = pl.<matmul op>(...)`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        op = _call_name(stmt.value)
        if op in (SEED, ACCUMULATE, BIAS):
            assert isinstance(stmt.value, ast.Call)
            return stmt.targets[0].id, op, stmt.value
    return None


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _options(call: ast.Call, dropped: frozenset[str] = frozenset()) -> dict[str, str]:
    return {k.arg or "**": ast.dump(k.value) for k in call.keywords if k.arg not in dropped}


def _is_elif(node: ast.If, lines: list[str]) -> bool:
    return lines[node.lineno - 1][node.col_offset:].startswith("elif")


def _has_mad(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) and _call_name(n) in (SEED, ACCUMULATE, BIAS) for s in body for n in ast.walk(s))


def find_peels(text: str) -> list[Peel]:
    """Every `if` of *text* that seeds or accumulates in an arm, in source order, each with its rewrite or
    the reason it has none. `SyntaxError` when *text* does not parse."""
    tree = ast.parse(text)
    lines = text.splitlines()
    functions: dict[int, str] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(fn):
                functions[id(node)] = fn.name  # the innermost function wins: walked outer first
    heads: set[int] = set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) \
                and _is_elif(node.orelse[0], lines):
            heads.add(id(node))
            inner.add(id(node.orelse[0]))
    peels = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and id(node) not in inner and (_has_mad(node.body) or _has_mad(node.orelse)):
            # an `elif` chain is reported once, at its head
            peels.append(_peel(node, text, lines, functions.get(id(node), ""), id(node) in heads))
    return sorted(peels, key=lambda p: (p.line, p.col))


def _peel(node: ast.If, text: str, lines: list[str], function: str, chained: bool) -> Peel:
    end = node.orelse[-1] if node.orelse else node.body[-1]
    assert end.end_lineno is not None and end.end_col_offset is not None
    then = [_mad(s) for s in node.body]
    other = [_mad(s) for s in node.orelse]
    targets = tuple(dict.fromkeys(m[0] for m in (*then, *other) if m is not None))
    end_line, end_col = end.end_lineno, end.end_col_offset

    def refuse(reason: str) -> Peel:
        return Peel(node.lineno, node.col_offset, end_line, end_col, function, targets, reason)
    if chained:
        return refuse("an `elif` chain is not a peel (its arms are not one seed and "
                                                     "one accumulate)")
    if not node.orelse:
        return refuse("the `if` has no `else` arm")
    if any(m is None for m in (*then, *other)) or len(then) != len(other):
        return refuse("an arm holds other statements than the seeds and the "
                                                     "accumulates")
    ops_then = {m[1] for m in then if m is not None}
    ops_else = {m[1] for m in other if m is not None}
    if BIAS in ops_then | ops_else:
        return refuse("a `matmul_bias` seed stays: `matmul_acc` has no bias "
                                                     "operand, so init_cond cannot seed the bias")
    if ops_then == {SEED} and ops_else == {ACCUMULATE}:
        seeds, accs, negate = then, other, False
    elif ops_then == {ACCUMULATE} and ops_else == {SEED}:
        seeds, accs, negate = other, then, True
    else:
        return refuse("the arms are not one seeding `matmul` arm and one "
                                                     "accumulating `matmul_acc` arm")
    by_target = {m[0]: m for m in seeds if m is not None}
    if len(by_target) != len(seeds) or set(by_target) != {m[0] for m in accs if m is not None}:
        seeded = ", ".join(f"`{m[0]}`" for m in seeds if m is not None)
        accumulated = ", ".join(f"`{m[0]}`" for m in accs if m is not None)
        return refuse(f"the arms assign different accumulators (seed {seeded}, "
                                                     f"accumulate {accumulated})")
    cond = ast.get_source_segment(text, node.test)
    assert cond is not None
    init = _condition(node.test, text, cond, negate)
    statements = []
    for stmt, mad in zip(node.body if negate else node.orelse, accs):
        assert mad is not None
        target, _, call = mad
        seed = by_target[target][2]
        if any(k.arg == "init_cond" for k in call.keywords):
            return refuse(f"`{target}`'s matmul_acc is already predicated")
        if len(call.args) != 3 or len(seed.args) != 2:
            return refuse(f"`{target}`: the seed takes (lhs, rhs) and the "
                                                         "accumulate (acc, lhs, rhs), positionally")
        if not all(_same(x, y) for x, y in zip(seed.args, call.args[1:])):
            return refuse(f"the arms multiply different operands for `{target}` "
                                                         f"({_segment(text, seed.args[0])} @ {_segment(text, seed.args[1])}"
                                                         f" vs {_segment(text, call.args[1])} @ {_segment(text, call.args[2])})")
        if _options(seed, DROPPED_OPTIONS) != _options(call):
            return refuse(f"the arms take different options for `{target}` "
                                                         "(a_trans, b_trans, ...)")
        statements.append(_statement(stmt, call, text, lines, node.col_offset, init, target))
    comments = _comments(text, node)
    return Peel(node.lineno, node.col_offset, end_line, end_col, function, targets, "", tuple(statements), comments)


def _condition(test: ast.expr, source: str, text: str, negate: bool) -> str:
    """The init_cond text: `(cond)`, or its inverse for the accumulate-first order."""
    if not negate:
        return text if text.startswith("(") and text.endswith(")") else f"({text})"
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _INVERSE:
        left, right = _segment(source, test.left), _segment(source, test.comparators[0])
        return f"({left} {_INVERSE[type(test.ops[0])]} {right})"
    return f"(not ({text}))"


def _segment(source: str, node: ast.AST) -> str:
    text = ast.get_source_segment(source, node)
    assert text is not None
    return text


def _statement(stmt: ast.stmt, call: ast.Call, text: str, lines: list[str], indent: int, init: str,
               target: str) -> Statement:
    """The accumulate statement's own text with `init_cond=` added before its call's closing parenthesis."""
    assert stmt.end_lineno is not None and stmt.end_col_offset is not None
    assert call.end_lineno is not None and call.end_col_offset is not None
    seg = _slice(lines, stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset)
    # the call's closing parenthesis, as an offset into seg
    close = _offset(lines, stmt.lineno, stmt.col_offset, call.end_lineno, call.end_col_offset) - 1
    assert seg[close] == ")", seg
    head = seg[:close].rstrip()
    sep = " " if head.endswith(",") else ", "
    body = head + sep + f"init_cond={init}" + seg[close:]
    dedent = stmt.col_offset - indent
    parts = body.split("\n")
    moved = [parts[0]] + [p[dedent:] if p[:dedent].strip() == "" else p for p in parts[1:]]
    return Statement("\n".join(moved), stmt.lineno, stmt.col_offset, dedent, target)


def _slice(lines: list[str], l1: int, c1: int, l2: int, c2: int) -> str:
    if l1 == l2:
        return lines[l1 - 1][c1:c2]
    return "\n".join([lines[l1 - 1][c1:], *lines[l1:l2 - 1], lines[l2 - 1][:c2]])


def _offset(lines: list[str], l1: int, c1: int, l2: int, c2: int) -> int:
    """Characters from (l1, c1) to (l2, c2) in the joined text."""
    return len(_slice(lines, l1, c1, l2, c2))


def _comments(text: str, node: ast.If) -> tuple[str, ...]:
    """The comments inside the `if` statement, in order."""
    end = node.orelse[-1] if node.orelse else node.body[-1]
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            line = token.start[0]
            if node.lineno <= line <= (end.end_lineno or line):
                out.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return ()
    return tuple(out)


# ---------------------------------------------------------------------------------------------- applying


def replacement(peel: Peel) -> str:
    """The text that replaces the `if` statement: its comments, then the rewritten statements, each at
    the `if`'s indentation (the first starts where the `if` did)."""
    pad = " " * peel.col
    lines = [*peel.comments, *(s.text for s in peel.statements)]
    return ("\n" + pad).join(lines)


def apply(text: str, peels: list[Peel]) -> tuple[str, LineMap]:
    """*text* with every rewritable peel of *peels* replaced, and where each new line was."""
    lines = text.split("\n")
    chosen = sorted((p for p in peels if p.rewritable), key=lambda p: (p.line, p.col))
    out: list[str] = []
    rows: list[tuple[int, int]] = []
    line = 1  # next original line to copy
    for peel in chosen:
        while line < peel.line:
            out.append(lines[line - 1])
            rows.append((line, 0))
            line += 1
        prefix = lines[peel.line - 1][:peel.col]
        suffix = lines[peel.end_line - 1][peel.end_col:]
        new = (prefix + replacement(peel) + suffix).split("\n")
        origins: list[tuple[int, int]] = [(peel.line, 0)] * len(peel.comments)
        for s in peel.statements:
            count = s.text.count("\n") + 1
            origins.append((s.line, s.col - peel.col))
            origins += [(s.line + k, s.dedent) for k in range(1, count)]
        out += new
        rows += origins
        line = peel.end_line + 1
    while line <= len(lines):
        out.append(lines[line - 1])
        rows.append((line, 0))
        line += 1
    assert len(out) == len(rows)
    return "\n".join(out), LineMap(tuple(rows))
