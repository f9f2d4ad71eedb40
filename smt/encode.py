"""SMT encoding: a small term language printed as SMT-LIB, IR expressions as terms, and the
iteration space of a site as functions of one normalised step index.

Owns: `Term` (hash-consed; Int, Bool and the uninterpreted sort `Tile`), `render` (SMT-LIB text,
deterministic, with common subterms named), `ExprEncoder` (index arithmetic and conditions of the IR)
and `ChainEncoding` (a `sites.AccSite` as terms over the step index `n`). Nothing here imports z3: the
query text is the cache key, and a cache hit must not pay for z3 (L0C_RULES.md, "Z3 obligations";
STYLE.md §10). `solver.py` hands the text to `z3.parse_smt2_string` on a miss.

Arithmetic. The IR's `+ - * // % min max` and `== != < <= > >= and or not` on Python ints. SMT-LIB's
`div` / `mod` are Euclidean (the remainder is never negative), which equals Python's floor division for
a positive divisor; for a negative divisor floor(a / b) = floor(-a / -b), so `a // b` is encoded as
`(div a b)` when b > 0 and `(div (- a) (- b))` when b < 0, and `a % b` as `a - b * (a // b)`. A zero
divisor (Python raises) is left to SMT-LIB's unspecified `(div a 0)`.

Tiles. `Tile` is uninterpreted: `mm[...]` is the product of one block pair, applied to the blocks'
global offsets and extents (the global K offset among them, so the L0 blocks a lowering splits a
source block into are `mm(k0)`, `mm(k0 + k)`, ... in K order), `add(acc, x)` accumulates and
`addbias(x, b)` adds a bias row. Nothing is assumed about them (no associativity, no commutativity),
so an equality the solver proves is one of the K-ordered sequence of steps itself.

Iteration space. The MADs of a site, flattened in execution order, are its *steps* 0 .. N-1; a loop
body must run the same number of steps in every iteration (its count may be symbolic, but not depend
on a loop variable of the site). Each MAD, create and drain of the site model is decoded from `n` by
exact integer division: in a loop of `S` steps per iteration starting at offset `o`, an item whose
first position inside the body is `lo` runs in iteration `i = (n - o - lo) div S` (unique, because an
item never spans a whole body), and the loop variable is `start + i * step`. With literal counts, the
leaves whose positions in an iteration lie in `[0, S)` (every MAD; a create or drain of the body itself)
share one division, `i = (n - o) div S` (`i - 1` for one at the very end of the body, `lo = S`), which
equals the per-leaf one wherever the leaf runs: the solver then relates one quotient per loop instead of
one per leaf. So "the step at `n`", "a drain right before step `n`" are quantifier-free functions of
`n`, usable under negation.

Scalar loop carries (`sites.Carry`: `k0 = 0` before the loop, `k0 = k0 + K_TILE` in it) are valued
exactly as `init + i * delta` in iteration `i` when the yielded value is the iter_arg plus a
loop-invariant `delta` (a literal, a parameter, a runtime read outside the loop); any other carry is
its init in the first iteration and otherwise a function of the loop variables in scope, named for one
side of the query only, and an approximation — so it can prove, or be inconclusive, but never refute.
A scalar an `if` yields is the `ite` of its arms.
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import filterfalse
from operator import is_
from typing import Any

from pypto_verify import ir, ops
from pypto_verify.ir import BinOp, BoolOp, Call, Compare, Const, Expr, UnaryOp, Var, display_name, var_like

from pypto_verify.smt import sites as S

INT, BOOL, TILE = "Int", "Bool", "Tile"

# ---------------------------------------------------------------------------------------------- terms


class Term:
    """An SMT term: `head` is `int` / `bool` (a literal `value`), `const` (a declared constant `value`),
    `app` (an uninterpreted function `value` applied to `args`) or an SMT-LIB builtin (`+`, `ite`, ...).
    Terms are hash-consed: equal terms are the same object, so a term's equality and hash are its
    identity's (`object`'s own, in C: a dict or set of terms pays no Python call per lookup)."""

    __slots__ = ("head", "args", "value", "sort", "__weakref__")

    head: str
    args: tuple["Term", ...]
    value: Any
    """An int / bool for a literal, the name (str) of a `const` or `app`, None for a builtin: `Any`
    because its type follows `head`, on which mypy cannot narrow."""
    sort: str

    def __new__(cls, head: str, args: tuple["Term", ...] = (), value: object = None, sort: str = INT) -> "Term":
        # the key holds the arguments themselves: terms compare and hash by identity, and an argument lives as
        # long as the term holding it anyway; the value's class keeps `1` and `True` apart
        key = (head, args, value.__class__, value, sort)
        ref = _TERMS.get(key)
        if ref is not None:
            found = ref()
            if found is not None:
                return found
        self = object.__new__(cls)
        self.head, self.args, self.value, self.sort = head, args, value, sort
        _TERMS[key] = _weak(self, _forgetter(_forget, key))
        return self

    def __repr__(self) -> str:
        return render_term(self)

    @property
    def is_lit(self) -> bool:
        return self.head in ("int", "bool")


_TERMS: dict[tuple, "weakref.ref[Term]"] = {}
"""Every live term by its key (`Term.__new__`), held weakly: a plain dict of `weakref.ref`s, each dropping its
entry when its term dies (what a `WeakValueDictionary` does, without its Python-level reference class: about
half the cost of a term made or found, ~430 000 over 1 000 synthetic kernels)."""
_weak = weakref.ref
_forgetter = functools.partial


def _forget(key: tuple, ref: "weakref.ref[Term]", table: dict[tuple, "weakref.ref[Term]"] = _TERMS) -> None:
    """Drop *key*'s entry, a term that died, unless a term made since holds it (*table*: bound here, so a term
    dying while the interpreter shuts down still finds it)."""
    if table.get(key) is ref:
        del table[key]


def lit(value: int | bool) -> Term:
    """An Int or Bool literal (the literals made before are kept, `_LITS`: most terms' leaves are a few small
    numbers)."""
    key = (value.__class__, value)
    found = _LITS.get(key)
    if found is None:
        found = Term("bool", (), value, BOOL) if value.__class__ is bool else Term("int", (), int(value), INT)
        if len(_LITS) >= LITS_KEPT:
            _LITS.clear()
        _LITS[key] = found
    return found


_LITS: dict[tuple[type, int | bool], Term] = {}
"""The literals `lit` made, by (class, value): the same object `Term` gives (hash-consing), without the key of its
table built again; a literal kept here stays alive, so `Term`'s table keeps it too."""
LITS_KEPT = 4096
"""The most literals `_LITS` holds (emptied when full: it only saves time)."""


TRUE, FALSE, ZERO, ONE = lit(True), lit(False), lit(0), lit(1)


def const(name: str, sort: str = INT) -> Term:
    """A declared constant (a free symbol)."""
    return Term("const", (), name, sort)


def app(fn: str, args: Iterable[Term], sort: str) -> Term:
    """An uninterpreted function application."""
    return Term("app", tuple(args), fn, sort)


def _b(head: str, *args: Term, sort: str = INT) -> Term:
    return Term(head, tuple(args), None, sort)


