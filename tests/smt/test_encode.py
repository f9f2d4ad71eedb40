"""The encoding: Python's floor division and modulo on possibly negative values, `range` trip counts,
folding, and deterministic SMT-LIB text (the cache key)."""

from __future__ import annotations

import itertools

import pytest

from pypto_verify.ir import BinOp, Compare, Const, Var

from pypto_verify.smt import encode as E
from pypto_verify.smt.sites import Scalars

z3 = pytest.importorskip("z3")


def _value(term: E.Term, **consts: int) -> int | bool:
    """*term* evaluated by z3 with its constants set to *consts*."""
    assertions = [E.eq(E.const(k), E.lit(v)) for k, v in consts.items()]
    text = E.render(assertions, [("r", term)])
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    assert solver.check() == z3.sat
    r = z3.Int("w!r") if term.sort == E.INT else z3.Bool("w!r")
    value = solver.model().eval(r, model_completion=True)
    return value.as_long() if term.sort == E.INT else z3.is_true(value)


VALUES = (-7, -6, -1, 0, 1, 5, 6, 7)
DIVISORS = (-3, -2, -1, 1, 2, 3)


@pytest.mark.parametrize("b", DIVISORS)
def test_floor_division_by_a_literal_matches_python(b):
    a = E.const("a")
    for x in VALUES:
        assert _value(E.floordiv(a, E.lit(b)), a=x) == x // b
        assert _value(E.floormod(a, E.lit(b)), a=x) == x % b


def test_floor_division_by_a_symbolic_divisor_matches_python():
    a, b = E.const("a"), E.const("b")
    q, r = E.floordiv(a, b), E.floormod(a, b)
    for x, y in itertools.product(VALUES, DIVISORS):
        assert _value(q, a=x, b=y) == x // y, (x, y)
        assert _value(r, a=x, b=y) == x % y, (x, y)


def test_ir_floor_division_is_encoded_with_python_semantics():
    enc = E.ExprEncoder(E.Symbols(Scalars()))
    term = enc.term(BinOp("//", Var("k"), Const(-4)))
    assert _value(term, k=9) == 9 // -4


@pytest.mark.parametrize("start,stop,step", [(0, 512, 128), (1, 4, 1), (3, 3, 1), (5, 2, 1), (0, 10, 3),
                                             (10, 0, -3), (0, 10, -1), (-4, 4, 3)])
def test_trip_count_is_the_length_of_range(start, stop, step):
    literal = E.trip_count(E.lit(start), E.lit(stop), E.lit(step))
    assert literal.head == "int" and literal.value == len(range(start, stop, step))
    symbolic = E.trip_count(E.const("s"), E.const("e"), E.const("d"))
    assert _value(symbolic, s=start, e=stop, d=step) == len(range(start, stop, step))


def test_terms_are_hash_consed_and_folded():
    k = E.const("k")
    assert E.add(k, E.lit(1)) is E.add(k, E.lit(1))
    assert E.ite(E.eq(k, E.ZERO), E.lit(4), E.lit(4)) is E.lit(4)
    assert E.add(E.mul(E.lit(2), E.lit(3)), E.lit(-6)) is E.ZERO
    assert E.and_(E.TRUE, E.eq(k, k)) is E.TRUE


def test_query_text_is_deterministic_and_names_shared_subterms():
    k = E.const("k")
    shared = E.add(E.mul(k, E.lit(3)), E.lit(1))
    a = E.render([E.lt(shared, E.lit(9)), E.gt(shared, E.ZERO)])
    b = E.render([E.lt(E.add(E.mul(E.const("k"), E.lit(3)), E.lit(1)), E.lit(9)), E.gt(shared, E.ZERO)])
    assert a == b
    assert "(define-fun |t!0| () Int" in a and a.endswith("(check-sat)\n")


def test_conditions_read_scalar_definitions_and_name_free_symbols_as_written():
    scalars = Scalars({"k0__ssa_v1": BinOp("*", Var("kb__idx_v0"), Const(256))}, frozenset({"k_base__ssa_v0"}))
    symbols = E.Symbols(scalars)
    enc = E.ExprEncoder(symbols, {"kb__idx_v0": E.const("!n")})
    term = enc.term(Compare("==", Var("k0__ssa_v1"), Var("k_base__ssa_v0")))
    assert set(symbols.free) == {"k_base"}
    assert E.render([term]).count("|k_base|") == 2  # declared once, used once


def test_literals_are_hash_consed_through_the_literal_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """`lit` keeps the literals it made: the same object `Term` gives, True apart from 1 and False apart from 0,
    and still the same object once the cache has been emptied (the term table keeps a live literal)."""
    one, true = E.lit(1), E.lit(True)
    assert one is E.ONE and true is E.TRUE and one is not true
    assert E.lit(0) is E.ZERO and E.lit(False) is E.FALSE and E.ZERO is not E.FALSE
    assert (one.head, one.value, one.sort) == ("int", 1, E.INT)
    assert (true.head, true.value, true.sort) == ("bool", True, E.BOOL)
    big = E.lit(2 ** 70)
    monkeypatch.setattr(E, "LITS_KEPT", 1)
    E._LITS.clear()
    assert E.lit(2 ** 70) is big and E.lit(7) is E.Term("int", (), 7, E.INT)
    assert len(E._LITS) == 1
