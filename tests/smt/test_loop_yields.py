"""PV105 / PV106 on MADs whose left operand a loop computes across its iterations (issue 13,
`kernels/loop_yields.py`; pypto-lib `deepseek_v3_2/decode_front.py:337,541`): the operand is a term of the loop
(its range, its inits, the values its body yields from its iter_args), so a tensor assembled row by row in a
`pl.parallel` loop and an online-softmax accumulator carried by a `pl.range` loop are compared block for block
and every obligation proves. A lowering whose loop computes something else — the MAD reads the value before the
loop, the loop yields another value, writes a row at another offset, runs another range, or reads one carry for
another — never proves: the solver finds the terms differ, a model that rests on the loop's term (another
spelling of one loop would be another term), so inconclusive, not refuted. A term whose loop variable the chain's own loops also name is
not traced (inconclusive, with its reason: `inconclusive/untraced_loops.py`; so is one that also carries a scalar)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import Call, Const, For, ListExpr, Var, Yield
from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, lower_fixed, mad_named, mutate, only, read

PATH = KERNELS / "loop_yields.py"
UNTRACED = KERNELS.parent / "inconclusive" / "untraced_loops.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, change=None, path=PATH):
    source = only(read(path), function)
    lowered = lower_fixed(source)
    if change is not None:
        lowered = mutate(lowered, function, change)
    return [o for o in prove_module(source, lowered, cache=False) if o.rule in CHAIN_RULES]


@pytest.mark.parametrize("function", ["rotated_rows", "online_rows"])
def test_an_operand_a_loop_computes_is_traced_and_the_chain_proves(function):
    outcomes = _outcomes(function)
    assert {o.rule for o in outcomes} == set(CHAIN_RULES)
    assert all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]
    assert not [o for o in outcomes if "not traced" in o.message + o.reason]


def _never_proved(outcomes):
    """PV105 is not proved: the solver finds the lowered term differs from the source's (a model, which rests on
    the loop's term, so inconclusive rather than refuted: another spelling of one loop is another term)."""
    (equivalence,) = [o for o in outcomes if o.rule == "PV105"]
    assert equivalence.verdict is Verdict.INCONCLUSIVE, (equivalence.verdict, equivalence.message)
    return equivalence


def _differs(outcomes):
    equivalence = _never_proved(outcomes)
    assert "relies on approximations: " in equivalence.message and "a term of the loop" in equivalence.message, \
        equivalence.message


def _operand(name: str, new: str):
    """A `mutate` change: the `tile.move` assigned to *name* moves *new* instead."""
    return mad_named(name, lambda c: replace(c, args=(Var(new), *c.args[1:])))


def _yielding(old: str, new: str):
    """A `mutate` change: the loop body's yield hands *new* where it handed *old*."""
    def visit(stmt):
        if isinstance(stmt, Yield) and any(isinstance(v, Var) and v.name == old for v in stmt.values):
            return replace(stmt, values=tuple(Var(new) if isinstance(v, Var) and v.name == old else v
                                              for v in stmt.values))
        return None
    return visit


def test_a_lowering_whose_mad_reads_the_rows_before_the_loop_never_proves():
    # `rows__rv_v6_Left = pl.tile.move(rows__rv_v6)` made to move `rows`, the loop's init
    _differs(_outcomes("rotated_rows", _operand("rows__rv_v6_Left", "rows")))


def test_a_lowering_whose_loop_yields_the_rows_half_rotated_never_proves():
    # the body yields its first assemble (`rows__ssa_v4`), not the second
    _differs(_outcomes("rotated_rows", _yielding("rows__ssa_v5", "rows__ssa_v4")))


def test_a_lowering_that_writes_a_half_row_at_another_offset_never_proves():
    # the second assemble writes the high half at `[b, 0]` instead of `[b, 64]`
    def low_half(call: Call) -> Call:
        return replace(call, args=(*call.args[:2], ListExpr((call.args[2].items[0], Const(0)))))
    _differs(_outcomes("rotated_rows", mad_named("rows__ssa_v5", low_half)))


def test_a_lowering_whose_loop_runs_another_range_never_proves():
    def half(stmt):
        if isinstance(stmt, For) and stmt.iter_args and stmt.loop_var.name == "b":
            return replace(stmt, stop=Const(8))
        return None
    _differs(_outcomes("rotated_rows", half))


def test_a_lowering_whose_context_divides_the_accumulator_before_the_loop_never_proves():
    # `ctx = pl.tile.row_expand_div(oi__rv_v3, li__rv_v3)` made to divide `oi`, the loop's init
    _differs(_outcomes("online_rows", mad_named("ctx", lambda c: replace(c, args=(Var("oi"), *c.args[1:])))))


def test_a_lowering_that_reads_the_running_max_for_the_running_sum_never_proves():
    # `li__mul = pl.tile.mul(alpha, li__iter_v1)` made to read `mi__iter_v1`, another carry of the same shape
    _differs(_outcomes("online_rows", mad_named("li__mul", lambda c: replace(c, args=(c.args[0],
                                                                                             Var("mi__iter_v1"))))))


def test_a_lowering_whose_loop_never_updates_the_sum_never_proves():
    _differs(_outcomes("online_rows", _yielding("li__ssa_v2", "li__iter_v1")))


def test_a_term_over_a_loop_variable_the_chain_also_names_is_inconclusive_with_its_reason():
    outcomes = _outcomes("shadowed_rows", path=UNTRACED)
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    equivalence = _never_proved(outcomes)
    assert equivalence.verdict is Verdict.INCONCLUSIVE
    assert "ranges over a loop variable named `b`, a name this chain's own loops use" in equivalence.message



def test_a_loop_that_also_carries_a_scalar_is_inconclusive_and_names_it():
    outcomes = _outcomes("counted_rows", path=UNTRACED)
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    equivalence = _never_proved(outcomes)
    assert ("`rows`, a value the loop at line 35 yields, not modelled: a loop that also carries the scalar `row0`"
            in equivalence.message), equivalence.message


def test_windows_written_inline_are_the_windows_their_loads_read():
    # `pl.cast(pl.slice(x, ...))` in the source, `tile.cast(rows__slice)` of a hoisted load in the lowering
    outcomes = _outcomes("sliced_rows")
    assert outcomes and all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_a_lowering_loading_every_block_of_rows_from_the_first_never_proves():
    def visit(stmt):
        value = getattr(stmt, "value", None)
        if isinstance(value, Call) and value.op == "tile.load" and stmt.target.name == "row__slice":
            return replace(stmt, value=replace(value, args=(value.args[0], ListExpr((Const(0), Const(0))),
                                                            *value.args[2:])))
        return None
    _differs(_outcomes("sliced_rows", visit))
