"""Queries the bounds of their own constants refute: proved by interval arithmetic, without a solver.

Owns: `refuted_by_box`. Input: the conjuncts of one query (`solver._Query`: its assumptions and its
violation). Output: True when no value of the query's constants satisfies them all, shown by intervals
alone; False when the intervals do not show it (the query goes to z3 as before: False is never a verdict).

Most window obligations (PV107) are of this kind: `0 <= kb < 5` assumed, `(or (< (* 128 kb) 0) (< 640 (+ (*
128 kb) 128)))` violated: `128 kb` lies in [0, 512], so neither side can hold. Each such query used to cost a
z3 check and, when a function's windows were all of this kind, a context and a solver of their own (about 2 ms:
`solver._solve_batch`).

How. The conjuncts that bound a constant (`(<= c e)`, `(< e c)`, `(= c e)` and their negations, `c` an Int
constant) give it an interval, `e`'s range under the intervals found so far (two passes, so a bound through
another constant's bound is found); then each conjunct is evaluated in three-valued logic over those intervals,
with interval arithmetic for `+`, `*`, `div` and `mod` by a positive literal (SMT-LIB's Euclidean division,
which is floor division there) and `ite` (the hull of its arms when the condition is undecided). An
uninterpreted application, a Bool constant and anything else is unknown (unbounded, or undecided). A conjunct
false over the whole box, or an empty interval, means no model: the intervals contain every model's values.
Sound by construction: every rule below over-approximates the values a term can take; nothing is ever
refuted here, only proved.
"""

from __future__ import annotations

from collections.abc import Iterable

from pypto_verify.smt import encode as E

Bound = int | None
"""A bound of an interval: None is unbounded (minus infinity for a low bound, plus infinity for a high one)."""
Range = tuple[Bound, Bound]
UNBOUNDED: Range = (None, None)
PASSES = 2
"""Rounds of bound propagation over the conjuncts (a constant bounded through another's bound needs two)."""


def refuted_by_box(conjuncts: Iterable[E.Term]) -> bool:
    """Whether intervals show that no values satisfy every one of *conjuncts* (module docstring)."""
    flat = _flatten(conjuncts)
    box: dict[str, Range] = {}
    for _ in range(PASSES):
        for atom, holds in flat:
            if not _narrow(atom, holds, box):
                return True  # a constant's interval is empty
    memo: dict[E.Term, Range] = {}  # the box is final: each term's range is computed once
    return any(_truth(atom, box, memo) is (not holds) for atom, holds in flat)


def _flatten(conjuncts: Iterable[E.Term]) -> list[tuple[E.Term, bool]]:
    """The atoms the conjunction asserts, each with the truth it asserts (`(not a)` asserts `a` false)."""
    out: list[tuple[E.Term, bool]] = []
    stack = [(t, True) for t in conjuncts]
    while stack:
        t, holds = stack.pop()
        if t.head == "not":
            stack.append((t.args[0], not holds))
        elif t.head == "and" and holds:
            stack.extend((a, True) for a in t.args)
        elif t.head == "or" and not holds:
            stack.extend((a, False) for a in t.args)
        else:
            out.append((t, holds))
    return out


def _narrow(atom: E.Term, holds: bool, box: dict[str, Range]) -> bool:
    """Tighten *box* by *atom* having truth *holds*, where one side is an Int constant; False when a constant's
    interval becomes empty."""
    head = atom.head
    if head not in ("<", "<=", "=") or atom.args[0].sort != E.INT:
        return True
    a, b = atom.args
    if head == "=":
        if not holds:
            return True  # a disequality bounds nothing
        return _within(a, *_range(b, box, {}), box) and _within(b, *_range(a, box, {}), box)
    strict = head == "<"
    if not holds:  # not (a < b) is b <= a; not (a <= b) is b < a
        a, b, strict = b, a, not strict
    # a < b (strict) or a <= b
    hi_b = _range(b, box, {})[1]
    lo_a = _range(a, box, {})[0]
    shift = 1 if strict else 0
    return _within(a, None, None if hi_b is None else hi_b - shift, box) and \
        _within(b, None if lo_a is None else lo_a + shift, None, box)


def _within(t: E.Term, lo: Bound, hi: Bound, box: dict[str, Range]) -> bool:
    """Intersect Int constant *t*'s interval in *box* with [lo, hi] (None: no bound on that side; anything but a
    constant is left as it is); False when the interval becomes empty."""
    if t.head != "const" or t.sort != E.INT or (lo is None and hi is None):
        return True
    old_lo, old_hi = box.get(t.value, UNBOUNDED)
    new_lo = old_lo if lo is None else lo if old_lo is None else max(old_lo, lo)
    new_hi = old_hi if hi is None else hi if old_hi is None else min(old_hi, hi)
    box[t.value] = (new_lo, new_hi)
    return new_lo is None or new_hi is None or new_lo <= new_hi


