"""The obligations on small kernels: each wrong predicate fails with its rule and a specific
counterexample; each correct form proves. Kernels are in `kernels/`, with `# expect:` markers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import BinOp, Const, If, ListExpr

from pypto_verify.smt import Verdict, prove_module
from .harness import (
    KERNELS, expectations, init_cond_of, kernel, lower_fixed, mad_named, mutate, only, read,
)


def _by_rule(outcomes, site: str | None = None):
    return {o.rule: o for o in outcomes if site is None or o.site.split(":")[0] == site}


def _refuted(outcomes) -> set[tuple[str, int]]:
    return {(o.rule, o.span.line) for o in outcomes if o.verdict is Verdict.REFUTED}


def _all_proved(outcomes) -> None:
    bad = [f"{o.site} {o.rule} {o.verdict.value}: {o.message}" for o in outcomes if o.verdict is not Verdict.PROVED]
    assert outcomes and not bad, bad


# ---------------------------------------------------------------------------------------------- wrong predicates


def test_init_cond_ko_equals_one_fails_pv102_at_ko_zero():
    source = kernel("init_cond_off_by_one.py")
    outcomes = prove_module(source, lower_fixed(source))
    pv102 = _by_rule(outcomes)["PV102"]
    assert pv102.verdict is Verdict.REFUTED
    assert pv102.counterexample["ko"] == 0
    assert pv102.message.startswith("init_cond (ko == 1) does not initialise the accumulator on the first "
                                    "iteration: at ko = 0 the MAD accumulates into an uninitialised L0C window")
    assert _by_rule(outcomes)["PV101"].verdict is Verdict.PROVED  # the lowering is faithful to the bug
    assert _refuted(outcomes) == expectations(KERNELS / "init_cond_off_by_one.py")


def test_kb_equals_zero_in_a_loop_from_one_fails_pv102_at_kb_one():
    source = only(kernel("loop_from_one.py"), "never_seeded")
    outcomes = prove_module(source, lower_fixed(source))
    pv102 = _by_rule(outcomes)["PV102"]
    assert pv102.verdict is Verdict.REFUTED
    assert pv102.counterexample["kb"] == 1
    assert "line 21 runs `matmul_acc` into an uninitialised L0C window" in pv102.message
    assert _refuted(outcomes) == expectations(KERNELS / "loop_from_one.py")


def test_split_k_slice_predicated_on_zero_fails_pv102_with_nonzero_k_base():
    source = only(kernel("split_k_slice.py"), "slice_zero")
    outcomes = prove_module(source, lower_fixed(source))
    pv102 = _by_rule(outcomes)["PV102"]
    assert pv102.verdict is Verdict.REFUTED
    cx = pv102.counterexample
    assert cx["k_base"] != 0 and cx["ko"] == cx["k_base"]
    assert _refuted(outcomes) == expectations(KERNELS / "split_k_slice.py")


def test_inner_index_predicate_resets_every_outer_iteration_fails_pv103_as_given():
    module = only(kernel("inner_index_reset.py"), "inner_reset")
    outcomes = prove_module(None, module)
    assert _refuted(outcomes) == expectations(KERNELS / "inner_index_reset.py", "as-given")
    pv103 = _by_rule(outcomes)["PV103"]
    assert pv103.verdict is Verdict.REFUTED
    assert pv103.counterexample["kb"] >= 1 and pv103.counterexample["ko"] == 0
    assert "never drained" in pv103.message
    assert set(_by_rule(outcomes)) == {"PV102", "PV103", "PV106"}  # Form 3 style: no PV101 / PV105


def test_inner_index_predicate_in_a_tiled_lowering_fails_pv103_and_pv101():
    source = only(kernel("tiled_k.py"), "tiled")
    lowered = lower_fixed(source)
    cond = init_cond_of(lowered, "tiled", "acc__l0_c_acc")
    inner_only = cond.operands[1]  # `kb == 0 and acc__l0_ko == 0` -> `acc__l0_ko == 0`
    bad = mutate(lowered, "tiled", mad_named("acc__l0_c_acc", lambda c: c.with_kwarg("init_cond", inner_only)))
    outcomes = _by_rule(prove_module(source, bad))
    assert outcomes["PV103"].verdict is Verdict.REFUTED
    assert outcomes["PV103"].counterexample["kb"] >= 1
    assert outcomes["PV101"].verdict is Verdict.REFUTED
    assert outcomes["PV101"].counterexample["lowered"] == "initialises"
    assert outcomes["PV102"].verdict is Verdict.PROVED


def test_two_pipeline_clones_predicated_on_ko_zero_fail_pv103():
    source = only(kernel("tiled_k.py"), "piped")
    lowered = lower_fixed(source)
    first = init_cond_of(lowered, "piped", "c_new")
    bad = mutate(lowered, "piped", mad_named("c_new_1", lambda c: c.with_kwarg("init_cond", first)))
    outcomes = _by_rule(prove_module(source, bad))
    assert outcomes["PV103"].verdict is Verdict.REFUTED
    assert outcomes["PV103"].counterexample["ko"] % 256 == 128  # the second clone, in the user's `ko`
    assert outcomes["PV101"].verdict is Verdict.REFUTED
    # as given (no source), the second clone still loses the first clone's partial sum
    assert _by_rule(prove_module(None, bad))["PV103"].verdict is Verdict.REFUTED


def test_bias_branch_taken_twice_fails_pv104():
    source = kernel("bias_twice.py")
    outcomes = prove_module(source, lower_fixed(source))
    pv104 = _by_rule(outcomes)["PV104"]
    assert pv104.verdict is Verdict.REFUTED
    assert pv104.counterexample["kb"] == 1 and pv104.counterexample["bias"] == "added"
    assert _refuted(outcomes) == expectations(KERNELS / "bias_twice.py")


def test_wrong_clone_offset_fails_pv105():
    source = only(kernel("tiled_k.py"), "piped")
    lowered = lower_fixed(source)

    def same_block(call):  # the second clone loads the first clone's block again
        offsets = call.args[1]
        assert isinstance(offsets.items[1], BinOp)
        return replace(call, args=(call.args[0], ListExpr((offsets.items[0], offsets.items[1].lhs)), *call.args[2:]))

    bad = mutate(lowered, "piped", mad_named("ta_1", same_block))
    outcomes = _by_rule(prove_module(source, bad))
    assert outcomes["PV105"].verdict is Verdict.REFUTED
    assert "different accumulate step" in outcomes["PV105"].message
    assert outcomes["PV101"].verdict is Verdict.PROVED


def test_dropped_runtime_remainder_fails_pv105_step_count():
    source = only(kernel("tiled_k.py"), "dynamic")
    lowered = lower_fixed(source)

    def never(stmt):
        if isinstance(stmt, If) and "unroll_rem" in repr(stmt.cond):
            return replace(stmt, cond=Const(False))
        return None

    outcomes = _by_rule(prove_module(source, mutate(lowered, "dynamic", never)))
    pv105 = outcomes["PV105"]
    assert pv105.verdict is Verdict.REFUTED
    assert pv105.counterexample["n_blocks"] % 2 == 1
    assert pv105.counterexample["source_steps"] == pv105.counterexample["lowered_steps"] + 1


def test_outer_carry_without_a_store_per_tile_fails_pv103():
    module = only(kernel("inner_index_reset.py"), "drained_per_tile")
    assert all(o.verdict is Verdict.PROVED for o in prove_module(None, module))

    def no_store(stmt):
        from pypto_verify.ir import Assign, Call, Var
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.store":
            return replace(stmt, value=Var("out"))
        return None

    outcomes = _by_rule(prove_module(None, mutate(module, "drained_per_tile", no_store)))
    assert outcomes["PV103"].verdict is Verdict.REFUTED
    assert outcomes["PV103"].counterexample["nb"] >= 1 and outcomes["PV103"].counterexample["ko"] == 0


# ---------------------------------------------------------------------------------------------- correct forms


def test_split_k_slice_predicated_on_k_base_proves():
    source = only(kernel("split_k_slice.py"), "slice_base")
    _all_proved(prove_module(source, lower_fixed(source)))


def test_loop_from_one_with_a_seed_before_it_proves():
    source = only(kernel("loop_from_one.py"), "seeded_from_one")
    _all_proved(prove_module(source, lower_fixed(source)))


def test_tiled_pipelined_and_runtime_bound_chains_prove():
    source = kernel("tiled_k.py")
    outcomes = prove_module(source, lower_fixed(source))
    _all_proved(outcomes)
    assert {o.function for o in outcomes} == {"tiled", "piped", "dynamic"}


UNTRACED: dict[str, set[tuple[str, str]]] = {}
"""(function, rule) of a kernel whose MAD operand is not traced: which block each side reads is not known,
so inconclusive, even against itself (none among `kernels/`: such kernels live in `inconclusive/`)."""


@pytest.mark.parametrize("name", sorted(p.name for p in KERNELS.glob("*.py")))
def test_pv101_and_pv105_of_a_site_against_itself_prove(name):
    module = read(KERNELS / name)
    outcomes = prove_module(module, module)
    identity = [o for o in outcomes if o.rule in ("PV101", "PV105") and (o.function, o.rule) not in UNTRACED.get(name, ())]
    assert identity and all(o.verdict is Verdict.PROVED for o in identity), \
        [(o.site, o.rule, o.message) for o in identity if o.verdict is not Verdict.PROVED]


RUNTIME_DEPENDENT = {"carried_offset.py": {("carried_runtime", "PV103"), ("carried_runtime", "PV106")}}
"""Intent obligations whose conditions or K offsets depend on a value read at run time: correct only for
some values (`carried_runtime` advances by a stride from a tensor), so conditional, never proved."""


@pytest.mark.parametrize("name", sorted(p.name for p in KERNELS.glob("*.py")))
def test_every_refutation_is_expected(name):
    """Through the fixed lowering, exactly the `# expect:` lines fail."""
    source = read(KERNELS / name)
    outcomes = prove_module(source, lower_fixed(source))
    assert _refuted(outcomes) == expectations(KERNELS / name)
    assert {(o.function, o.rule) for o in outcomes if o.verdict is Verdict.INCONCLUSIVE} == UNTRACED.get(name, set())
    conditional = {(o.function, o.rule) for o in outcomes if o.verdict is Verdict.CONDITIONAL}
    assert conditional == RUNTIME_DEPENDENT.get(name, set())
