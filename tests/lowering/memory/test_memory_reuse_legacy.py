"""memory-reuse, legacy: PyPTO's accumulator if-phi coalescing reproduced with its defects.

Exact buffer assignments are asserted for the defect shapes (L0C_RULES.md, "The shapes"):
(A) the divergent literal tail phi, which coalescing repairs; (B) the post-if read, which it makes
read the seed; (C) the fragmented chain it leaves behind; (D) the IterArg blind spot of yield fixup.
"""

from __future__ import annotations

import pytest

from pypto_verify.ir import MemSpace
from pypto_verify.lowering.pass_base import LoweringError

from . import builders as b
from .helpers import acc_windows, divergent_sites, inplace_pairs, lower, only_function, windows


def legacy(module):
    return only_function(lower(module, "legacy", upto="memory-reuse"))


def test_hand_peel_coalesces_onto_the_carried_buffer() -> None:
    w = acc_windows(legacy(b.hand_peel()))
    assert {str(x) for x in w.values()} == {"mem_acc_3[0:8192]"}


def test_divergent_tail_phi_seed_is_retargeted_onto_the_main_loop_accumulator() -> None:
    # (A) The literal tail `if 128 == 0: f = matmul else: x = matmul_acc(c_main)`: InitMemRef puts `f`
    # and the phi on a fresh buffer; the coalescing moves the seed `f` onto `c_main`'s buffer (the
    # accumulate arm is in place there), and yield fixup then puts the phi there too: one buffer,
    # no error. Sound here only because nothing reads `c_main` after the `if`.
    before = acc_windows(only_function(lower(b.divergent_tail(), "legacy", upto="materialize-semantic-aliases")))
    assert before["f"] == before["c_phi"] != before["c_main"]
    w = acc_windows(legacy(b.divergent_tail()))
    assert w["f"] == w["x"] == w["c_phi"] == w["c_main"] == w["c_init"]
    assert not divergent_sites(legacy(b.divergent_tail()))


def test_post_if_read_of_the_old_accumulator_lands_on_the_seed_buffer() -> None:
    # (B) `acc = matmul_acc(prev)`; `if: seed else: yield acc`; `store(phi)`; `store(acc)`.
    fn = legacy(b.post_if_read())
    w = acc_windows(fn)
    assert w["seed"] == w["acc"] == w["prev"] == w["phi"]
    assert str(w["acc"]) == "mem_acc_8[0:8192]"
    # the post-if `store(acc)` reads mem_acc_8, which the seed path has overwritten
    stores = [s for s in fn.body if getattr(getattr(s, "value", None), "op", "") == "tile.store"]
    assert [s.value.args[0].name for s in stores] == ["phi", "acc"]


def test_fragmented_chain_each_mad_accumulates_into_a_buffer_it_never_initialised() -> None:
    # (C) three literal tail clones, no main loop: each phi resolved against pre-coalesce types.
    fn = legacy(b.fragmented_chain())
    w = acc_windows(fn)
    assert {k: str(v) for k, v in w.items()} == {
        "c_init": "mem_acc_3[0:8192]", "f0": "mem_acc_3[0:8192]", "x0": "mem_acc_3[0:8192]", "p0": "mem_acc_3[0:8192]",
        "f1": "mem_acc_8[0:8192]", "x1": "mem_acc_8[0:8192]", "p1": "mem_acc_8[0:8192]",
        "f2": "mem_acc_14[0:8192]", "x2": "mem_acc_14[0:8192]", "p2": "mem_acc_14[0:8192]"}
    pairs = {out: (str(wo), str(wi)) for out, _, wo, wi in inplace_pairs(fn)}
    assert pairs["x1"] == ("mem_acc_8[0:8192]", "mem_acc_3[0:8192]")  # x1 = matmul_acc(p0@A) declared on B
    assert pairs["x2"] == ("mem_acc_14[0:8192]", "mem_acc_8[0:8192]")  # x2 = matmul_acc(p1@B) declared on C


def test_iter_arg_phi_arm_is_skipped_and_the_phi_stays_divergent() -> None:
    # (D) `if k == 0: yield f else: yield c_iter` drained by a store: the IterArg arm is skipped by
    # yield fixup's exact-Var test, so no move, no error: the phi sits on `f`'s buffer.
    fn = legacy(b.iter_arg_phi_arm())
    w = acc_windows(fn)
    assert w["ph"] == w["f"] != w["c_iter"]
    assert divergent_sites(fn) == [f"phi ph: {sorted([str(w['c_iter']), str(w['f'])])} vs {w['ph']}"]


def test_iter_arg_loop_init_carry_is_skipped_and_stays_divergent() -> None:
    # (D) an inner loop whose init is the outer IterArg yields a fresh matmul after draining its carry:
    # MSA declines (the carry is read after the matmul), yield fixup skips the IterArg init: silent.
    fn = legacy(b.iter_arg_loop_init())
    w = acc_windows(fn)
    assert w["c_i"] == w["c_o"] == w["c_r"] != w["f"]
    assert len(divergent_sites(fn)) == 1


def test_auto_tiled_arms_in_a_tail_phi_hit_the_cannot_reconcile_error() -> None:
    # TARGET_FACTS.md, "Observed": arms that are loop results (auto-tiled inner K loops) are not
    # in-place producers, so the coalescing skips the phi and yield fixup needs an Acc->Acc move.
    m = b.auto_tiled_tail_arms()
    with pytest.raises(LoweringError) as raised:
        legacy(m)
    assert raised.value.rule == "PV001"
    assert "cannot reconcile divergent L0C accumulator buffers" in raised.value.message
    assert len(raised.value.windows) == 2


def test_swapped_arms_with_a_seed_loop_hit_the_cannot_reconcile_error() -> None:
    with pytest.raises(LoweringError) as raised:
        legacy(b.swapped_arms())
    assert raised.value.rule == "PV001" and "cannot reconcile" in raised.value.message


def test_create_seeded_tail_is_coalesced_onto_the_create() -> None:
    w = acc_windows(legacy(b.create_seeded_tail()))
    assert w["f"] == w["x"] == w["acc"] == w["phi"]


def test_vec_phi_mismatch_gets_a_move_not_an_error() -> None:
    m = b.vec_phi_move()
    fn = legacy(m)
    w = windows(fn, MemSpace.Vec)
    moved = [n for n in w if n.endswith("_mv")]
    assert moved == ["prev_mv"] and w["prev_mv"] == w["phi"] == w["seed"]
