"""Regressions from the corpus sweep: a Form 1 matmul the lowering auto-tiles (no user loop) has a
source chain; a scalar K offset carried by the loop is valued exactly, and an unmodelled carry is
inconclusive, never refuted; the decoding shares one division per loop and still puts every create
and drain where a direct execution does; the obligations of a site are decided together."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify import rules
from pypto_verify.ir import NO_SPAN, BinOp, Compare, Const, If, LoopKind, Var

from pypto_verify.smt import Verdict, discharge_all, extract_sites, match_sites, prove_module
from pypto_verify.smt import encode as E
from pypto_verify.smt import sites as S
from pypto_verify.smt.obligations import Obligation
from .harness import KERNELS, expectations, kernel, lower_fixed, mad_named, mutate, only
from .test_decode import _check


def _lower(module, mode: str):
    pipeline = pytest.importorskip("pypto_verify.lowering.pipeline")
    from pypto_verify.lowering.pass_base import LowerOptions

    result = pipeline.lower(module, LowerOptions(mode=mode))
    assert not result.errors, [str(e) for e in result.errors]
    return result.module


def _by_rule(outcomes):
    return {o.rule: o for o in outcomes}


def _not_proved(outcomes):
    return [f"{o.site} {o.rule} {o.verdict.value}: {o.message}" for o in outcomes if o.verdict is not Verdict.PROVED]


# ---------------------------------------------------------------------------------------------- auto-tiled Form 1


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
@pytest.mark.parametrize("function", ["plain", "plain512"])
def test_a_plain_auto_tiled_matmul_proves_against_its_one_mad_source(function, mode):
    source = only(kernel("auto_tiled.py"), function)
    outcomes = prove_module(source, _lower(source, mode))
    assert not _not_proved(outcomes), _not_proved(outcomes)
    assert {"PV101", "PV105"} <= set(_by_rule(outcomes))


@pytest.mark.parametrize("function", ["acc_blocks", "acc_once"])
def test_auto_tiled_matmul_acc_with_init_cond_proves(function):
    source = only(kernel("auto_tiled.py"), function)
    outcomes = prove_module(source, lower_fixed(source))
    assert not _not_proved(outcomes), _not_proved(outcomes)
    assert {"PV101", "PV105"} <= set(_by_rule(outcomes))


def test_a_mad_inside_an_assemble_is_a_one_step_chain_refined_to_the_tiled_blocks():
    source = only(kernel("auto_tiled.py"), "plain")
    (site,) = extract_sites(source)
    assert site.name == "y" and site.id == "plain:15"
    (mad,) = site.mads
    assert mad.kind == "fresh" and mad.k_extent == 384
    assert isinstance(site.body[-1], S.Drain)
    pairs, unmatched = match_sites([site], extract_sites(lower_fixed(source)))
    assert not unmatched and pairs[0].source is not None
    (refined,) = pairs[0].source.mads
    assert refined.sub_blocks == 3 and refined.sub_width == 128


def test_an_auto_tiled_first_block_that_accumulates_fails_pv102_and_pv101():
    source = only(kernel("auto_tiled.py"), "plain")
    bad = mutate(lower_fixed(source), "plain", mad_named("y__l0_c_acc", lambda c: c.with_kwarg("init_cond", Const(False))))
    outcomes = _by_rule(prove_module(source, bad))
    assert outcomes["PV102"].verdict is Verdict.REFUTED
    assert outcomes["PV101"].verdict is Verdict.REFUTED
    assert outcomes["PV101"].counterexample["l0_block"] == 0  # the first L0 block of the source MAD


def test_a_legacy_seed_branch_on_the_wrong_block_fails_pv101():
    source = only(kernel("auto_tiled.py"), "plain")

    def second_block(stmt):
        if isinstance(stmt, If) and isinstance(stmt.cond, Compare) and isinstance(stmt.cond.lhs, Var) \
                and stmt.cond.lhs.name == "y__l0_ko":
            return replace(stmt, cond=replace(stmt.cond, rhs=Const(128)))
        return None

    outcomes = _by_rule(prove_module(source, mutate(_lower(source, "legacy"), "plain", second_block)))
    assert outcomes["PV101"].verdict is Verdict.REFUTED
    assert outcomes["PV102"].verdict is Verdict.REFUTED


# ---------------------------------------------------------------------------------------------- scalar carries


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
@pytest.mark.parametrize("function", ["carried", "carried_pred"])
def test_a_scalar_k_offset_carried_by_the_loop_proves(function, mode):
    source = only(kernel("carried_offset.py"), function)
    outcomes = prove_module(source, _lower(source, mode))
    assert not _not_proved(outcomes), _not_proved(outcomes)


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_k_offset_advanced_by_a_runtime_stride_is_proved_faithful_but_not_intended(mode):
    """The lowering is proved to mirror the source (PV101, PV102, PV105), but the kernel resets and
    covers K as intended only when the stride read at run time is K_TILE: PV103 and PV106 say so."""
    source = only(kernel("carried_offset.py"), "carried_runtime")
    outcomes = prove_module(source, _lower(source, mode))
    by_rule = {o.rule: o for o in outcomes}
    assert {r for r, o in by_rule.items() if o.verdict is Verdict.PROVED} == {"PV101", "PV102", "PV105"}
    for rule in ("PV103", "PV106"):
        assert by_rule[rule].verdict is Verdict.CONDITIONAL
        assert "`stride`, read at run time" in by_rule[rule].reason


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_carried_offset_seeding_on_the_wrong_value_fails_pv102_at_kb_zero(mode):
    source = only(kernel("carried_offset.py"), "carried_wrong")
    outcomes = prove_module(source, _lower(source, mode))
    assert {(o.rule, o.span.line) for o in outcomes if o.verdict is Verdict.REFUTED} == \
        expectations(KERNELS / "carried_offset.py")
    pv102 = _by_rule(outcomes)["PV102"]
    assert pv102.counterexample["kb"] == 0 and "k0" not in pv102.counterexample  # k0 is no free symbol


GROWING = '''
import pypto.language as pl


@pl.jit
def growing(x: pl.Tensor[[16, 512], pl.BF16], w: pl.Tensor[[512, 64], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="growing"):
        acc = pl.create_tensor([16, 64], dtype=pl.FP32)
        k0 = 0
        for kb in pl.range(4):
            xa = x[:, k0 : k0 + 64]
            wb = w[k0 : k0 + 64, :]
            if k0 == 0:
                acc = pl.matmul(xa, wb)
            else:
                acc = pl.matmul_acc(acc, xa, wb)
            k0 = k0 + kb * 64
        y[:, :] = acc
    return y
'''


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_carry_that_is_not_affine_in_the_iteration_is_inconclusive_never_refuted(tmp_path, mode):
    from pypto_verify.frontend import read_file

    path = tmp_path / "growing.py"
    path.write_text(GROWING)
    source = read_file(path).module
    outcomes = prove_module(source, _lower(source, mode))
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    inconclusive = [o for o in outcomes if o.verdict is Verdict.INCONCLUSIVE]
    assert inconclusive and all("`k0` (line 10) is not affine in the iteration" in o.reason for o in inconclusive)
    assert _by_rule(outcomes)["PV102"].verdict is Verdict.PROVED  # the first iteration sees the init


def _carry(yielded, after=False):
    return S.Carry("k0__iter", "kb", Const(0), Const(4), Const(1), Const(16), yielded, after, NO_SPAN)


def test_an_affine_carry_is_init_plus_iteration_times_delta():
    step = BinOp("+", Var("k0__iter"), Const(128))
    scalars = S.Scalars(carries={"k0__iter": _carry(step), "k0__rv": _carry(step, after=True)})
    symbols = E.Symbols(scalars, "s")
    i = E.const("i")
    enc = E.ExprEncoder(symbols).bind("kb", E.add(i, E.ZERO), i)
    assert enc.name("k0__iter") is E.add(E.lit(16), E.mul(i, E.lit(128)))
    assert E.ExprEncoder(symbols).name("k0__rv") is E.lit(16 + 4 * 128)
    assert not symbols.approximations


def test_a_carry_whose_step_depends_on_the_iteration_is_an_approximation():
    scalars = S.Scalars(carries={"k0__iter": _carry(BinOp("+", Var("k0__iter"), Var("kb")))})
    symbols = E.Symbols(scalars, "l")
    value = E.ExprEncoder(symbols).bind("kb", E.const("i"), E.const("i")).name("k0__iter")
    assert symbols.approximations == ["the loop-carried scalar `k0` (line 0) is not affine in the iteration"]
    assert value.head == "ite" and value.args[1] is E.lit(16)  # the init in the first iteration
    assert "carry.l.k0__iter" in E.render([E.eq(value, E.ZERO)])  # this side's own function


def test_a_scalar_if_phi_is_an_ite_of_its_arms():
    scalars = S.Scalars(phis={"d__phi": S.ScalarPhi(Compare("==", Var("kb"), Const(0)), Const(0), Const(64))})
    enc = E.ExprEncoder(E.Symbols(scalars)).bind("kb", E.lit(0))
    assert enc.name("d__phi") is E.ZERO


# ---------------------------------------------------------------------------------------------- decoding


def _mad(line: int) -> S.Mad:
    span = replace(NO_SPAN, line=line)
    return S.Mad("tile.matmul_acc", "acc", Compare("==", Var("ko"), Const(0)), None, None, None, False, False,
                 "c", span, span)


def test_drains_at_the_end_of_nested_bodies_decode_where_a_direct_execution_puts_them():
    inner = S.Loop("ko", Const(0), Const(3), Const(1), (_mad(5),), LoopKind.RANGE, True, NO_SPAN)
    middle = S.Loop("mb", Const(0), Const(4), Const(1),
                    (S.Create("c", NO_SPAN), inner, S.Drain("tile.store", NO_SPAN)), LoopKind.RANGE, True, NO_SPAN)
    for tail in ((), (S.Drain("tile.store", NO_SPAN), _mad(9))):
        # without a tail, the last `mb` iteration's drain sits at the end of the `nb` body
        outer = S.Loop("nb", Const(1), Const(7), Const(2), (middle, *tail), LoopKind.RANGE, True, NO_SPAN)
        site = S.AccSite("k:5", "k", "c", NO_SPAN, "", (S.Create("c", NO_SPAN), outer, S.Drain("tile.store", NO_SPAN)),
                      (), S.Scalars(), "undefined")
        _check(site, {})


# ---------------------------------------------------------------------------------------------- batching


def _obligation(violation: E.Term, case: str) -> Obligation:
    x = E.const("x")
    return Obligation(rules.INITIALISE_FIRST, "k:1", case, (E.le(E.ZERO, x), E.le(E.ZERO, x)), violation,
                      (("x", x),), (), NO_SPAN, lambda values: ("m", dict(values), None), "holds", "k")


def test_the_obligations_of_a_site_are_decided_together_and_cached_one_by_one():
    x = E.const("x")
    obs = [_obligation(E.lt(x, E.ZERO), "a"), _obligation(E.eq(x, E.lit(3)), "b"), _obligation(E.FALSE, "c"),
           _obligation(E.and_(E.lt(E.lit(1), x), E.lt(x, E.lit(3))), "d")]
    first = discharge_all(obs)
    assert [a.verdict for a in first] == [Verdict.PROVED, Verdict.REFUTED, Verdict.PROVED, Verdict.REFUTED]
    assert first[1].values["x"] == 3 and first[3].values["x"] == 2
    again = discharge_all(obs)
    assert [a.verdict for a in again] == [a.verdict for a in first]
    assert again[0].cached and again[1].cached and again[3].cached and again[3].values["x"] == 2
    assert all(a.seconds == 0 for a in again)


def test_a_source_mad_of_unknown_k_width_is_not_counted_against_its_tiled_lowering():
    """pypto-lib `deepseek_v4_flash_dspark/decode_sparse_attn_swa.py:172`: the left operand is computed by
    ops the model does not type, so the source MAD's K width is unknown while its lowering runs four L0
    blocks. `refine` cannot split it, and the encoding says so: PV105's count is an approximation (a model
    is inconclusive), not "the lowered chain runs 4 MADs where the source runs 1"."""
    source = only(kernel("auto_tiled.py"), "plain")
    (site,) = extract_sites(source)
    (mad,) = site.mads
    blind = replace(site, body=tuple(replace(item, lhs=None, rhs=None, type_k=None) if isinstance(item, S.Mad)
                                     else item for item in site.body))
    assert blind.mads[0].k_extent is None
    pairs, unmatched = match_sites([blind], extract_sites(lower_fixed(source)))
    assert not unmatched and pairs[0].source is not None
    (refined,) = pairs[0].source.mads
    assert refined.blocks_unknown and refined.sub_blocks == 1
    from pypto_verify.smt.obligations import reduction_equivalence
    (count,) = [ob for ob in reduction_equivalence(pairs[0].lowered, pairs[0].source) if ob.case == "count"]
    assert any("K width of the MAD at line 15 is not known" in a for a in count.approximations)
    (answer,) = discharge_all([count])
    assert answer.verdict is Verdict.INCONCLUSIVE
