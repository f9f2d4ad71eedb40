"""Callees that are not kernels (scalar code only, tensor-level ops only, further calls) are lowered for the
simulation alone and spliced in (simcallee brief, issue 14; `pypto_verify/run/callees.py`): the static stages keep
taking only the callers for kernels, the callers match, and the twins whose callee is wrong mismatch; task ids a
helper keeps, copies and picks in an `if` have no value and are never read as one."""

from __future__ import annotations

import pytest

from stages import KERNELS, require_stages

CALLS = KERNELS / "plain_callees.py"


@pytest.fixture(scope="module")
def work():
    require_stages()
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    lowered = lower_stage(read_stage(str(CALLS)), Options())
    return {k.name: k for k in lowered.kernels}, file_callees(lowered, Options())


def _simulate(work, name: str):
    from pypto_verify.dynamic import simulate_kernel

    kernels, callees = work
    return simulate_kernel(kernels[name].source, kernels[name].lowered, callees=callees)


def test_the_static_stages_take_only_the_callers_for_kernels(work) -> None:
    kernels, callees = work
    assert sorted(kernels) == ["bump_bands", "copy_bands", "copy_bands_shifted", "copy_bands_swapped",
                               "copy_then_return", "picked_bands"]
    from pypto_verify.callees import Callee

    # every helper a kernel reaches is lowered for the simulation, the nested `_band_start` too
    for helper in ("_bump", "_copy_band_at", "_copy_band_swapped", "_copy_band_next", "_band_start"):
        assert isinstance(callees[f"call.{helper}"], Callee), callees[f"call.{helper}"]


@pytest.mark.parametrize("name", ["bump_bands", "copy_bands", "picked_bands", "copy_then_return"])
def test_a_kernel_calling_helpers_that_are_not_kernels_matches(work, name: str) -> None:
    outcome = _simulate(work, name)
    assert outcome.status == "match", outcome.message


def test_a_tensor_a_callee_reads_scalars_from_is_one_the_kernel_reads(work) -> None:
    from pypto_verify.dynamic import read_tensors

    kernels, callees = work
    assert read_tensors(kernels["picked_bands"].source) == []
    assert read_tensors(kernels["picked_bands"].source, callees) == ["picks"]


def test_a_call_in_the_return_runs_in_the_reference_too(work) -> None:
    # the PTO without the returned call's copy mismatches: the reference ran it (it did not before: a vacuous run)
    from dataclasses import replace

    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Assign, Call, Return, map_stmts

    kernels, callees = work
    lowered = kernels["copy_then_return"].lowered

    def drop(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "call._copy_band_at":
            return ()
        if isinstance(stmt, Return) and any(isinstance(v, Call) for v in stmt.values):
            return (replace(stmt, values=()),)
        return None

    twin = replace(lowered, body=map_stmts(lowered.body, drop))
    assert twin != lowered
    outcome = simulate_kernel(kernels["copy_then_return"].source, twin, callees=callees)
    assert outcome.status == "mismatch", outcome.message


def test_a_returned_tile_is_handed_back_through_gm(work) -> None:
    from pypto_verify.emit import emit_function

    kernels, callees = work
    text = emit_function(kernels["bump_bands"].lowered, callees=callees).text
    assert "call." not in text
    # `_bump`'s tile stored whole into a workspace of its declared shape, which the caller loads
    assert text.count("pto.tstore") == 2 and "8x64xf32" in text


def test_a_scalar_helper_is_spliced_where_a_callee_calls_it(work) -> None:
    from pypto_verify.emit import emit_function

    kernels, callees = work
    text = emit_function(kernels["copy_bands"].lowered, callees=callees).text
    assert "call." not in text and text.count("pto.tload") == 2 and text.count("pto.tstore") == 2


@pytest.mark.parametrize("name", ["copy_bands_swapped", "copy_bands_shifted"])
def test_a_wrong_callee_mismatches(work, name: str) -> None:
    outcome = _simulate(work, name)
    assert outcome.status == "mismatch", outcome.message


TASKS = KERNELS / "task_callees.py"


@pytest.fixture(scope="module")
def task_work():
    require_stages()
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    lowered = lower_stage(read_stage(str(TASKS)), Options())
    return {k.name: k for k in lowered.kernels}, file_callees(lowered, Options())


def test_task_ids_a_helper_copies_and_picks_have_no_value_and_are_never_read(task_work) -> None:
    # `_chain_bands` (not a kernel) keeps the last task in a task-id array, copies it and picks it in an `if`
    kernels, _ = task_work
    assert "_chain_bands" not in kernels
    outcome = _simulate(task_work, "chained_bands")
    assert outcome.status == "match", outcome.message


def test_a_launch_writing_the_other_blocks_half_through_a_helper_mismatches(task_work) -> None:
    outcome = _simulate(task_work, "chained_bands_crossed")
    assert outcome.status == "mismatch", outcome.message
