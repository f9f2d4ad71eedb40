"""PV105 / PV106 on MADs whose operands the kernel computes before its K loop (issue 13,
`kernels/computed_operands.py`): a reshape that merges dimensions of a GM tensor, a tensor of `pl.dynamic`
extent, a GM buffer a loop threads through an inline function. Each is a term of its inputs, read in K
blocks alike by the source and its lowering: the clean chains prove, each twin that reads its computed
operand one K block behind is refuted (PV106), and a lowering that reads another block of it is refuted
(PV105). An operand computed once per K block inside the loop leaves PV106 inconclusive with its reason
(`inconclusive/computed_per_block.py`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import Assign, BinOp, Call, Const, ListExpr, Var
from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, expectations, kernel, lower_fixed, mutate, only, read

CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, lowered=None, path=KERNELS / "computed_operands.py"):
    source = only(read(path), function)
    return [o for o in prove_module(source, lowered if lowered is not None else lower_fixed(source), cache=False)
            if o.rule in CHAIN_RULES]


@pytest.mark.parametrize("function", ["merged_rows", "dynamic_extents", "staged_buffer"])
def test_a_chain_over_a_computed_operand_proves(function):
    outcomes = _outcomes(function)
    assert {o.rule for o in outcomes} == set(CHAIN_RULES)
    assert all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]
    # traced: PV105 compares the blocks (an untraced operand would leave it inconclusive, naming it)
    assert not [o for o in outcomes if "not traced" in o.message + o.reason]


@pytest.mark.parametrize("function", ["merged_rows_skips", "dynamic_extents_skips", "staged_buffer_skips"])
def test_a_computed_operand_one_block_behind_is_refuted(function):
    outcomes = _outcomes(function)
    refuted = {(o.rule, o.span.line) for o in outcomes if o.verdict is Verdict.REFUTED}
    expected = {(rule, line) for rule, line in expectations(KERNELS / "computed_operands.py")
                if any(o.span.line == line for o in outcomes)}
    assert refuted == expected and expected, (refuted, expected)
    (coverage,) = [o for o in outcomes if o.rule == "PV106"]
    assert "accumulated twice" in coverage.message


def test_a_lowering_that_reads_another_block_of_a_reshaped_operand_is_refuted():
    source = only(kernel("computed_operands.py"), "merged_rows")
    lowered = lower_fixed(source)

    def next_rows(stmt):
        # the loop's load of the reshaped left operand made to read rows [8, 24) instead of [0, 16)
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.load" \
                and isinstance(stmt.value.args[0], Var) and stmt.value.args[0].name == "x" \
                and isinstance(stmt.value.args[1], ListExpr) and stmt.value.args[1].items[0] == Const(0) \
                and isinstance(stmt.value.args[1].items[1], Var):
            offsets = replace(stmt.value.args[1], items=(Const(8), stmt.value.args[1].items[1]))
            return replace(stmt, value=replace(stmt.value, args=(stmt.value.args[0], offsets, *stmt.value.args[2:])))
        return None

    outcomes = _outcomes("merged_rows", mutate(lowered, "merged_rows", next_rows))
    (equivalence,) = [o for o in outcomes if o.rule == "PV105"]
    assert equivalence.verdict is Verdict.REFUTED, (equivalence.verdict, equivalence.message)


def test_a_cast_per_k_block_reads_its_operands_k_blocks():
    # a cast holds its block's elements one for one: the coverage is checked on `x` and `w`
    outcomes = _outcomes("cast_per_block", path=KERNELS.parent / "inconclusive" / "computed_per_block.py")
    assert {o.rule for o in outcomes} == set(CHAIN_RULES)
    assert all(o.verdict is Verdict.PROVED for o in outcomes), [(o.rule, o.message) for o in outcomes]


@pytest.mark.parametrize("function", ["scaled_per_block"])
def test_an_operand_computed_per_k_block_is_inconclusive_with_its_reason_never_refuted(function):
    outcomes = _outcomes(function, path=KERNELS.parent / "inconclusive" / "computed_per_block.py")
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    (coverage,) = [o for o in outcomes if o.rule == "PV106"]
    assert coverage.verdict is Verdict.INCONCLUSIVE
    assert "computed in the kernel inside the K loop" in coverage.message
    assert "only for an elementwise op" in coverage.message
    (equivalence,) = [o for o in outcomes if o.rule == "PV105"]
    assert equivalence.verdict is Verdict.PROVED


def test_a_reshaped_operand_at_a_row_read_in_a_pipeline_clone_proves():
    """The clone of a pipelined loop re-reads the row from the table under a name of its own (`page_1 =
    pl.cast(pl.read(table, [p + 1]))`): the read is a function of its index on both sides, so the clone
    reads the source's block at `p + 1` and every obligation proves."""
    outcomes = _outcomes("paged_rows")
    assert outcomes and not [o for o in outcomes if o.verdict is not Verdict.PROVED], \
        [(o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_a_clone_that_reads_another_row_of_the_table_is_never_proved():
    # the reads are functions of their indices, and another spelling of one function would be another
    # function: a model is no refutation (an approximation), so the broken clone is inconclusive
    source = only(kernel("computed_operands.py"), "paged_rows")

    def same_page(stmt):
        # the clone's read of the table made to read index `p` (the first copy's) instead of `p + 1`
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.read" \
                and isinstance(stmt.value.args[1], ListExpr) and isinstance(stmt.value.args[1].items[0], BinOp):
            index = replace(stmt.value.args[1], items=(stmt.value.args[1].items[0].lhs,))
            return replace(stmt, value=replace(stmt.value, args=(stmt.value.args[0], index)))
        return None

    outcomes = _outcomes("paged_rows", mutate(lower_fixed(source), "paged_rows", same_page))
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    broken = [o for o in outcomes if o.rule == "PV105" and o.verdict is not Verdict.PROVED]
    assert broken and all(o.verdict is Verdict.INCONCLUSIVE for o in broken), \
        [(o.rule, o.verdict.value, o.message) for o in outcomes]