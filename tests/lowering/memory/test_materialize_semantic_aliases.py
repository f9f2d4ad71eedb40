"""materialize-semantic-aliases: each loop carry's buffer pushed down its yield's producer chain."""

from __future__ import annotations

from . import builders as b
from .helpers import acc_windows, lower, only_function


def msa(module, mode: str = "legacy"):
    return only_function(lower(module, mode, upto="materialize-semantic-aliases"))


def test_seed_and_phi_of_a_carried_if_move_onto_the_carry() -> None:
    before = acc_windows(only_function(lower(b.hand_peel(), "legacy", upto="init-memref")))
    after = acc_windows(msa(b.hand_peel()))
    assert before["f"] == before["ph"] != before["c_iter"]
    assert after["f"] == after["ph"] == after["x"] == after["c_iter"] == after["c"]


def test_pipeline_clones_chain_through_both_phis() -> None:
    w = acc_windows(msa(b.divergent_tail()))
    loop_values = ["c_init", "c_iter", "f_0", "x_0", "p_0", "f_1", "x_1", "p_1", "c_main"]
    assert len({w[n] for n in loop_values}) == 1
    assert w["f"] == w["c_phi"] != w["c_main"]  # the tail phi is outside every loop: untouched


def test_producer_is_not_moved_when_the_carry_is_read_after_it() -> None:
    w = acc_windows(msa(b.iter_arg_loop_init()))
    assert w["f"] != w["c_i"]


def test_partial_plan_of_a_declined_phi_is_kept() -> None:
    # the then arm's seed can move onto the carry, the else arm's cannot (the carry is drained after
    # it): PyPTO's RetypeApplier still applies the then arm's planned retype.
    m = b.partial_plan()
    w = acc_windows(msa(m))
    assert w["f"] == w["c_iter"]
    assert w["g"] != w["c_iter"] and w["ph"] != w["c_iter"]


def test_modes_agree() -> None:
    for shape in ("hand_peel", "divergent_tail", "predicated_loop", "two_accumulators", "iter_arg_loop_init"):
        module = getattr(b, shape)()
        assert acc_windows(msa(module, "legacy")) == acc_windows(msa(module, "fixed")), shape
