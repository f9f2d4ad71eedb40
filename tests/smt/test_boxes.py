"""`smt/boxes.py`: queries their constants' bounds refute, proved without a solver, and never one with a model."""

from __future__ import annotations

import itertools
import random

from pypto_verify.ir import NO_SPAN
from pypto_verify.rules import IN_BOUNDS
from pypto_verify.smt import encode as E
from pypto_verify.smt import solver
from pypto_verify.smt.boxes import refuted_by_box
from pypto_verify.smt.obligations import Obligation
from pypto_verify.smt.solver import Verdict

KB, NB = E.const("kb.box"), E.const("nb.box")


def _loop(var: E.Term, stop: int) -> tuple[E.Term, E.Term]:
    return E.le(E.ZERO, var), E.lt(var, E.lit(stop))


def _window(var: E.Term, step: int, extent: int) -> E.Term:
    """The violation PV107 poses for `t[var * step : var * step + step]` of a tensor of *extent*."""
    lo = E.mul(E.lit(step), var)
    return E.or_(E.lt(lo, E.ZERO), E.lt(E.lit(extent), E.add(lo, E.lit(step))))


def test_a_window_inside_its_tensor_for_every_iteration_is_refuted_by_the_loop_bounds():
    assert refuted_by_box((*_loop(KB, 5), _window(KB, 128, 640)))  # kb < 5: the last window ends at 640


def test_a_window_one_block_past_the_tensor_is_not():
    assert not refuted_by_box((*_loop(KB, 6), _window(KB, 128, 640)))  # kb = 5 ends at 768: a model exists
    assert not refuted_by_box((_window(KB, 128, 640),))  # kb unbounded: intervals show nothing


def test_bounds_through_another_constant_negations_ite_div_and_mod():
    n = E.const("n.box")
    # kb < nb, nb < 4: kb is at most 2, so 128 * kb + 128 <= 384
    assert refuted_by_box((E.le(E.ZERO, KB), E.lt(KB, NB), E.lt(NB, E.lit(4)),
                           E.lt(E.lit(384), E.add(E.mul(E.lit(128), KB), E.lit(128)))))
    # not (kb >= 3) is kb < 3; a disequality bounds nothing
    assert refuted_by_box((E.le(E.ZERO, KB), E.not_(E.le(E.lit(3), KB)), E.ne(KB, E.ONE),
                           E.lt(E.lit(2), KB)))
    # n in [0, 9]: (div n 4) in [0, 2], (mod n 4) in [0, 3], their sum under 6
    assert refuted_by_box((*_loop(n, 10), E.lt(E.lit(5), E.add(E.floordiv(n, E.lit(4)), E.floormod(n, E.lit(4))))))
    # an ite whose condition the box decides takes that arm
    assert refuted_by_box((*_loop(n, 4), E.eq(E.ite(E.lt(n, E.lit(8)), E.lit(1), E.lit(9)), E.lit(9))))
    # undecided condition: the hull of both arms, and 9 is in it
    assert not refuted_by_box((*_loop(n, 10), E.eq(E.ite(E.lt(n, E.lit(8)), E.lit(1), E.lit(9)), E.lit(9))))
    # a product by a negative literal turns the interval over, bounded or not
    assert refuted_by_box((*_loop(n, 4), E.lt(E.lit(0), E.mul(E.lit(-2), n))))
    assert refuted_by_box((E.le(E.lit(3), n), E.lt(E.lit(-6), E.mul(E.lit(-2), n))))  # n >= 3: -2n <= -6
    assert not refuted_by_box((E.le(E.lit(3), n), E.lt(E.mul(E.lit(-2), n), E.lit(-10))))  # n = 6 is a model


def test_uninterpreted_values_bool_constants_and_tile_equalities_are_never_decided():
    tile = E.app("mm.box", (KB,), E.TILE)
    other = E.app("mm.box", (NB,), E.TILE)
    assert not refuted_by_box((*_loop(KB, 4), E.not_(E.eq(tile, other))))
    assert not refuted_by_box((E.const("flag.box", E.BOOL), E.lt(E.app("f.box", (KB,), E.INT), E.ZERO)))


# ---------------------------------------------------------------------------------------------- soundness

NAMES = ("x.rand", "y.rand", "z.rand")


