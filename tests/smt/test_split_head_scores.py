"""PV105 / PV106 on an operand computed from the sum of a straight line of MADs (issue 13,
`kernels/split_head_scores.py`; pypto-lib `decode_sparse_attn_hca.py:376,381`): the sum is a term of both
MADs' operand blocks off K, so the probabilities computed from it are traced and both chains prove; the
twin that reads a K block of the probabilities twice is refuted (PV106), and a lowering whose second MAD of
the sum reads the first half of the head again is refuted on the sum's own chain (PV105)."""

from __future__ import annotations

from dataclasses import replace

from pypto_verify.ir import Const, ListExpr
from pypto_verify.run import Options, run
from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, lower_fixed, mad_named, mutate, only, read

PATH = KERNELS / "split_head_scores.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, lowered=None):
    source = only(read(PATH), function)
    return [o for o in prove_module(source, lowered if lowered is not None else lower_fixed(source), cache=False)
            if o.rule in CHAIN_RULES]


def test_a_softmax_of_a_two_mad_sum_is_traced_and_both_chains_prove():
    outcomes = _outcomes("two_part_scores")
    assert {o.site for o in outcomes} == {"two_part_scores:17", "two_part_scores:22"}
    assert all(o.verdict is Verdict.PROVED for o in outcomes), \
        [(o.site, o.rule, o.verdict.value, o.message) for o in outcomes if o.verdict is not Verdict.PROVED]


def test_a_repeated_k_block_of_the_probabilities_is_pv106():
    result = run([str(PATH)], Options(cache=False, jobs=1, sim=False))
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV106", 39)]
    assert "K [0, 64) of `cast@35:27` is accumulated twice" in result.findings[0].message


def test_a_lowered_sum_that_reads_the_first_half_of_the_head_twice_is_pv105_refuted():
    source = only(read(PATH), "two_part_scores")
    # `q__slice_v2 = pl.tile.load(q, [0, 64], ...)` made to load `[0, 0]`
    bad = mutate(lower_fixed(source), "two_part_scores",
                 mad_named("q__slice_v2", lambda c: replace(c, args=(c.args[0], ListExpr((Const(0), Const(0))),
                                                                     *c.args[2:]))))
    pv105 = {o.site: o for o in _outcomes("two_part_scores", bad) if o.rule == "PV105"}
    assert pv105["two_part_scores:17"].verdict is Verdict.REFUTED, pv105["two_part_scores:17"].message