def _range(t: E.Term, box: dict[str, Range], memo: dict[E.Term, Range]) -> Range:
    """An interval holding every value Int term *t* takes over *box*."""
    found = memo.get(t)
    if found is not None:
        return found
    head = t.head
    out: Range
    if head == "int":
        out = (t.value, t.value)
    elif head == "const":
        out = box.get(t.value, UNBOUNDED) if t.sort == E.INT else UNBOUNDED
    elif head == "+":
        lo: Bound = 0
        hi: Bound = 0
        for a in t.args:
            alo, ahi = _range(a, box, memo)
            lo = None if lo is None or alo is None else lo + alo
            hi = None if hi is None or ahi is None else hi + ahi
        out = (lo, hi)
    elif head == "*":
        out = (1, 1)
        for a in t.args:
            out = _times(out, _range(a, box, memo))
    elif head == "div":
        out = _div(_range(t.args[0], box, memo), t.args[1])
    elif head == "mod":
        out = _mod(_range(t.args[0], box, memo), t.args[1])
    elif head == "ite":
        decided = _truth(t.args[0], box, memo)
        if decided is True:
            out = _range(t.args[1], box, memo)
        elif decided is False:
            out = _range(t.args[2], box, memo)
        else:
            (alo, ahi), (blo, bhi) = _range(t.args[1], box, memo), _range(t.args[2], box, memo)
            out = (None if alo is None or blo is None else min(alo, blo),
                   None if ahi is None or bhi is None else max(ahi, bhi))
    else:  # an uninterpreted application, or a head this module does not know: any value
        out = UNBOUNDED
    memo[t] = out
    return out


def _times(x: Range, y: Range) -> Range:
    """The product of two intervals (unbounded where a corner is)."""
    if x == (0, 0) or y == (0, 0):
        return (0, 0)
    if None in x or None in y:
        for (lo, hi), (c, d) in ((x, y), (y, x)):
            if c is not None and c == d:  # times a single value c
                if c > 0:
                    return (None if lo is None else lo * c, None if hi is None else hi * c)
                return (None if hi is None else hi * c, None if lo is None else lo * c)
        return UNBOUNDED
    assert x[0] is not None and x[1] is not None and y[0] is not None and y[1] is not None  # for mypy
    corners = (x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1])
    return (min(corners), max(corners))


def _div(x: Range, divisor: E.Term) -> Range:
    """`(div x d)` for a literal `d > 0`: floor division, monotone in x; anything else unbounded."""
    if divisor.head != "int" or divisor.value <= 0:
        return UNBOUNDED
    d = divisor.value
    return (None if x[0] is None else x[0] // d, None if x[1] is None else x[1] // d)


def _mod(x: Range, divisor: E.Term) -> Range:
    """`(mod x d)` for a literal `d != 0`: in [0, |d|), exact when x spans no multiple of |d|."""
    if divisor.head != "int" or divisor.value == 0:
        return UNBOUNDED
    d = abs(divisor.value)
    lo, hi = x
    if lo is not None and hi is not None and lo // d == hi // d:
        return (lo % d, hi % d)
    return (0, d - 1)


def _truth(t: E.Term, box: dict[str, Range], memo: dict[E.Term, Range]) -> bool | None:
    """The truth of Bool term *t* everywhere in *box*: True, False, or None (undecided)."""
    head = t.head
    if head == "bool":
        return bool(t.value)
    if head == "not":
        inner = _truth(t.args[0], box, memo)
        return None if inner is None else not inner
    if head in ("and", "or"):
        values = [_truth(a, box, memo) for a in t.args]
        stop = head == "or"  # the value that decides: true for `or`, false for `and`
        if stop in values:
            return stop
        return None if None in values else not stop
    if head == "ite":
        decided = _truth(t.args[0], box, memo)
        if decided is not None:
            return _truth(t.args[1] if decided else t.args[2], box, memo)
        a, b = _truth(t.args[1], box, memo), _truth(t.args[2], box, memo)
        return a if a is not None and a == b else None
    if head in ("<", "<=", "=") and t.args[0].sort == E.INT:
        (alo, ahi), (blo, bhi) = _range(t.args[0], box, memo), _range(t.args[1], box, memo)
        if head == "<":
            if ahi is not None and blo is not None and ahi < blo:
                return True
            if alo is not None and bhi is not None and alo >= bhi:
                return False
        elif head == "<=":
            if ahi is not None and blo is not None and ahi <= blo:
                return True
            if alo is not None and bhi is not None and alo > bhi:
                return False
        else:
            if alo is not None and alo == ahi == blo == bhi:
                return True
            if (ahi is not None and blo is not None and ahi < blo) or (alo is not None and bhi is not None and alo > bhi):
                return False
        return None
    return None  # a Bool constant or application, an equality of tiles: undecided
