"""Functions of several steps, some of them `pl.spmd` launches: each launch is a `pto.launch` step, its blocks run
one after the other on cores of their own, the orchestration's steps between them (issue 14, item 2;
docs/pto-subset.md "Launches")."""

from __future__ import annotations

import pytest

from stages import KERNELS, lowered_kernels

ORCHESTRATIONS = KERNELS / "orchestrations.py"


@pytest.fixture(scope="module")
def kernels():
    return lowered_kernels(ORCHESTRATIONS)


def _simulate(kernel):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered)


def test_each_spmd_step_of_an_orchestration_is_a_launch_step(kernels) -> None:
    from pypto_verify.emit import emit_function

    text = emit_function(kernels["scale_then_rotate"].lowered).text
    assert "pto.block_dim" not in text.splitlines()[0]
    assert text.count("pto.launch %c4_index {") == 2 and text.count("pto.get_block_idx") == 2


@pytest.mark.parametrize("name", ["scale_then_rotate", "rows_of_count", "fenced_steps", "staged_head"])
def test_an_orchestration_of_launch_steps_simulates_and_matches(kernels, name: str) -> None:
    outcome = _simulate(kernels[name])
    assert outcome.status == "match", outcome.message


def test_a_launch_step_reading_a_band_its_other_block_has_not_written_yet_mismatches(kernels) -> None:
    outcome = _simulate(kernels["scale_then_rotate_fused"])
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [0, 0]
    assert "the order the blocks of its launches run in (a race between blocks)" in outcome.message


def test_a_launch_step_writing_overlapping_bands_mismatches(kernels) -> None:
    outcome = _simulate(kernels["scale_then_rotate_shifted"])
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [12, 0]


def test_a_task_id_used_as_a_number_is_skipped_with_its_reason(kernels) -> None:
    outcome = _simulate(kernels["dummy_as_number"])
    assert outcome.status == "skipped"
    assert outcome.reason == ("emit: `fence` is a task id (`system.task_dummy`): it orders tasks and has no value "
                              "in the PTO subset")


def test_a_tile_read_across_a_launch_step_is_skipped_with_its_reason() -> None:
    from pypto_verify.emit import EmitError, emit_function
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    source = ORCHESTRATIONS.read_text().replace(
        '''    head = pl.load(y, [0, 0], [BAND, COLS])
    y = pl.store(pl.mul(head, 2.0), [0, 0], y)
    return y


@pl.jit
def scale_then_rotate_fused''', '''    y = pl.store(head, [0, 0], y)
    return y


@pl.jit
def scale_then_rotate_fused''', 1).replace(
        '''    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.spmd(BLOCKS, name_hint="scale") as scale_tid:''', '''    staged = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    head = pl.load(x, [0, 0], [BAND, COLS])
    with pl.spmd(BLOCKS, name_hint="scale") as scale_tid:''', 1)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "across.py"
        path.write_text(source)
        work = lower_stage(read_stage(str(path)), Options())
    lowered = next(k for k in work.kernels if k.name == "scale_then_rotate").lowered
    with pytest.raises(EmitError, match="tile `head` is read across a `pl.spmd` step"):
        emit_function(lowered)