def add(*terms: Term) -> Term:
    items: list[Term] = []
    total = 0
    for t in terms:
        for part in (t.args if t.head == "+" else (t,)):
            if part.head == "int":
                total += part.value
            else:
                items.append(part)
    if total:
        items.append(lit(total))
    if not items:
        return ZERO
    return items[0] if len(items) == 1 else _b("+", *items)


def neg(a: Term) -> Term:
    return lit(-a.value) if a.head == "int" else mul(lit(-1), a)


def sub(a: Term, b: Term) -> Term:
    if b.head == "int":
        return add(a, lit(-b.value))
    if a is b:
        return ZERO
    return add(a, neg(b))


def mul(a: Term, b: Term) -> Term:
    if a.head == "int" and b.head == "int":
        return lit(a.value * b.value)
    if b.head == "int":
        a, b = b, a
    if a.head == "int":
        if a.value == 0:
            return ZERO
        if a.value == 1:
            return b
        if b.head == "*" and b.args[0].head == "int":
            return mul(lit(a.value * b.args[0].value), b.args[1])
        if b.head == "+":
            return add(*(mul(a, x) for x in b.args))
    return _b("*", a, b)


def floordiv(a: Term, b: Term) -> Term:
    """Python's `a // b` (module docstring)."""
    if a.head == "int" and b.head == "int" and b.value != 0:
        return lit(a.value // b.value)
    if b.head == "int":
        if b.value == 1:
            return a
        if b.value > 0:
            return _b("div", a, b)
        if b.value < 0:
            return _b("div", neg(a), neg(b))
    return ite(gt(b, ZERO), _b("div", a, b), ite(lt(b, ZERO), _b("div", neg(a), neg(b)), _b("div", a, b)))


def floormod(a: Term, b: Term) -> Term:
    """Python's `a % b` (module docstring)."""
    if a.head == "int" and b.head == "int" and b.value != 0:
        return lit(a.value % b.value)
    if b.head == "int" and b.value > 0:
        return ZERO if b.value == 1 else _b("mod", a, b)
    return sub(a, mul(b, floordiv(a, b)))


def eq(a: Term, b: Term) -> Term:
    if a is b:
        return TRUE
    if a.is_lit and b.is_lit:
        return lit(a.value == b.value)
    if a.sort == BOOL and b.is_lit:
        return a if b.value else not_(a)
    if b.sort == BOOL and a.is_lit:
        return b if a.value else not_(b)
    if a.sort == INT and (a.head == "+" or b.head == "+"):
        diff = sub(a, b)
        if diff.head == "int":
            return lit(diff.value == 0)
    return _b("=", a, b, sort=BOOL)


def ne(a: Term, b: Term) -> Term:
    return not_(eq(a, b))


def lt(a: Term, b: Term) -> Term:
    if a.head == "int" and b.head == "int":
        return lit(a.value < b.value)
    return _b("<", a, b, sort=BOOL)


def le(a: Term, b: Term) -> Term:
    if a.head == "int" and b.head == "int":
        return lit(a.value <= b.value)
    if a is b:
        return TRUE
    return _b("<=", a, b, sort=BOOL)


def gt(a: Term, b: Term) -> Term:
    return lt(b, a)


def ge(a: Term, b: Term) -> Term:
    return le(b, a)


def and_(*terms: Term) -> Term:
    items: list[Term] = []
    for t in terms:
        for part in (t.args if t.head == "and" else (t,)):
            if part is FALSE:
                return FALSE
            if part is not TRUE and part not in items:
                items.append(part)
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else _b("and", *items, sort=BOOL)


def or_(*terms: Term) -> Term:
    items: list[Term] = []
    for t in terms:
        for part in (t.args if t.head == "or" else (t,)):
            if part is TRUE:
                return TRUE
            if part is not FALSE and part not in items:
                items.append(part)
    if not items:
        return FALSE
    return items[0] if len(items) == 1 else _b("or", *items, sort=BOOL)


def not_(a: Term) -> Term:
    if a.head == "bool":
        return lit(not a.value)
    if a.head == "not":
        return a.args[0]
    return _b("not", a, sort=BOOL)


def implies(a: Term, b: Term) -> Term:
    return or_(not_(a), b)


def ite(c: Term, a: Term, b: Term) -> Term:
    if c is TRUE or a is b:
        return a
    if c is FALSE:
        return b
    if a.sort == BOOL:
        if a is TRUE and b is FALSE:
            return c
        if a is FALSE and b is TRUE:
            return not_(c)
    return _b("ite", c, a, b, sort=a.sort)


def minimum(a: Term, b: Term) -> Term:
    return ite(le(a, b), a, b)


def maximum(a: Term, b: Term) -> Term:
    return ite(le(a, b), b, a)


def _linear(t: Term, scale: int, out: dict[Term, int]) -> int:
    """Add `scale * t` to *out* as atom -> coefficient; returns the constant part."""
    if t.head == "int":
        return scale * t.value
    if t.head == "+":
        return sum(_linear(a, scale, out) for a in t.args)
    if t.head == "*" and t.args[0].head == "int":
        return _linear(t.args[1], scale * t.args[0].value, out)
    out[t] = out.get(t, 0) + scale
    return 0


def linear_sub(a: Term, b: Term) -> Term:
    """`a - b` with like terms of the two linear sums cancelled (`(x + 128) - x` is `128`)."""
    parts: dict[Term, int] = {}
    total = _linear(a, 1, parts) + _linear(b, -1, parts)
    return add(*(mul(lit(c), t) for t, c in parts.items() if c), lit(total))


def consts_in(term: Term) -> set[str]:
    """The names of the constants *term* mentions."""
    out: set[str] = set()
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.head == "const":
            out.add(t.value)
        stack.extend(t.args)
    return out


def substitute(term: Term, values: Mapping[Term, Term]) -> Term:
    """*term* with each key replaced by its value (rebuilt through the folding constructors)."""
    return _substitute(term, values, {})


def substituter(values: Mapping[Term, Term]) -> Callable[[Term], Term]:
    """`substitute(., values)` for several terms, sharing the images of their common subterms."""
    memo: dict[Term, Term] = {}
    return lambda term: _substitute(term, values, memo)


def facts_of(assumptions: Iterable[Term]) -> dict[Term, Term]:
    """The atoms *assumptions* assert, each mapped to its truth value (`a` to true, `(not a)`'s `a` to
    false, the conjuncts of an `and`): under the assumptions, a term may have them replaced."""
    facts: dict[Term, Term] = {}
    stack = list(assumptions)
    while stack:
        a = stack.pop()
        if a.head == "and":
            stack.extend(a.args)
        elif a.head == "not":
            facts.setdefault(a.args[0], FALSE)
        elif not a.is_lit:
            facts.setdefault(a, TRUE)
    return facts


def simplify_under(assumptions: Iterable[Term], terms: Iterable[Term],
                   memos: dict[tuple[Term, ...], tuple[dict[Term, Term], dict[Term, Term]]] | None = None
                   ) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    """*assumptions* without duplicates or `true`, and *terms* with every atom the assumptions assert
    replaced by its value (folded; equivalent under the assumptions). A context guard `nb < 2` then makes
    a count `ite(nb < 2, 4, 0)` the literal 4, and a division by it a division by a literal. *memos*, kept
    by the caller across calls, holds the facts and images of each assumption set already seen (the
    obligations of one site mostly share theirs)."""
    kept: list[Term] = []
    for a in assumptions:
        if a is not TRUE and a not in kept:
            kept.append(a)
    key = tuple(kept)
    found = memos.get(key) if memos is not None else None
    if found is None:
        found = (facts_of(kept), {})
        if memos is not None:
            memos[key] = found
    facts, memo = found
    if not facts:
        return key, tuple(terms)
    return key, tuple(_substitute(t, facts, memo) for t in terms)


def _substitute(term: Term, values: Mapping[Term, Term], memo: dict[Term, Term]) -> Term:
    """*term* under *values*, through *memo* (term -> its image; several calls with the same *values* may
    share one: a term's image depends on the term and *values* alone). A term's arguments are imaged before
    it, each once, by `map` and `filterfalse` over the memo (no Python-level loop per argument)."""
    found = memo.get(term)
    if found is not None:
        return found
    value_of, known, image_of = values.get, memo.__contains__, memo.__getitem__
    stack: list[Term] = [term]
    while stack:
        t = stack[-1]
        if t in memo:
            stack.pop()
            continue
        image = value_of(t)
        args = t.args
        if image is not None or not args:
            memo[t] = t if image is None else image
            stack.pop()
            continue
        pending = list(filterfalse(known, args))
        if pending:
            stack += pending
            continue
        stack.pop()
        images = tuple(map(image_of, args))
        memo[t] = t if all(map(is_, images, args)) else _rebuild(t, images)
    return memo[term]


def _smt_div(a: Term, b: Term) -> Term:
    """SMT-LIB `div` (Euclidean: the remainder is in [0, |b|)), folded on literals."""
    if a.head == "int" and b.head == "int" and b.value != 0:
        r = a.value % abs(b.value)
        return lit((a.value - r) // b.value)
    return _b("div", a, b)


def _smt_mod(a: Term, b: Term) -> Term:
    if a.head == "int" and b.head == "int" and b.value != 0:
        return lit(a.value % abs(b.value))
    return _b("mod", a, b)


_REBUILD = {
    "+": lambda a: add(*a), "*": lambda a: mul(*a), "div": lambda a: _smt_div(*a), "mod": lambda a: _smt_mod(*a),
    "=": lambda a: eq(*a), "<": lambda a: lt(*a), "<=": lambda a: le(*a), "and": lambda a: and_(*a),
    "or": lambda a: or_(*a), "not": lambda a: not_(*a), "ite": lambda a: ite(*a),
}


def _rebuild(t: Term, args: tuple[Term, ...]) -> Term:
    if t.head == "app":
        return app(t.value, args, t.sort)
    return _REBUILD[t.head](args)


# ---------------------------------------------------------------------------------------------- SMT-LIB


def quote(name: str) -> str:
    """An SMT-LIB quoted symbol (the names we make never contain `|` or `\\`)."""
    return f"|{name}|"


def render_term(term: Term, names: Mapping[int, str] | None = None) -> str:
    """*term* as an SMT-LIB s-expression; *names* maps shared subterms (by id) to their definitions."""
    parts: list[str] = []

    def go(t: Term, top: bool) -> None:
        if names is not None and not top and id(t) in names:
            parts.append(names[id(t)])
            return
        if t.head == "int":
            parts.append(str(t.value) if t.value >= 0 else f"(- {-t.value})")
        elif t.head == "bool":
            parts.append("true" if t.value else "false")
        elif t.head == "const":
            parts.append(quote(t.value))
        else:
            head = quote(t.value) if t.head == "app" else t.head
            parts.append(f"({head}")
            for a in t.args:
                parts.append(" ")
                go(a, False)
            parts.append(")")

    go(term, True)
    return "".join(parts)


def render(assertions: Iterable[Term], witnesses: Iterable[tuple[str, Term]] = ()) -> str:
    """The SMT-LIB text of one query: declarations (sorted), shared subterms as `define-fun`s, the
    assertions in order, one `(declare-const |w!name| ...)` + equality per witness, `(check-sat)`.
    Deterministic: the same terms give the same text, which is the verdict cache's key."""
    witnesses = tuple(witnesses)
    roots = [*assertions, *(t for _, t in witnesses)]
    consts: dict[str, str] = {}
    funs: dict[str, tuple[tuple[str, ...], str]] = {}
    uses: dict[int, int] = {}
    order: list[Term] = []
    seen: set[int] = set()
    for root in roots:
        stack: list[tuple[Term, bool]] = [(root, False)]
        while stack:
            t, done = stack.pop()
            if done:
                order.append(t)
                continue
            uses[id(t)] = uses.get(id(t), 0) + 1
            if id(t) in seen:
                continue
            seen.add(id(t))
            if t.head == "const":
                consts[t.value] = t.sort
            elif t.head == "app":
                sig = (tuple(a.sort for a in t.args), t.sort)
                old = funs.setdefault(t.value, sig)
                assert old == sig, f"function {t.value} used with two signatures"
            stack.append((t, True))
            for a in reversed(t.args):
                stack.append((a, False))
    names: dict[int, str] = {}
    lines = []
    if any(t.sort == TILE for t in order) or any(s == TILE for s in consts.values()):
        lines.append("(declare-sort Tile 0)")
    for name in sorted(funs):
        args, sort = funs[name]
        lines.append(f"(declare-fun {quote(name)} ({' '.join(args)}) {sort})")
    for name in sorted(consts):
        lines.append(f"(declare-const {quote(name)} {consts[name]})")
    for t in order:
        if uses.get(id(t), 0) > 1 and t.args and _size(t) > 2:
            name = quote(f"t!{len(names)}")
            lines.append(f"(define-fun {name} () {t.sort} {render_term(t, names)})")
            names[id(t)] = name
    for a in assertions:
        lines.append(f"(assert {render_term(a, names)})")
    for wname, t in witnesses:
        lines.append(f"(declare-const {quote('w!' + wname)} {t.sort})")
        lines.append(f"(assert (= {quote('w!' + wname)} {render_term(t, names)}))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"


def _size(t: Term, limit: int = 3) -> int:
    n, stack = 0, [t]
    while stack and n < limit:
        x = stack.pop()
        n += 1
        stack.extend(x.args)
    return n


# ---------------------------------------------------------------------------------------------- IR expressions


MARK = "!"
"""Prefix of internal constants (the step index, decode markers); never a user name."""


@dataclass
class Symbols:
    """The free symbols of one query side: user names (display names) for parameters, runtime scalars
    and context loop variables, shared by the source and the lowered encoding of a site."""

    scalars: S.Scalars
    tag: str = ""
    """Which side of a query (`s`, `l`): names the functions that stand for unmodelled carries, so the
    source's and the lowering's are never identified with each other."""
    names: dict[str, str] = field(default_factory=dict)
    """SSA name -> symbol name."""
    approximations: list[str] = field(default_factory=list)
    free: dict[str, Term] = field(default_factory=dict)
    """Symbol name -> constant, for every free Int symbol used (nonnegative by assumption)."""
    offsets: dict[str, int] = field(default_factory=dict)
    """SSA name -> offset added to its symbol (`sites.AccSite.context_offsets`: a source loop variable
    seen from one clone of its replicated lowering)."""

    values: dict[str, int] = field(default_factory=dict)
    """SSA name -> the literal it stands for (`sites.AccSite.context_values`: a source loop variable seen
    from a copy the lowering made at a literal iteration)."""
    exprs: dict[str, Expr] = field(default_factory=dict)
    """SSA name -> the expression of this side's scalars it stands for (`sites.AccSite.context_exprs`: a
    source loop variable seen from a copy in a pipeline's run-time remainder)."""

    def symbol(self, ssa: str) -> Term:
        if ssa in self.values:
            return lit(self.values[ssa])
        name = self.names.get(ssa)
        if name is None:
            name = display_name(ssa) or ssa
            self.names[ssa] = name
        t = const(name)
        self.free[name] = t
        offset = self.offsets.get(ssa)
        return add(t, lit(offset)) if offset else t

    def note(self, what: str) -> None:
        if what not in self.approximations:
            self.approximations.append(what)


class ExprEncoder:
    """IR expressions as terms, in one scope: `loop_vars` values the site's loop variables; scalar
    definitions are inlined (`k0 = kb * 256`), runtime reads inside the iteration space become
    `read.<tensor>(indices)`, other names are free symbols named as the user wrote them."""

    def __init__(self, symbols: Symbols, loop_vars: Mapping[str, Term] | None = None,
                 iterations: Mapping[str, Term] | None = None) -> None:
        self.symbols = symbols
        self.loop_vars = dict(loop_vars or {})
        self.iterations = dict(iterations or {})
        """The iteration index (0, 1, ...) of a loop variable, where the decoding knows it."""
        self.memo: dict[str, Term] = {}
        self.functional_reads = False
        """Every runtime read is `read.<tensor>(indices)` and every call of scalars `fn.<op>(args)`, also
        outside the iteration space (`functional`)."""

    def functional(self) -> ExprEncoder:
        """This scope with every runtime read and every scalar call a function of its operands: where a
        pipeline clone re-reads a value under a name of its own (`page_1 = pl.read(table, [p + 1])`), both
        sides then read one value at one index, whatever the names (a read is a function of the tensor's
        contents, which a kernel's own index tables keep). Sound for proofs (equal operands, equal values),
        but two spellings of one function (an op the lowering rewrites) are two functions here, so a model
        is no refutation: noted as an approximation of the side."""
        self.symbols.note("an offset read from a tensor at run time is compared as a function of the read's "
                          "indices")
        inner = ExprEncoder(self.symbols, self.loop_vars, self.iterations)
        inner.functional_reads = True
        return inner

    def bind(self, name: str, value: Term, iteration: Term | None = None) -> ExprEncoder:
        """This scope with one more loop variable (and its iteration index, when known)."""
        inner = ExprEncoder(self.symbols, self.loop_vars, self.iterations)
        inner.functional_reads = self.functional_reads
        inner.loop_vars[name] = value
        if iteration is not None:
            inner.iterations[name] = iteration
        else:
            inner.iterations.pop(name, None)
        return inner

    def int_(self, expr: Expr) -> Term:
        t = self.term(expr)
        return ite(t, ONE, ZERO) if t.sort == BOOL else t

    def bool_(self, expr: Expr) -> Term:
        t = self.term(expr)
        return t if t.sort == BOOL else ne(t, ZERO)

    def term(self, expr: Expr) -> Term:
        if isinstance(expr, Const):
            if isinstance(expr.value, bool):
                return lit(expr.value)
            if isinstance(expr.value, int):
                return lit(expr.value)
            return self._opaque(expr, "a non-integer literal")
        v = var_like(expr)
        if v is not None:
            return self.name(v.name)
        if isinstance(expr, BinOp):
            a, b = self.int_(expr.lhs), self.int_(expr.rhs)
            op = expr.op
            if op == "+":
                return add(a, b)
            if op == "-":
                return sub(a, b)
            if op == "*":
                return mul(a, b)
            if op == "//":
                return floordiv(a, b)
            if op == "%":
                return floormod(a, b)
            if op == "min":
                return minimum(a, b)
            if op == "max":
                return maximum(a, b)
            return self._opaque(expr, f"the operator `{op}`")
        if isinstance(expr, UnaryOp):
            if expr.op == "not":
                return not_(self.bool_(expr.operand))
            return neg(self.int_(expr.operand))
        if isinstance(expr, Compare):
            a, b = self.term(expr.lhs), self.term(expr.rhs)
            if a.sort != b.sort:
                a = ite(a, ONE, ZERO) if a.sort == BOOL else a
                b = ite(b, ONE, ZERO) if b.sort == BOOL else b
            return {"==": eq, "!=": ne, "<": lt, "<=": le, ">": gt, ">=": ge}[expr.op](a, b)
        if isinstance(expr, BoolOp):
            parts = [self.bool_(e) for e in expr.operands]
            return and_(*parts) if expr.op == "and" else or_(*parts)
        if isinstance(expr, Call):
            return self._call(expr, None)
        return self._opaque(expr, f"`{type(expr).__name__}`")

    def name(self, ssa: str) -> Term:
        if ssa in self.loop_vars:
            return self.loop_vars[ssa]
        if ssa in self.memo:
            return self.memo[ssa]
        scalars = self.symbols.scalars
        definition = scalars.defs.get(ssa)
        if ssa in scalars.carries:
            self.memo[ssa] = const(MARK + "cycle." + ssa)
            t = self._carry(ssa, scalars.carries[ssa])
        elif ssa in scalars.phis:
            self.memo[ssa] = const(MARK + "cycle." + ssa)
            t = self._phi(ssa, scalars.phis[ssa])
        elif definition is None and ssa in self.symbols.exprs:
            self.memo[ssa] = const(MARK + "cycle." + ssa)
            t = self.int_(self.symbols.exprs[ssa])
        elif definition is None and self.functional_reads and ssa in scalars.casts:
            t = self._call(scalars.casts[ssa], ssa)
        elif definition is None:
            t = self.symbols.symbol(ssa)
        elif isinstance(definition, Call):
            t = self._call(definition, ssa)
        else:
            self.memo[ssa] = const(MARK + "cycle." + ssa)  # a cycle (never in SSA) stays unknown
            t = self.term(definition)
        self.memo[ssa] = t
        return t

    def _carry(self, ssa: str, carry: S.Carry) -> Term:
        """A scalar loop carry (`sites.Carry`): `init + i * delta` in iteration `i` (after the loop,
        `init + trips * delta`) when each iteration yields `arg + delta` with `delta` loop-invariant.
        Anything else is a function of the loop variables in scope, named for this side only, and an
        approximation (a model that uses it refutes nothing)."""
        start, stop, step = self.int_(carry.start), self.int_(carry.stop), self.int_(carry.step)
        delta = self._carry_delta(carry)
        init = self.int_(carry.init)
        if delta is not None and carry.after:
            return add(init, mul(trip_count(start, stop, step), delta))
        i = None
        if not carry.after:
            i = self.iterations.get(carry.loop_var)
            if i is None:
                i = floordiv(sub(self.name(carry.loop_var), start), step)
        if delta is not None:
            assert i is not None  # an `after` carry with a delta returned above
            return add(init, mul(i, delta))
        self.symbols.note(f"the loop-carried scalar `{display_name(ssa)}` (line {carry.span.line}) is not "
                          "affine in the iteration")
        key = f"carry.{self.symbols.tag}.{ssa}"
        if carry.after or not self.loop_vars:
            opaque = const(key)  # one point of the iteration space: a constant of the query
        else:
            opaque = app(key, tuple(self.loop_vars[k] for k in sorted(self.loop_vars)), INT)
        return opaque if i is None else ite(eq(i, ZERO), init, opaque)  # the first iteration sees the init

    def _carry_delta(self, carry: S.Carry) -> Term | None:
        """`yielded - arg`, when it depends neither on the iter_arg nor on the loop's iteration."""
        if carry.yielded is None:
            return None
        arg, var = const(f"{MARK}carry.{carry.arg}"), const(f"{MARK}carry-var.{carry.loop_var}")
        inner = self.bind(carry.loop_var, var).bind(carry.arg, arg)
        delta = linear_sub(inner.int_(carry.yielded), arg)
        used = consts_in(delta)
        if arg.value in used or var.value in used or any(n.startswith(MARK + "cycle.") for n in used):
            return None
        return delta

    def _phi(self, ssa: str, phi: S.ScalarPhi) -> Term:
        """A scalar an `if` yields: `ite(cond, then, else)`."""
        if phi.then is None or phi.orelse is None:
            return self._opaque(Var(ssa), f"the if-yielded scalar `{display_name(ssa)}`")
        a, b = self.term(phi.then), self.term(phi.orelse)
        if a.sort != b.sort:
            a = ite(a, ONE, ZERO) if a.sort == BOOL else a
            b = ite(b, ONE, ZERO) if b.sort == BOOL else b
        return ite(self.bool_(phi.cond), a, b)

    def _call(self, call: Call, ssa: str | None) -> Term:
        """A scalar produced by a call: a runtime read is a function of its indices; where the indices do
        not depend on the iteration it is the symbol the user named (`k_start`)."""
        if call.op in ops.SCALAR_READS and call.args:
            tensor = var_like(call.args[0])
            index_exprs = call.args[1].items if len(call.args) > 1 and isinstance(call.args[1], ir.ListExpr) else call.args[1:]
            indices = [self.int_(e) for e in index_exprs]
            if ssa is not None and not any(_iterates(i) for i in indices) and not (self.functional_reads and indices):
                return self.symbols.symbol(ssa)
            base = display_name(tensor.name) if tensor is not None else "tensor"
            return app(f"read.{base}", indices, INT) if indices else self.symbols.symbol(ssa or base)
        if call.op in ("tensor.dim", "tile.dim") and len(call.args) >= 2:
            tensor, axis = var_like(call.args[0]), ops.const_int(call.args[1])
            if tensor is not None and axis is not None and tensor.name in self.symbols.scalars.tensors:
                # a parameter's extent is one value for the run, inside a loop as outside it, and one
                # symbol on both sides whatever name a (cloned) definition gives it
                return self.symbols.symbol(f"{display_name(tensor.name)}.dim{axis}")
        args = [a for a in call.args if not isinstance(a, ir.Sym)]
        if self.functional_reads:
            # a dtype or mode argument (`pl.cast(v, pl.INDEX)`) is part of the op, not an operand
            operands = [a for a in args if isinstance(a, Call) or self._scalar_operand(a)]
            if operands and all(isinstance(a, (Const, ir.Sym)) for a in args if not any(a is o for o in operands)):
                return app(f"fn.{call.op}", [self.int_(a) for a in operands], INT)
        if all(self._scalar_operand(a) for a in args):
            terms = [self.int_(a) for a in args]
            if ssa is not None and not any(_iterates(t) for t in terms):
                return self.symbols.symbol(ssa)
            return app(f"fn.{call.op}", terms, INT)
        if ssa is not None and not self.loop_vars:
            return self.symbols.symbol(ssa)
        return self._opaque(call, f"`{call.op}`")

    def _scalar_operand(self, expr: Expr) -> bool:
        """*expr* is an index expression over scalars (so a call of it is a function of them)."""
        for e in ir.walk_exprs(expr):
            v = var_like(e)
            scalars = self.symbols.scalars
            if v is not None and not (v.name in self.loop_vars or v.name in scalars.defs or v.name in scalars.params
                                      or v.name in scalars.carries or v.name in scalars.phis):
                return False
            if isinstance(e, (Call, ir.Sym)) or (isinstance(e, Const) and isinstance(e.value, (str, float))):
                return False
        return True

    def _opaque(self, expr: Expr, what: str) -> Term:
        """An expression we do not model: a function of the loop variables in scope (deterministic, so
        sound for proofs); a model that uses it is only an approximation."""
        self.symbols.note(f"{what} is not modelled")
        # the loop variables are part of the name: the same expression under other loops is another function
        # (of other arguments), never one function used with two signatures
        scope = ",".join(sorted(self.loop_vars))
        key = "opaque." + hashlib.sha1(f"{expr!r}|{scope}".encode()).hexdigest()[:10]
        return app(key, tuple(self.loop_vars[k] for k in sorted(self.loop_vars)), INT) if self.loop_vars \
            else const(MARK + key)


def _iterates(t: Term) -> bool:
    """*t* depends on the step index (a decoded loop variable)."""
    return any(name.startswith(MARK) for name in consts_in(t))


# ---------------------------------------------------------------------------------------------- chains


@dataclass(frozen=True)
class KBlock:
    """The K block one operand of a step reads: `[offset, offset + width)` of dimension `dim` of `root`,
    whose extent there is `extent`."""

    operand: str
    """`lhs` or `rhs`."""
    root: str
    dim: int
    offset: Term
    width: Term
    extent: int | None
    """None when the root's K dimension is not a literal (a `pl.dynamic` tensor)."""
    plane: tuple[Term, ...] = ()
    """The offsets in the root's other dimensions: blocks of one reduction in a blocked layout (a 4-D
    `[kb, nb, m, k]` tensor) lie on different planes and are not adjacent along `dim`."""
    out_offset: Term | None = None
    """The offset along the operand's output axis (the left operand's M, the right one's N): one output
    tile's reduction keeps it."""
    instance: tuple[Term, ...] = ()
    """Which result of the op computing `root` the block is of, when the root is computed in the kernel
    (the blocks the op's own operands read, `sites.Operand.root_args`): empty for a GM tensor or buffer.
    Blocks of two instances are blocks of two different tensors."""

    @property
    def computed(self) -> bool:
        """The root is computed in the kernel from blocks that may differ from step to step (an op inside
        the K loop): its blocks are not blocks of one tensor unless every step reads one instance."""
        return any(not t.is_lit for t in self.instance)

    @property
    def end(self) -> Term:
        return add(self.offset, self.width)


@dataclass(frozen=True)
class StepTemplate:
    """One MAD of a site model, decoded from the step index: `at` holds exactly at its steps."""

    index: int
    mad: S.Mad
    at: Term
    reset: Term
    bias: Term
    mm: Term
    bias_row: Term | None
    loop_values: tuple[tuple[str, Term], ...]
    """The user's loop variables at this step (display name, value), outermost first."""
    guards: tuple[tuple[S.Branch, bool], ...]
    """The enclosing branches on the path to this MAD and the arm taken."""
    sub_block: Term | None
    """Which L0 block of a refined source MAD (`sites.Mad.sub_blocks` > 1)."""
    approximate: bool
    """An operand could not be traced: `mm` / the bias row is a term of the step index alone, which
    identifies no block (PV105 and PV106 never prove anything that rests on it: `untraced` says why)."""
    copy: tuple[int, int] | None = None
    """(j, F): this MAD is copy j of F of one source op in its loop body (pipeline clones), else None."""
    k_blocks: tuple[KBlock, ...] = ()
    """The K block each operand traced to a GM tensor or a buffer of the kernel reads (an operand computed
    by an op we do not model has none)."""
    untraced: tuple[tuple[str, str], ...] = ()
    """(operand, why) for each operand (`lhs`, `rhs`, `bias`) whose block is not identified, in the
    source's words."""

    def value(self, prev: Term) -> Term:
        """The accumulator after this step, given the value before it."""
        fresh = app("addbias", (self.mm, self.bias_row), TILE) if self.bias_row is not None else self.mm
        return ite(self.reset, ite(self.bias, fresh, self.mm), app("add", (prev, self.mm), TILE))


@dataclass(frozen=True)
class EventTemplate:
    """A create or a drain of a site model: `at` holds when it lies right before step `n`."""

    item: S.Create | S.Drain
    at: Term
    loop_values: tuple[tuple[str, Term], ...]


UNROLLED_EVENTS = 64
"""The largest literal trip count of a MAD-free loop whose iterations are encoded one by one (each item of
it once per iteration); past it, or with a symbolic count, the iteration is a free constant (an
approximation, never a refutation)."""


class ChainEncoding:
    """A site's iteration space as terms over the step index `n` (module docstring)."""

    def __init__(self, site: S.AccSite, n: Term, symbols: Symbols, side: str) -> None:
        self.site = site
        self._loop_vars = frozenset([*(c.var for c in site.context if isinstance(c, S.ContextLoop)),
                                     *(i.var for i in S.walk_items(site.body) if isinstance(i, S.Loop))])
        # the user's names of those variables: a loop's term ranging over one of them clashes
        self._loop_names = frozenset(display_name(v) for v in self._loop_vars)
        self.n = n
        self.symbols = symbols
        self.side = side
        self.steps: list[StepTemplate] = []
        self.creates: list[EventTemplate] = []
        self.drains: list[EventTemplate] = []
        self.assumptions: list[Term] = []
        self.unsupported = site.unsupported
        self.approximations: list[str] = []
        self.unknown_iterations: list[tuple[Term, Term]] = []
        """(iteration, trip count) of each MAD-free loop holding a create or drain: the iteration at
        which it runs is a free constant (an approximation)."""
        self._counts: dict[tuple, Term] = {}
        top = ExprEncoder(symbols)
        self._context(top)
        if not self.unsupported:
            try:
                self.total = self._count(site.body, top)
                self._decode(site.body, n, top)
            except S.Unsupported as error:
                self.unsupported = str(error)
        if self.unsupported:
            self.total = ZERO
            self.steps, self.creates, self.drains = [], [], []

    # -- context

    def _context(self, enc: ExprEncoder) -> None:
        for ctx in self.site.context:
            if isinstance(ctx, S.ContextLoop):
                v = enc.name(ctx.var)
                start, stop, step = enc.int_(ctx.start), enc.int_(ctx.stop), enc.int_(ctx.step)
                if step.head == "int" and step.value > 0:
                    self.assumptions += [le(start, v), lt(v, stop), eq(floormod(sub(v, start), step), ZERO)]
                elif step.head == "int" and step.value < 0:
                    self.assumptions += [le(v, start), lt(stop, v)]
            else:
                c = enc.bool_(ctx.cond)
                self.assumptions.append(c if ctx.holds else not_(c))

    # -- counts

    def trip(self, loop: S.Loop, enc: ExprEncoder) -> Term:
        """How many times *loop* runs: `max(0, ceil((stop - start) / step))`, Python's `range`."""
        start, stop, step = enc.int_(loop.start), enc.int_(loop.stop), enc.int_(loop.step)
        return trip_count(start, stop, step)

    def _count(self, body: tuple[S.Item, ...], enc: ExprEncoder) -> Term:
        """Steps *body* runs (in *enc*'s scope, where the loop variables of the site are markers)."""
        total = ZERO
        for item in body:
            total = add(total, self._item_count(item, enc))
        return total

    def _item_count(self, item: S.Item, enc: ExprEncoder) -> Term:
        if isinstance(item, S.Mad):
            return lit(item.sub_blocks)
        if not isinstance(item, (S.Loop, S.Branch)):
            return ZERO
        # memoised per scope: every leaf's decoding counts the items before it again
        key = (id(item), tuple(sorted(enc.loop_vars.items(), key=lambda kv: kv[0])))
        found = self._counts.get(key)
        if found is None:
            found = self._counts[key] = self._item_count_of(item, enc)
        return found

    def _item_count_of(self, item: S.Item, enc: ExprEncoder) -> Term:
        if isinstance(item, S.Loop):
            inner = enc.bind(item.var, const(f"{MARK}var.{item.var}"))
            per = self._count(item.body, inner)
            if _iterates(per):
                raise S.Unsupported(f"the number of MADs per iteration of `{display_name(item.var)}` (line "
                                    f"{item.span.line}) depends on the iteration")
            trips = self.trip(item, enc)
            return mul(trips, per)
        if isinstance(item, S.Branch):
            return ite(enc.bool_(item.cond), self._count(item.then, enc), self._count(item.orelse, enc))
        return ZERO

    # -- decode

    def _decode(self, body: tuple[S.Item, ...], n: Term, top: ExprEncoder) -> None:
        """Templates for every MAD, create and drain of the site, each decoded from *n* on its own."""
        for path in _leaf_paths(body, ()):
            self._leaf(path, n, top)

    def _leaf(self, path: tuple[tuple[tuple[S.Item, ...], int, bool], ...], n: Term, top: ExprEncoder) -> None:
        """Decode one leaf: at each level, the loops on its path divide the index by their per-iteration
        count after removing the leaf's first position inside the body (module docstring)."""
        self._descend(path, 0, n, top, (), (), ())

    def _descend(self, path: tuple[tuple[tuple[S.Item, ...], int, bool], ...], level: int, m: Term,
                 enc: ExprEncoder, guards: tuple[Term, ...], values: tuple[tuple[str, Term], ...],
                 branches: tuple[tuple[S.Branch, bool], ...]) -> None:
        """Level *level* of `_leaf`'s walk down *path*; *m* is the step index relative to this level's
        block. A MAD-free loop of a literal trip count is walked once per iteration (its items all sit
        at one step position, once in each iteration), so no iteration is left free."""
        block, index, arm = path[level]
        item = block[index]
        m = sub(m, self._count(block[:index], enc))
        if level == len(path) - 1:
            leaf = path[-1][0][path[-1][1]]
            self._emit(item, m, enc, list(guards), values, branches, _copy(path) if isinstance(leaf, S.Mad) else None)
            return
        if isinstance(item, S.Branch):
            c = enc.bool_(item.cond)
            self._descend(path, level + 1, m, enc, (*guards, c if arm else not_(c)), values,
                          (*branches, (item, arm)))
            return
        assert isinstance(item, S.Loop)
        leaf = path[-1][0][path[-1][1]]
        marker = enc.bind(item.var, const(f"{MARK}var.{item.var}"))
        per = self._count(item.body, marker)
        trips = self.trip(item, enc)
        label = S.var_label(item.var)
        if per.head == "int" and per.value == 0 and trips.head == "int" and trips.value <= UNROLLED_EVENTS:
            for j in range(trips.value):
                value = add(enc.int_(item.start), mul(lit(j), enc.int_(item.step)))
                self._descend(path, level + 1, m, enc.bind(item.var, value, lit(j)), guards,
                              (*values, (label, value)), branches)
            return
        lo = self._first_position(path[level + 1:], marker)
        if per.head == "int" and per.value == 0:
            # a loop without MADs whose trip count is symbolic (or past UNROLLED_EVENTS): all its items sit
            # at one position, in an unknown iteration
            i = const(f"{MARK}iter.{item.var}.{len(self.drains) + len(self.creates)}")
            self.unknown_iterations.append((i, trips))
            self.approximations.append(f"the iteration of `{display_name(item.var)}` (line {item.span.line}) "
                                       "at which an item of a MAD-free loop runs")
        elif per.head == "int" and lo.head == "int" and (isinstance(leaf, S.Mad) or level + 2 == len(path)) \
                and 0 <= lo.value <= per.value:
            # the leaves of a body share one division where their positions in an iteration lie in
            # [0, per): a MAD's always do, and so does a create or drain of the body itself before its
            # end; there `(m - lo) div per` is `m div per` wherever the leaf runs. A create or drain at
            # the end of the body (lo = per) runs in the iteration before.
            i = floordiv(m, per)
            if lo.value == per.value:
                i = sub(i, ONE)
        else:
            i = _div_cases(sub(m, lo), per)
        value = add(enc.int_(item.start), mul(i, enc.int_(item.step)))
        self._descend(path, level + 1, sub(m, mul(i, per)), enc.bind(item.var, value, i),
                      (*guards, le(ZERO, i), lt(i, trips)), (*values, (label, value)), branches)

    def _first_position(self, rest: tuple[tuple[tuple[S.Item, ...], int, bool], ...], enc: ExprEncoder) -> Term:
        """The leaf's smallest position relative to the body that holds `rest[0]` (all inner loops in
        their first iteration). Inside a loop every count is loop-invariant, so markers do not matter."""
        total = ZERO
        for block, index, _ in rest:
            total = add(total, self._count(block[:index], enc))
        return total

    def _emit(self, item: S.Item, m: Term, enc: ExprEncoder, guards: list[Term],
              values: tuple[tuple[str, Term], ...], branches: tuple[tuple[S.Branch, bool], ...],
              copy: tuple[int, int] | None = None) -> None:
        if isinstance(item, S.Mad):
            self._mad(item, m, enc, guards, values, branches, copy)
        elif isinstance(item, S.Create):
            self.creates.append(EventTemplate(item, and_(*guards, eq(m, ZERO)), values))
        elif isinstance(item, S.Drain):
            self.drains.append(EventTemplate(item, and_(*guards, eq(m, ZERO)), values))

    def _mad(self, mad: S.Mad, m: Term, enc: ExprEncoder, guards: list[Term],
             values: tuple[tuple[str, Term], ...], branches: tuple[tuple[S.Branch, bool], ...],
             copy: tuple[int, int] | None = None) -> None:
        sub_block: Term | None = None
        if mad.sub_blocks > 1:
            sub_block = m
            at = and_(*guards, le(ZERO, m), lt(m, lit(mad.sub_blocks)))
        else:
            at = and_(*guards, eq(m, ZERO))
        reset = TRUE if mad.kind in ("fresh", "bias") else (enc.bool_(mad.init_cond) if mad.init_cond is not None else FALSE)
        bias = TRUE if mad.kind == "bias" else FALSE
        if sub_block is not None:
            first = eq(sub_block, ZERO)
            reset, bias = and_(reset, first), and_(bias, first)
        mm, exact, k_blocks, untraced = self._mm(mad, enc, sub_block)
        if mad.blocks_unknown:
            note = (f"the K width of the MAD at line {mad.span.line} is not known, so the L0 blocks its lowering "
                    "splits it into are not counted")
            if note not in self.approximations:
                self.approximations.append(note)
        bias_row = None
        if mad.kind == "bias":
            row = mad.bias
            if row is None or any(e is None for e in row.extents) \
                    or set(row.bound) & self._loop_names:
                exact = False
                bias_row = app("bias?", (self.n,), TILE)
                untraced = (*untraced, ("bias", dict(mad.why).get("bias", "it is not traced to a GM tensor")
                                        if row is None else "its extent is not a literal"))
            else:
                bias_row = app(f"bias[{row.root}]", [*(enc.int_(a) for a in row.root_args),
                                                      *(enc.int_(o) for o in row.offsets),
                                                      *(lit(e) for e in row.extents if e is not None)], TILE)
        self.steps.append(StepTemplate(len(self.steps), mad, at, reset, bias, mm, bias_row, values, branches,
                                       sub_block, not exact, copy, k_blocks, untraced))

    def _mm(self, mad: S.Mad, enc: ExprEncoder, sub_block: Term | None
            ) -> tuple[Term, bool, tuple[KBlock, ...], tuple[tuple[str, str], ...]]:
        """The block product of *mad* (of L0 block *sub_block* of it, for a refined source MAD), whether
        its operands are traced, the K block of each operand read from a root of known shape, and why
        each operand that is not traced is not."""
        lk, rk = mad.lhs_k_root, mad.rhs_k_root
        args: list[Term] = []
        blocks: list[KBlock] = []
        why = dict(mad.why)
        unknown = False
        for side, operand, kdim in (("lhs", mad.lhs, lk), ("rhs", mad.rhs, rk)):
            if operand is None:
                continue
            if kdim is None:
                why[side] = f"`{operand.root}` is read as a block of rank {len(operand.dims)}, which has no K axis"
                continue
            clash = sorted(set(operand.bound) & self._loop_names)
            if operand.bound:
                # two spellings of one loop (a lowering that orders its carries or its body's ops otherwise)
                # are two terms here: sound for proofs, but a model is no refutation
                enc.symbols.note("a value a loop computes is compared as a term of the loop (its range, inits and "
                                 "yielded values)")
            if clash:
                # the term ranges over a loop variable of the user's name that this chain's own loops also
                # use: one symbol would stand for two loops' variables
                why[side] = (f"`{operand.root}` ranges over a loop variable named `{clash[0]}`, a name this "
                             "chain's own loops use")
                unknown = True
                continue
            if any(e is None for e in operand.extents) or kdim in operand.narrowed:
                # a block of a root whose extent is not a literal (the whole of a `pl.dynamic` tensor), or
                # one whose valid region along K a `set_validshape` may have made smaller than the block
                why[side] = (f"its valid extent along K in `{operand.root}` is narrowed by `set_validshape`"
                             if kdim in operand.narrowed else f"its block of `{operand.root}` has an extent that is "
                             "not a literal")
                unknown = True
                continue
            # a block of a reshaped, dynamic or loop-yielded tensor, or any block in a copy of a loop's body
            # (`S.AccSite.copy`), at an offset read from a tensor: a pipeline clone renames the read
            # (`idx_blk_id_1`), so the read is encoded as a function of its indices on both sides
            # (`ExprEncoder.functional`), never as the name the clone gave it
            at = enc.functional() if (_term_root(operand) or self.site.copy) and S.reads_tensors(
                enc.symbols.scalars, (*operand.offsets, *operand.root_args), self._loop_vars) else enc
            offsets, extents = _block_terms(operand, kdim, mad, at, sub_block)
            instance = tuple(at.int_(a) for a in operand.root_args)
            args += [*instance, *offsets, *extents]
            out_axis = (-1 if mad.a_trans else -2) if side == "lhs" else (-2 if mad.b_trans else -1)
            block, bk = operand, kdim
            through = operand.elementwise_of
            if through is not None and len(through.dims) == len(operand.dims) and len(operand.dims) >= 2:
                # a cast of a block (`pl.cast(x[:, k0 : k0 + TK])`) holds that block's elements, one for one:
                # its K block is the block's (the product term keeps the cast's own root, PV105 compares it)
                tk = through.dims[operand.dims.index(kdim)]
                if all(e is not None for e in through.extents) and tk not in through.narrowed:
                    at = enc.functional() if (_term_root(through) or self.site.copy) and S.reads_tensors(
                        enc.symbols.scalars, (*through.offsets, *through.root_args), self._loop_vars) else enc
                    block, bk = through, tk
                    offsets, extents = _block_terms(through, tk, mad, at, sub_block)
                    instance = tuple(at.int_(a) for a in through.root_args)
            if len(block.root_shape) > bk:
                out_dim = block.dims[out_axis] if len(block.dims) >= 2 else None
                blocks.append(KBlock(side, block.root, bk, offsets[bk], extents[bk],
                                     block.root_shape[bk], tuple(o for d, o in enumerate(offsets) if d != bk),
                                     offsets[out_dim] if out_dim is not None and out_dim != bk else None,
                                     instance))
        untraced = tuple((o, w) for o, w in why.items() if o != "bias")
        if mad.lhs is None or mad.rhs is None or lk is None or rk is None or unknown:
            # an untraced operand's block is not identified: `mm?(n)` is a term of the step index alone, on
            # which no obligation rests a proof (PV105 is inconclusive, PV106 checks only what needs no block)
            return app("mm?", (self.n,), TILE), False, tuple(blocks), untraced
        name = f"mm[{mad.lhs.root}/{lk}/{len(mad.lhs.root_args)},{mad.rhs.root}/{rk}/{len(mad.rhs.root_args)}]"
        return app(name, args, TILE), True, tuple(blocks), untraced

    # -- functions of n

    def reset_at(self) -> Term:
        """The step at `n` initialises the accumulator."""
        return or_(*(and_(s.at, s.reset) for s in self.steps))

    def bias_at(self) -> Term:
        """The step at `n` adds the bias row."""
        return or_(*(and_(s.at, s.bias) for s in self.steps))

    def drain_at(self) -> Term:
        """A drain lies between step `n - 1` and step `n`."""
        return or_(*(d.at for d in self.drains))

    def create_at(self) -> Term:
        """A create lies between step `n - 1` and step `n`."""
        return or_(*(c.at for c in self.creates))

    def value_at(self, prev: Term) -> Term:
        """The accumulator after step `n`, given *prev* before it."""
        out = prev
        for s in reversed(self.steps):
            out = ite(s.at, s.value(prev), out)
        return out

    def template_at(self) -> Term:
        """Which step template runs at `n` (its index + 1; 0 when none)."""
        out = ZERO
        for s in reversed(self.steps):
            out = ite(s.at, lit(s.index + 1), out)
        return out


def _block_terms(operand: S.Operand, kdim: int, mad: S.Mad, enc: ExprEncoder,
                 sub_block: Term | None) -> tuple[list[Term], list[Term]]:
    """The offsets and extents of *operand*'s block in its root (every extent a literal), of L0 block
    *sub_block* along root dimension *kdim* for a refined source MAD."""
    offsets = [enc.int_(o) for o in operand.offsets]
    extents = [lit(e) for e in operand.extents if e is not None]
    if sub_block is not None and mad.sub_width:
        width, total = mad.sub_width, operand.extents[kdim]
        assert total is not None  # every extent is known here (the caller checks)
        offsets[kdim] = add(offsets[kdim], mul(sub_block, lit(width)))
        last = total - (mad.sub_blocks - 1) * width
        extents[kdim] = lit(width) if last == width else ite(eq(sub_block, lit(mad.sub_blocks - 1)), lit(last), lit(width))
    return offsets, extents


def _term_root(operand: S.Operand) -> bool:
    """*operand* lies in a tensor the model names as a term (a reshape that merges dimensions, a tensor a
    loop or `if` yields, a value computed from a loop's term: its reads are per iteration, so functions of
    their indices, never one symbol by name) or in one of `pl.dynamic` extent."""
    return operand.root.startswith("reshape@") or "#" in operand.root or None in operand.root_shape \
        or bool(operand.bound)


def trip_count(start: Term, stop: Term, step: Term) -> Term:
    """How many values `range(start, stop, step)` has."""
    if step.head == "int":
        s = step.value
        if s > 0:
            span = sub(stop, start)
            return ite(gt(span, ZERO), floordiv(add(span, lit(s - 1)), step), ZERO)
        if s < 0:
            span = sub(start, stop)
            return ite(gt(span, ZERO), floordiv(add(span, lit(-s - 1)), neg(step)), ZERO)
        return ZERO
    up = ite(gt(sub(stop, start), ZERO), floordiv(add(sub(stop, start), sub(step, ONE)), step), ZERO)
    down = ite(gt(sub(start, stop), ZERO), floordiv(add(sub(start, stop), sub(neg(step), ONE)), neg(step)), ZERO)
    return ite(gt(step, ZERO), up, ite(lt(step, ZERO), down, ZERO))


def _div_cases(a: Term, per: Term) -> Term:
    """`a // per` for a symbolic per-iteration count: the cases of an `ite` count are split so each
    division is by a literal where possible."""
    if per.head == "ite":
        return ite(per.args[0], _div_cases(a, per.args[1]), _div_cases(a, per.args[2]))
    if per.head == "int" and per.value == 0:
        return ZERO
    return floordiv(a, per)


def _copy(path: tuple) -> tuple[int, int] | None:
    """Which copy of its source op a MAD is in the innermost loop body holding it (pipeline clones
    keep their source op's span): (j, F) when F > 1, else None."""
    leaf = path[-1][0][path[-1][1]]
    for level in range(len(path) - 2, -1, -1):
        block, index, _ = path[level]
        if isinstance(block[index], S.Loop):
            body, inner = block[index].body, path[level + 1][1]
            holders = [i for i, item in enumerate(body)
                       if any(isinstance(x, S.Mad) and x.span == leaf.span for x in S.walk_items((item,)))]
            if len(holders) > 1 and inner in holders:
                return holders.index(inner) + 1, len(holders)
            return None
    return None


def _leaf_paths(body: tuple[S.Item, ...], prefix: tuple) -> list[tuple]:
    """Every MAD, create and drain of *body* with its path: `(block, index, arm)` per level, where
    *arm* says which arm of a branch the next level is in."""
    out: list[tuple] = []
    for index, item in enumerate(body):
        if isinstance(item, S.Loop):
            out += _leaf_paths(item.body, (*prefix, (body, index, True)))
        elif isinstance(item, S.Branch):
            out += _leaf_paths(item.then, (*prefix, (body, index, True)))
            out += _leaf_paths(item.orelse, (*prefix, (body, index, False)))
        else:
            out.append((*prefix, (body, index, True)))
    return out