def _value(t: E.Term, env: dict[str, int]) -> int | bool:
    """*t*'s value under *env*, by SMT-LIB's semantics (Euclidean `div` / `mod`)."""
    head = t.head
    if head in ("int", "bool"):
        return t.value
    if head == "const":
        return env[t.value]
    args = [_value(a, env) for a in t.args]
    if head == "+":
        return sum(args)  # type: ignore[arg-type]
    if head == "*":
        return args[0] * args[1]  # type: ignore[operator]
    if head in ("div", "mod"):
        a, b = args
        r = a % abs(b)  # type: ignore[operator]
        return (a - r) // b if head == "div" else r  # type: ignore[operator]
    if head == "ite":
        return args[1] if args[0] else args[2]
    if head == "<":
        return args[0] < args[1]  # type: ignore[operator]
    if head == "<=":
        return args[0] <= args[1]  # type: ignore[operator]
    if head == "=":
        return args[0] == args[1]
    if head == "not":
        return not args[0]
    if head == "and":
        return all(args)
    if head == "or":
        return any(args)
    raise AssertionError(head)


def _int_term(rng: random.Random, depth: int) -> E.Term:
    pick = rng.randrange(7) if depth else rng.randrange(2)
    if pick == 0:
        return E.lit(rng.randint(-9, 9))
    if pick == 1:
        return E.const(rng.choice(NAMES))
    a = _int_term(rng, depth - 1)
    if pick == 2:
        return E.add(a, _int_term(rng, depth - 1))
    if pick == 3:
        return E.mul(E.lit(rng.choice((-3, -1, 2, 5))), a)
    if pick == 4:
        return E.mul(a, _int_term(rng, depth - 1))
    if pick == 5:
        divisor = E.lit(rng.choice((-4, -3, 2, 3, 5)))
        return E.floordiv(a, divisor) if rng.random() < 0.5 else E.floormod(a, divisor)
    return E.ite(_bool_term(rng, depth - 1), a, _int_term(rng, depth - 1))


def _bool_term(rng: random.Random, depth: int) -> E.Term:
    pick = rng.randrange(6) if depth else rng.randrange(3)
    a, b = _int_term(rng, depth), _int_term(rng, depth)
    if pick == 0:
        return E.lt(a, b)
    if pick == 1:
        return E.le(a, b)
    if pick == 2:
        return E.eq(a, b)
    if pick == 3:
        return E.not_(_bool_term(rng, depth - 1))
    parts = (_bool_term(rng, depth - 1), _bool_term(rng, depth - 1))
    return E.and_(*parts) if pick == 4 else E.or_(*parts)


def test_a_query_the_box_refutes_has_no_model_among_every_value_of_its_constants():
    """Random conjunctions over three constants, each bounded by two of the conjuncts (so enumerating those
    ranges finds every model): wherever `refuted_by_box` says no model exists, none does; and it says so often
    enough for the check to mean something."""
    rng = random.Random(18)
    refuted = 0
    for _ in range(3000):
        conjuncts: list[E.Term] = []
        ranges = []
        for name in NAMES:
            lo = rng.randint(-6, 4)
            hi = rng.randint(lo + 1, 7)
            conjuncts += [E.le(E.lit(lo), E.const(name)), E.lt(E.const(name), E.lit(hi))]
            ranges.append(range(lo, hi))
        conjuncts += [_bool_term(rng, 2) for _ in range(rng.randint(1, 3))]
        if not refuted_by_box(conjuncts):
            continue
        refuted += 1
        for values in itertools.product(*ranges):
            env = dict(zip(NAMES, values))
            assert not all(_value(c, env) for c in conjuncts), (conjuncts, env)
    assert refuted > 600


# ---------------------------------------------------------------------------------------------- the batch


def _obligation(violation: E.Term, *assumptions: E.Term) -> Obligation:
    return Obligation(IN_BOUNDS, "k:bounds", "", assumptions, violation, (("kb", KB),), (), NO_SPAN,
                      lambda values: ("m", dict(values), None), "in bounds", "k")


def test_a_site_whose_every_query_the_box_refutes_runs_no_batch_and_one_with_another_runs_all(batches):
    boxed = [_obligation(_window(KB, 128, 640), *_loop(KB, 5)), _obligation(_window(NB, 32, 128), *_loop(NB, 4))]
    assert [a.verdict for a in solver.discharge_all(boxed, cache=False)] == [Verdict.PROVED] * 2
    assert batches == []
    # a query intervals do not decide (kb * nb = 6: 6 lies in [0, 9]) needs the solver: the batch is made of
    # every query of the site, as it always was
    square = _obligation(E.eq(E.mul(KB, NB), E.lit(6)), *_loop(KB, 4), *_loop(NB, 4))
    past = _obligation(_window(KB, 128, 640), *_loop(KB, 6))
    answers = solver.discharge_all([*boxed, square, past], cache=False)
    assert [a.verdict for a in answers] == [Verdict.PROVED, Verdict.PROVED, Verdict.REFUTED, Verdict.REFUTED]
    assert batches.sizes() == [4]
