"""memory-reuse, fixed: no coalescing; every Acc phi and carry on one window or a PV001 / PV002.

The fixed front passes emit `matmul_acc(..., init_cond=(ko == 0))` bodies and a bias peel: those lower
with every `matmul_acc` on its input's window and every carry on one window. A seed / accumulate phi
whose accumulator nothing reads after the seed (shapes A and C) lowers with the seed on the chain's
window; the other legacy phi shapes are refused with both windows named. A post-if read of the old
accumulator (shape B) is PV001, not PV004: the fixed pipeline never coalesces unsoundly, so nothing
is clobbered — the phi is divergent, and no Acc->Acc copy could make it one.
"""

from __future__ import annotations

import pytest

from pypto_verify.lowering.pass_base import LoweringError

from . import builders as b
from .helpers import acc_windows, divergent_sites, inplace_pairs, lower, only_function


def fixed(module):
    return only_function(lower(module, "fixed", upto="memory-reuse"))


def refusal(module) -> LoweringError:
    with pytest.raises(LoweringError) as raised:
        fixed(module)
    return raised.value


@pytest.mark.parametrize("shape", ["predicated_loop", "bias_peel", "two_accumulators", "hand_peel", "fresh_arms"])
def test_valid_kernels_keep_every_chain_on_one_window(shape: str) -> None:
    fn = fixed(getattr(b, shape)())
    assert divergent_sites(fn) == []
    assert all(wo == wi for _, _, wo, wi in inplace_pairs(fn))


def test_predicated_loop_with_literal_tail_is_one_buffer() -> None:
    w = acc_windows(fixed(b.predicated_loop()))
    assert len(set(w.values())) == 1


def test_fresh_arms_phi_is_aligned_onto_the_phi_window() -> None:
    before = acc_windows(only_function(lower(b.fresh_arms(), "fixed", upto="materialize-semantic-aliases")))
    assert before["p"] != before["q"]
    w = acc_windows(fixed(b.fresh_arms()))
    assert w["q"] == w["p"] == w["phi"]


def test_accumulate_arm_on_an_uninitialised_create_is_aligned_onto_the_phi_window() -> None:
    # the accumulate arm's only producer chain is `x` <- `acc` (a tile.create read by nothing else):
    # both move onto the seed's window, where InitMemRef put the phi
    fn = fixed(b.create_seeded_tail())
    w = acc_windows(fn)
    assert w["acc"] == w["x"] == w["f"] == w["phi"]
    assert divergent_sites(fn) == [] and all(wo == wi for _, _, wo, wi in inplace_pairs(fn))


def test_swapped_arms_seed_loop_is_aligned_onto_the_carried_phi() -> None:
    # `if kb != 0: accumulate else: auto-tiled seed loop`: the phi is on the carry's window (the then
    # arm's); the seed arm's chain (loop result <- matmul_acc <- iter_arg <- fresh create, all inside
    # the arm) moves there. Legacy cannot: loop-result arms are not coalesced (test_memory_reuse_legacy).
    fn = fixed(b.swapped_arms())
    w = acc_windows(fn)
    assert len({w[n] for n in ("c_init", "c_iter", "x", "fresh", "c_in", "y", "seeded", "ph", "c")}) == 1
    assert divergent_sites(fn) == []


def test_divergent_tail_phi_seed_moves_onto_the_main_loop_window() -> None:
    # (A) `if 128 == 0: f = matmul else: x = matmul_acc(c_main)`, nothing reading `c_main` after the
    # if: the seed is moved onto the main loop's window (acc_alignment.align_seed_onto_chain)
    fn = fixed(b.divergent_tail())
    w = acc_windows(fn)
    assert w["f"] == w["x"] == w["c_phi"] == w["c_main"] == w["c_init"]
    assert divergent_sites(fn) == [] and all(wo == wi for _, _, wo, wi in inplace_pairs(fn))


def test_divergent_tail_phi_reports_pv001_with_both_windows() -> None:
    # the same tail with `c_main` stored after the if: the seed may not overwrite it
    module = b.divergent_tail(read_main_after=True)
    error = refusal(module)
    assert error.rule == "PV001"
    assert [str(w) for w in error.windows] == ["mem_acc_22[0:8192]", "mem_acc_4[0:8192]"]
    # the buffers are the lowering's: the byte range first, the generated name after it (issue 16, item 11)
    assert ("phi `c_phi` arms on bytes [0, 8192) of mem_acc_22 and bytes [0, 8192) of mem_acc_4 (seed `f` line"
            in error.message)
    # `c_main`, the value the accumulate arm accumulates into in place, is stored after the if: the
    # advice says so (predicating the seed would clobber it just the same)
    late_store = only_function(module).body[-2]
    assert "accumulate `x` line" in error.message and "predicate the seed" not in error.message
    assert error.message.endswith(f"`c_main` is still read after the if (line {late_store.span.line}), so the "
                                  "seed cannot take its buffer; drain or copy it before re-seeding")
    assert [n.message.split()[0] for n in error.notes] == ["`f`", "`x`", "`c_main`"]
    assert error.span.line == _the_if(module).span.line


