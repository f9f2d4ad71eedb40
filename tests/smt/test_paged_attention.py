"""PV105 / PV106 on operands computed from traced blocks (issue 13, `kernels/paged_attention.py`): a reshape of a
concat of flattened query blocks (`qwen3_14b/prefill_fwd.py:483`), a softmax under an inline
`set_validshape` in a pipelined loop that re-reads a page table (`prefill_fwd.py:272`), a pipeline over a page
count read at run time whose remainder copy re-reads the table (the deepseek_v4 `decode_indexer.py` kernels).
Each proves; the twin that repeats a K block of the stacked operand is refuted (PV106), a lowering whose L0
block reads another K block of it is refuted (PV105), and a lowering whose copy reads another entry of the
table is never proved."""

from __future__ import annotations

from dataclasses import replace

from pypto_verify.ir import Assign, BinOp, Call, Const, ListExpr, Var
from pypto_verify.run import Options, run
from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, lower_fixed, mad_named, mutate, only, read

PATH = KERNELS / "paged_attention.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, lowered=None):
    source = only(read(PATH), function)
    return [o for o in prove_module(source, lowered if lowered is not None else lower_fixed(source), cache=False)
            if o.rule in CHAIN_RULES]


def _not_proved(outcomes):
    return [(o.site, o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_a_reshape_of_a_concat_of_query_blocks_is_traced_through_the_l0_blocks():
    outcomes = _outcomes("stacked_queries")
    assert {o.rule for o in outcomes} == set(CHAIN_RULES)
    assert not _not_proved(outcomes), _not_proved(outcomes)


def test_an_l0_block_that_reads_the_middle_k_block_of_the_stacked_queries_twice_is_pv105_refuted():
    source = only(read(PATH), "stacked_queries")
    bad = mutate(lower_fixed(source), "stacked_queries",
                 mad_named("scores__l0_a_2", lambda c: replace(c, args=(c.args[0], c.args[1], Const(128), *c.args[3:]))))
    pv105 = [o for o in _outcomes("stacked_queries", bad) if o.rule == "PV105"]
    assert pv105 and all(o.verdict is Verdict.REFUTED for o in pv105), _not_proved(pv105)


def test_a_k_block_of_the_stacked_queries_read_twice_is_pv106():
    result = run([str(PATH)], Options(cache=False, jobs=1, sim=False))
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV106", 60)]
    assert "K [0, 128) of `reshape@50:19` is accumulated twice" in result.findings[0].message
    verdicts = {k.function: k.verdict for f in result.files for k in f.kernels}
    assert verdicts == {"stacked_queries": "verified", "stacked_queries_repeats": "findings",
                        "masked_pages": "conditional", "counted_pages": "conditional"}


def test_a_softmax_under_an_inline_valid_shape_in_a_pipelined_loop_proves():
    # the inline `set_validshape` is the view of its operand on both sides, not an op of its own in the source
    outcomes = _outcomes("masked_pages")
    assert not _not_proved(outcomes), _not_proved(outcomes)
    assert len({o.site for o in outcomes}) == 4  # two products per page, in the pipeline's two copies


def test_a_pipeline_over_a_page_count_read_at_run_time_proves_its_remainder_copy():
    outcomes = _outcomes("counted_pages")
    # the main loop's two copies and the remainder copy (`if unroll_rem == 1:`), at `(pages // 2) * 2`
    assert len({o.site for o in outcomes}) == 3
    assert not _not_proved(outcomes), _not_proved(outcomes)


def _reads_table_at(index):
    def change(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.read" \
                and isinstance(stmt.value.args[0], Var) and stmt.value.args[0].name == "table" \
                and stmt.target.name.endswith(("_1", "_2")):
            items = stmt.value.args[1].items
            new = index(items[0])
            if new is None:
                return None
            return replace(stmt, value=replace(stmt.value, args=(stmt.value.args[0], ListExpr((new,)))))
        return None
    return change


def test_a_remainder_copy_that_reads_the_previous_page_is_never_proved():
    source = only(read(PATH), "counted_pages")
    # `page__read_2 = pl.tensor.read(table, [unroll_main_end])` made to read `unroll_main_end - 1`
    bad = mutate(lower_fixed(source), "counted_pages", _reads_table_at(
        lambda i: BinOp("-", i, Const(1)) if isinstance(i, Var) else None))
    outcomes = _outcomes("counted_pages", bad)
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    broken = [o for o in outcomes if o.rule == "PV105" and o.verdict is not Verdict.PROVED]
    assert broken and all(o.verdict is Verdict.INCONCLUSIVE for o in broken), _not_proved(outcomes)


def test_a_pipeline_copy_that_reads_the_first_copys_page_is_never_proved():
    source = only(read(PATH), "masked_pages")
    # `page__read_1 = pl.tensor.read(table, [p + 1])` made to read `p`
    bad = mutate(lower_fixed(source), "masked_pages", _reads_table_at(
        lambda i: i.lhs if isinstance(i, BinOp) else None))
    outcomes = _outcomes("masked_pages", bad)
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    broken = [o for o in outcomes if o.rule == "PV105" and o.verdict is not Verdict.PROVED]
    assert broken and all(o.verdict is Verdict.INCONCLUSIVE for o in broken), _not_proved(outcomes)
