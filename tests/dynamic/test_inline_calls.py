"""Calls of other functions spliced into the simulation, and kernels whose launcher gives their block index
simulated as launches of a sample block count (the siminline brief, items 1 and 2; `pypto_verify/callees.py`)."""

from __future__ import annotations

import pytest

from stages import KERNELS, require_stages

CALLS = KERNELS / "inline_calls.py"


@pytest.fixture(scope="module")
def work():
    require_stages()
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    lowered = lower_stage(read_stage(str(CALLS)), Options())
    return {k.name: k for k in lowered.kernels}, file_callees(lowered, Options())


def _simulate(work, name: str, **sizes: int):
    from pypto_verify.dynamic import simulate_kernel

    kernels, callees = work
    return simulate_kernel(kernels[name].source, kernels[name].lowered, callees=callees, sizes=sizes)


def test_a_callee_is_spliced_into_each_block_of_the_callers_launch(work) -> None:
    from pypto_verify.emit import emit_function

    kernels, callees = work
    text = emit_function(kernels["shift_bands"].lowered, callees=callees).text
    assert "pto.block_dim = 4}" in text.splitlines()[0] and "call." not in text
    # the callee's load and store, at the caller's block index
    assert text.count("pto.tload") == 2 and text.count("pto.tstore") == 2
    assert _simulate(work, "shift_bands").status == "match"


@pytest.mark.parametrize("name", ["scale_then_shift", "centre_all"])
def test_a_callee_by_keyword_or_imported_matches(work, name: str) -> None:
    outcome = _simulate(work, name)
    assert outcome.status == "match", outcome.message


def test_a_call_of_an_imported_function_resolves_to_its_module() -> None:
    require_stages()
    from pypto_verify.callees import Callee
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    callees = file_callees(lower_stage(read_stage(str(CALLS)), Options()), Options())
    imported = callees["extern.centre_band"]
    assert isinstance(imported, Callee) and imported.lowered.name == "centre_band"


def test_callees_picked_per_block_bind_their_sizes_to_the_arguments(work) -> None:
    outcome = _simulate(work, "split_tail")
    assert (outcome.status, outcome.message) == ("match", "match at TOKENS=16; TOKENS=20")


@pytest.mark.parametrize("name, index", [("shift_bands_overlap", [4, 0]), ("shift_bands_aliased", [0, 0])])
def test_a_callee_writing_a_wrong_band_or_bound_to_its_own_input_mismatches(work, name: str, index) -> None:
    outcome = _simulate(work, name)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == index
    assert "a race between blocks" in outcome.message


def test_without_its_callees_a_call_is_not_simulated(work) -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernels, _ = work
    outcome = simulate_kernel(kernels["shift_bands"].source, kernels["shift_bands"].lowered)
    assert outcome.status == "skipped" and "`call._shift_band` has no instruction" in outcome.reason


def test_a_tile_read_across_a_call_is_not_simulated_and_says_why(work) -> None:
    outcome = _simulate(work, "tile_across_call")
    assert outcome.status == "skipped"
    assert "tile `kept` is read across the call of `_shift_band`" in outcome.reason


def test_a_kernel_whose_launcher_gives_its_block_index_runs_as_a_launch_of_two_blocks(work) -> None:
    from pypto_verify.emit import emit_function

    kernels, _ = work
    text = emit_function(kernels["_shift_band"].lowered, blocks=2).text
    assert "pto.block_dim = 2}" in text.splitlines()[0] and "pto.get_block_idx" in text
    outcome = _simulate(work, "_shift_band")
    assert (outcome.status, outcome.message) == ("match", "match at blocks=2")
    assert _simulate(work, "_shift_band", blocks=4).message == "match at blocks=4"


def test_a_block_launched_kernel_writing_a_wrong_band_mismatches(work) -> None:
    outcome = _simulate(work, "_shift_band_short")
    assert outcome.status == "mismatch" and outcome.message.startswith("at blocks=2: `y`[4, 0]")


def test_sim_bind_blocks_is_checked(tmp_path) -> None:
    require_stages()
    import click

    from pypto_verify.cli import parse_sim_binds

    assert parse_sim_binds(("blocks=3",), [str(CALLS)]) == (("blocks", 3),)
    with pytest.raises(click.BadParameter, match="a launch has at least 1 block"):
        parse_sim_binds(("blocks=0",), [str(CALLS)])


def test_a_block_index_outside_the_launches_of_a_function_with_launches_is_not_simulated(work) -> None:
    from pypto_verify.callees import block_launched

    kernels, callees = work
    assert not block_launched(kernels["launch_then_call"].source, callees)
    assert block_launched(kernels["_shift_band"].source, callees)
    outcome = _simulate(work, "launch_then_call")
    assert outcome.status == "skipped" and "`tile.get_block_idx` outside a `pl.spmd` loop" in outcome.reason


SAMPLES = KERNELS / "block_samples.py"


@pytest.fixture(scope="module")
def samples():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    return {k.name: k for k in lower_stage(read_stage(str(SAMPLES)), Options()).kernels}


def test_a_block_launched_kernel_over_a_dynamic_size_runs_enough_blocks_to_cover_each_sample(samples) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.sizes import block_extent, sample_bindings

    rows = samples["_gain_token_rows"]
    assert block_extent(rows.source, "TOKENS") == 8
    assert sample_bindings(rows.source, launched=True) == [{"TOKENS": 16, "blocks": 2}, {"TOKENS": 20, "blocks": 3}]
    outcome = simulate_kernel(rows.source, rows.lowered)
    assert (outcome.status, outcome.message) == ("match", "match at TOKENS=16, blocks=2; TOKENS=20, blocks=3")
    # a size the user binds gets the blocks it needs; a block count the user binds is kept
    assert simulate_kernel(rows.source, rows.lowered, sizes={"TOKENS": 33}).message == "match at TOKENS=33, blocks=5"
    assert simulate_kernel(rows.source, rows.lowered, sizes={"blocks": 1}).message == \
        "match at TOKENS=16, blocks=1; TOKENS=20, blocks=1"


def test_block_windows_of_two_heights_keep_the_sample_block_count_and_say_why_not_simulated(samples) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.sizes import block_extent, sample_bindings

    halves = samples["_gain_token_halves"]
    assert block_extent(halves.source, "TOKENS") is None
    assert sample_bindings(halves.source, launched=True) == [{"TOKENS": 2, "blocks": 2}, {"TOKENS": 3, "blocks": 2}]
    outcome = simulate_kernel(halves.source, halves.lowered)
    assert outcome.status == "skipped"
    assert outcome.reason.startswith("at TOKENS=2, blocks=2: reference: `tile.load`: window offsets [0, 0] sizes "
                                     "[4, 128] exceed the shape [2, 128]")
