"""PV105 on chains a replicated loop does not carry (one fresh accumulator per pipeline clone) and on
MADs whose left operand the model cannot trace (`kernels/replicated_blocks.py`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import Assign, BinOp, Const, For, Var
from pypto_verify.smt import Verdict, pair_sites, prove_module

from .harness import kernel, lower_fixed, mutate, only


def _verdicts(source, lowered):
    return {(o.site, o.rule): o for o in prove_module(source, lowered)}


@pytest.mark.parametrize("function", ["per_block", "per_block_tail", "reshaped_lhs", "both_reshaped"])
def test_every_site_proves(function):
    source = only(kernel("replicated_blocks.py"), function)
    outcomes = prove_module(source, lower_fixed(source))
    assert outcomes and all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.site, o.rule, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_each_pipeline_clone_is_compared_with_its_own_source_iteration():
    source = only(kernel("replicated_blocks.py"), "per_block")
    pairs, _ = pair_sites(source, lower_fixed(source))
    first = pairs[0].lowered.id
    assert [p.lowered.id for p in pairs] == [first, f"{first}.2"]
    assert [p.source.context_offsets for p in pairs] == [(), (("hb", 1),)]   # clone 1 runs at hb + 1


def test_a_literal_tail_clone_is_compared_with_its_own_source_iteration():
    source = only(kernel("replicated_blocks.py"), "per_block_tail")
    pairs, _ = pair_sites(source, lower_fixed(source))
    assert [(p.source.context_offsets, p.source.context_values) for p in pairs] == [
        ((), ()), ((("hb", 1),), ()), ((), (("hb", 2),))]   # main loop clones 0 and 1, then the tail at hb = 2


def test_a_clone_that_reads_the_first_clones_rows_is_refuted():
    source = only(kernel("replicated_blocks.py"), "per_block")

    def same_rows(stmt):
        # clone 1's `h0_1 = (hb + 1) * 32` made `hb * 32`: both clones compute block hb
        if isinstance(stmt, Assign) and stmt.target.name == "h0_1" and isinstance(stmt.value, BinOp):
            return Assign(stmt.target, BinOp("*", Var("hb"), stmt.value.rhs), stmt.type, span=stmt.span)
        return None

    lowered = mutate(lower_fixed(source), "per_block", same_rows)
    verdicts = _verdicts(source, lowered)
    first = pair_sites(source, lowered)[0][0].lowered.id
    assert verdicts[(first, "PV105")].verdict is Verdict.PROVED
    refuted = verdicts[(f"{first}.2", "PV105")]
    assert refuted.verdict is Verdict.REFUTED
    assert "different accumulate step than the source" in refuted.message


def test_a_clones_renamed_inner_loop_is_the_sources_loop():
    source = only(kernel("replicated_blocks.py"), "per_block_inner_loop")
    lowered = lower_fixed(source)
    pairs, _ = pair_sites(source, lowered)
    assert [p.lowered.context_names for p in pairs] == [(), (("n0_1", "n0"),)]
    outcomes = prove_module(source, lowered)
    assert outcomes and all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.site, o.rule, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_a_clone_that_reads_another_column_block_is_refuted():
    source = only(kernel("replicated_blocks.py"), "per_block_inner_loop")

    def next_block(stmt):
        # the clone's inner loop `for n0_1 in pl.parallel(0, 128, 64)` made to start at 64: the names are
        # linked by their bounds, so the changed loop is no longer the source's `n0`
        if isinstance(stmt, For) and stmt.loop_var.name == "n0_1":
            return replace(stmt, start=Const(64))
        return None

    lowered = mutate(lower_fixed(source), "per_block_inner_loop", next_block)
    pairs, _ = pair_sites(source, lowered)
    assert [p.lowered.context_names for p in pairs] == [(), ()]
    verdicts = _verdicts(source, lowered)
    assert verdicts[(pairs[0].lowered.id, "PV105")].verdict is Verdict.PROVED
    assert verdicts[(pairs[1].lowered.id, "PV105")].verdict is Verdict.REFUTED


def test_unrolled_copies_with_renamed_inner_loops_fix_their_own_iteration():
    source = only(kernel("replicated_blocks.py"), "unrolled_inner_loop")
    lowered = lower_fixed(source)
    pairs, _ = pair_sites(source, lowered)
    assert [p.source.context_values for p in pairs] == [(("hb", 0),), (("hb", 1),)]
    outcomes = prove_module(source, lowered)
    assert outcomes and all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.site, o.rule, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]
