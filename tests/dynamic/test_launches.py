"""Kernels that read their block index, simulated as launches: every block over one GM, against the reference
running the blocks of `pl.spmd` in turn (issue 14, item 2; docs/pto-subset.md "Launches")."""

from __future__ import annotations

import pytest

from stages import KERNELS, lowered_kernels

LAUNCHES = KERNELS / "block_launches.py"


@pytest.fixture(scope="module")
def kernels():
    return lowered_kernels(LAUNCHES)


def _simulate(kernel):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered)


@pytest.mark.parametrize("name, block", [("band_scale", "band_tid"), ("band_rows", "rb"), ("band_of_dim", "band_tid")])
def test_a_launch_is_emitted_with_its_block_count_and_block_index(kernels, name: str, block: str) -> None:
    from pypto_verify.emit import emit_function

    text = emit_function(kernels[name].lowered).text
    assert "pto.block_dim = 4}" in text.splitlines()[0]
    assert f"%{block}_block = pto.get_block_idx" in text
    assert f"%{block} = arith.index_cast %{block}_block : i64 to index" in text
    assert "scf.for" not in text  # the launch is the function, once per block


@pytest.mark.parametrize("name", ["band_scale", "band_rows", "band_proj", "band_of_dim", "rotate_bands"])
def test_every_block_of_a_launch_is_simulated_and_matches(kernels, name: str) -> None:
    outcome = _simulate(kernels[name])
    assert outcome.status == "match", outcome.message


def test_a_launch_sized_by_a_dynamic_token_count_matches_at_its_samples(kernels) -> None:
    outcome = _simulate(kernels["token_norm"])
    assert (outcome.status, outcome.message) == ("match", "match at TOKENS=16")


def test_blocks_writing_one_row_different_values_mismatch(kernels) -> None:
    outcome = _simulate(kernels["band_scale_overlap"])
    assert outcome.status == "mismatch"
    # rows 12..15 of each band: written by two blocks, the last block to run wins
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [12, 0]


def test_a_block_reading_what_another_writes_mismatches(kernels) -> None:
    outcome = _simulate(kernels["band_chain"])
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [32, 0]


def test_a_launch_size_known_only_at_run_time_is_a_launch_step_that_matches(kernels) -> None:
    from pypto_verify.emit import emit_function

    text = emit_function(kernels["blocks_at_run_time"].lowered).text
    assert "pto.block_dim" not in text and "pto.launch %arg2 {" in text
    assert _simulate(kernels["blocks_at_run_time"]).status == "match"


def test_the_block_index_of_one_of_several_steps_reads_its_launch(kernels) -> None:
    from pypto_verify.emit import emit_function

    assert emit_function(kernels["two_launches"].lowered).text.count("pto.launch") == 2
    assert _simulate(kernels["two_launches"]).status == "match"


def test_a_store_into_another_ranks_window_is_skipped_with_its_reason(kernels) -> None:
    outcome = _simulate(kernels["push_band"])
    assert outcome.status == "skipped"
    # its peer is a scalar parameter, not a loop over the ranks: how many ranks a run has is not said
    assert outcome.reason == ("the number of ranks is not known: the peer of `distributed.tile.remote_store` "
                              "(line 186) is not the variable of a loop over the ranks")


def test_a_view_of_a_gm_tensor_may_precede_a_launch(kernels) -> None:
    # recomputing a view changes nothing: the loop after it is still all of the function's work
    from pypto_verify.emit.pto import _launch

    lowered = kernels["band_of_view"].lowered
    assert any(getattr(s, "value", None) is not None and getattr(s.value, "op", "") == "tensor.reshape"
               for s in lowered.body)
    assert _launch(lowered) is not None and _launch(kernels["two_launches"].lowered) is None


def test_a_barrier_is_emitted_where_the_source_waits(kernels) -> None:
    from pypto_verify.emit import emit_function

    text = emit_function(kernels["rotate_bands"].lowered).text
    assert text.count("pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>") == 1


def test_reading_a_neighbours_band_without_a_barrier_mismatches(kernels) -> None:
    outcome = _simulate(kernels["rotate_bands_unsynced"])
    assert outcome.status == "mismatch" and "(a race between blocks)" in outcome.message


def test_a_barrier_inside_a_loop_is_skipped_with_its_reason(kernels) -> None:
    outcome = _simulate(kernels["barrier_in_loop"])
    assert outcome.reason == ("emit: `pl.system.syncall` not at the top level of a `pl.spmd` launch: the "
                              "simulation splits a launch into phases only there")


@pytest.mark.parametrize("name", ["band_scale_overlap", "band_chain", "rotate_bands_unsynced"])
def test_a_mismatch_that_is_the_order_of_the_blocks_says_so(kernels, name: str) -> None:
    outcome = _simulate(kernels[name])
    assert outcome.message.endswith("(a race between blocks): run first to last, as the reference runs them, "
                                    "they match")


def test_a_launch_wrong_in_every_order_is_not_called_a_race(kernels) -> None:
    from dataclasses import replace

    from pypto_verify.dynamic import prepare_run, run_and_compare

    run = prepare_run(kernels["band_scale"].source, kernels["band_scale"].lowered)
    assert run.text.count("arith.constant 2.0 : f32") == 1
    outcome = run_and_compare(replace(run, text=run.text.replace("arith.constant 2.0 : f32", "arith.constant 3.0 : f32")))
    assert outcome.status == "mismatch" and "race" not in outcome.message
