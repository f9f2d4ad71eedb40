"""`pl.full` tensors the lowering keeps in GM (issue 14 item 3): a workspace filled where the op stands by a Vec
tile of the value (`texpands`, placed after every Vec window) stored over it a band of rows at a time; and a GM
tensor assembled into another, copied through a Vec tile band by band (docs/pto-subset.md "Tensors in GM")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, lowered_kernels

from pypto_verify.ir import Assign, Call, Const, ListExpr, map_stmts

FILL = KERNELS / "gm_fill.py"


def _kernel(name: str):
    return lowered_kernels(FILL)[name]


def _refilled(fn, value: float):
    """*fn* with its one GM `tensor.full` filling *value* instead."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.full":
            hits.append(stmt)
            kwargs = tuple((k, v if k != "value" else replace(v, value=value)) for k, v in stmt.value.kwargs)
            return (replace(stmt, value=replace(stmt.value, kwargs=kwargs)),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


def _simulate(kernel, lowered=None):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered if lowered is None else lowered)


@pytest.mark.parametrize("name", ["padded_rows_fill", "plane_fill", "striped_copy"])
def test_a_gm_fill_simulates_and_matches(name: str) -> None:
    outcome = _simulate(_kernel(name))
    assert outcome.status == "match", outcome.message


def test_a_gm_fill_is_a_vec_fill_stored_band_by_band_over_a_workspace() -> None:
    from pypto_verify.emit import emit_function

    emitted = emit_function(_kernel("plane_fill").lowered)
    assert [(a.kind, a.param, a.shape) for a in emitted.args if a.kind == "workspace"] == [
        ("workspace", "stage", (2, 16, 256))]
    lines = [line.strip() for line in emitted.text.splitlines()]
    assert "pto.texpands ins(%cst_f32 : f32) outs(%stage_fill : !pto.tile_buf<loc=vec, dtype=bf16, rows=16, " \
           "cols=256, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)" in lines
    assert "scf.for %stage_row = %c0_index to %c32_index step %c16_index {" in lines  # two bands of 16 rows


def test_a_gm_fill_of_the_wrong_value_mismatches() -> None:
    kernel = _kernel("padded_rows_fill")
    outcome = _simulate(kernel, _refilled(kernel.lowered, 0.0))
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [8, 0], outcome.message
    assert (outcome.first_difference["sim"], outcome.first_difference["reference"]) == (1.0, -1.5)


def test_a_gm_tensor_assembled_into_another_is_copied_through_vec() -> None:
    from pypto_verify.emit import emit

    text = emit(_kernel("striped_copy").lowered)
    lines = [line.strip() for line in text.splitlines()]
    (copy,) = [i for i, line in enumerate(lines) if line.startswith("scf.for %stage_row_1 =")]
    body = lines[copy + 1:copy + 6]
    for line, op in zip(body, ("pto.partition_view %stage_view", "pto.tload", "arith.addi", "pto.partition_view %y_view",
                               "pto.tstore ins(%stage_band")):
        assert op in line, (op, body)


def test_a_gm_tensor_assembled_at_the_wrong_row_mismatches() -> None:
    kernel = _kernel("striped_copy")
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.assemble":
            hits.append(stmt)
            return (replace(stmt, value=replace(stmt.value, args=(
                *stmt.value.args[:2], ListExpr((Const(32), Const(0)))))),)
        return None

    wrong = replace(kernel.lowered, body=map_stmts(kernel.lowered.body, stmt_fn))
    assert len(hits) == 1
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [16, 0], outcome.message


SHIFTED = '''
import pypto.language as pl

ROWS = 64
COLS = 64


@pl.jit
def shifted_copy(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[2 * ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="shifted_copy"):
        y[0:ROWS, :] = pl.tile.load(x, [0, 0], [ROWS, COLS])
    top = y[0:ROWS, :]
    y = pl.assemble(y, top, [4, 0])
    return y
'''
"""`y`'s first 64 rows assembled into `y` four rows down: copied band by band, a band would overwrite rows a later
band still reads."""


def test_a_gm_tensor_assembled_into_its_own_storage_is_skipped_with_its_reason(tmp_path) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    path = tmp_path / "shifted.py"
    path.write_text(SHIFTED)
    (kernel,) = lower_stage(read_stage(str(path)), Options()).kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped", outcome.message
    assert outcome.reason == "emit: tensor.assemble of a view of `y` into `y` has no PTO form in the subset"