def _the_if(module):
    from pypto_verify.ir import If, walk_stmts

    return [s for s in walk_stmts(only_function(module).body) if isinstance(s, If)][-1]


def test_post_if_read_is_a_divergent_phi_not_a_clobbered_read() -> None:
    module = b.post_if_read()
    error = refusal(module)
    assert error.rule == "PV001"
    assert error.values == ("phi", "seed", "acc")
    assert len({str(w) for w in error.windows}) == 2
    late_store = only_function(module).body[-2]
    assert f"`acc` is still read after the if (line {late_store.span.line})" in error.message
    assert "predicate the seed" not in error.message
    assert error.span.line == _the_if(module).span.line  # at the `if`, not at a yield


def test_a_divergent_phi_without_a_post_if_read_keeps_the_generic_advice() -> None:
    module = b.partial_plan()  # both arms seed; nothing on the other arm's window is read after the if
    error = refusal(module)
    assert error.rule == "PV001" and error.message.endswith("predicate the seed with init_cond")
    assert "still read after the if" not in error.message
    assert error.span.line == _the_if(module).span.line


def test_fragmented_chain_shape_lowers_onto_one_window() -> None:
    # (C) clone 0 accumulates onto an uninitialised `tile.create` only: its chain moves onto the phi
    # window; clones 1 and 2 accumulate onto the previous phi, which nothing else reads: their seeds
    # move onto that window (legacy instead leaves one buffer per block, test_memory_reuse_legacy)
    fn = fixed(b.fragmented_chain())
    assert len(set(acc_windows(fn).values())) == 1
    assert divergent_sites(fn) == [] and all(wo == wi for _, _, wo, wi in inplace_pairs(fn))


def test_iter_arg_phi_arm_is_read_through_var_like_and_refused() -> None:
    error = refusal(b.iter_arg_phi_arm())
    assert error.rule == "PV001" and "iter_arg `c_iter`" in error.message


def test_iter_arg_loop_init_carry_is_refused_as_pv002() -> None:
    error = refusal(b.iter_arg_loop_init())
    assert error.rule == "PV002"
    assert "loop `j` carries `c_i`" in error.message and "seed `f`" in error.message


def test_alignment_is_refused_when_the_target_window_is_read_later() -> None:
    # both arms fresh, but the then-arm value's window is read again after the if by `keep`
    m = b._with_flag([
        *b.operands("", 0),
        b.matmul("keep", ""),
        b.branch(b.Compare("<", b.v("flag"), b.c(1)),
                 [b.matmul_acc("p", "keep", ""), b.yield_("p")],
                 [b.matmul("q", ""), b.yield_("q")],
                 [("phi", b.FP32_ACC)]),
        b.store("phi"),
        b.store("keep", "out1"),
    ])
    assert refusal(m).rule == "PV001"


def fixup_only(module):
    """Yield fixup alone on the MSA output: the packer (which may already merge the arms of a phi
    family) is skipped, so the aligner itself is what decides."""
    from pypto_verify.lowering.memory.yield_fixup import yield_fixup
    from pypto_verify.lowering.pass_base import FIXED_BEHAVIOURS

    return yield_fixup(only_function(lower(module, "fixed", upto="materialize-semantic-aliases")), FIXED_BEHAVIOURS)


def test_aligner_moves_a_fresh_else_arm_when_nothing_else_reads_it() -> None:
    w = acc_windows(fixup_only(b.fresh_arms()))
    assert w["q"] == w["p"] == w["phi"]


def test_aligner_refuses_an_arm_value_with_another_reader() -> None:
    m = b._with_flag([
        *b.operands("", 0),
        b.branch(b.Compare("<", b.v("flag"), b.c(1)),
                 [b.matmul("p", ""), b.yield_("p")],
                 [b.matmul("q", ""), b.store("q", "out1"), b.yield_("q")],
                 [("phi", b.FP32_ACC)]),
        b.store("phi"),
    ])
    with pytest.raises(LoweringError) as raised:
        fixup_only(m)
    assert raised.value.rule == "PV001"


def test_aligner_refuses_a_chain_rooted_outside_the_arm() -> None:
    m = b._with_flag([
        *b.operands("", 0),
        b.matmul("outside", ""),
        b.branch(b.Compare("<", b.v("flag"), b.c(1)),
                 [b.matmul("p", ""), b.yield_("p")],
                 [b.matmul_acc("q", "outside", ""), b.yield_("q")],
                 [("phi", b.FP32_ACC)]),
        b.store("phi"),
    ])
    with pytest.raises(LoweringError) as raised:
        fixup_only(m)
    assert raised.value.rule == "PV001" and "accumulate `q`" in raised.value.message
