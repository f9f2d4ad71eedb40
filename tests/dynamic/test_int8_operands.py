"""The reference holds a window of an int8 input that only matmuls read as the input's own int8 view (not
widened to int64): the same exact products, found by one walk of the kernel's names (`reference._uses`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from stages import KERNELS, lowered_kernels

from pypto_verify import reference
from pypto_verify.ir import Assign, BinOp, Call, ListExpr, Var, map_stmts

OPERANDS = KERNELS / "int8_operands.py"


def _inputs(with_shift: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (16, 256), dtype=np.int8)
    x[0, :2] = -128  # the int8 extreme: -128 + -128 only fits a wider type
    inputs = {"x": x, "w": rng.integers(-128, 128, (256, 128), dtype=np.int8),
              "y": np.zeros((16, 128), np.int32)}
    if with_shift:
        inputs["s"] = np.zeros((16, 256), np.int32)
    return inputs


def _slices(fn) -> dict[str, Call]:
    found: dict[str, Call] = {}

    def visit(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.slice":
            found[stmt.target.name] = stmt.value
        return None

    map_stmts(fn.body, visit)
    return found


def test_windows_only_matmuls_read_are_held_as_int8() -> None:
    kernel = lowered_kernels(OPERANDS)["i8_proj"]
    slices = _slices(kernel.source)
    narrow = reference._uses(kernel.source)[1]
    assert {name.split("_")[0] for name, call in slices.items() if id(call) in narrow} == {"xa", "wb"}
    inputs = _inputs(False)
    result = reference.run_reference(kernel.source, inputs)
    expected = inputs["x"].astype(np.int64) @ inputs["w"].astype(np.int64)
    np.testing.assert_array_equal(result.outputs["y"], expected)


def test_a_window_another_op_reads_is_widened() -> None:
    kernel = lowered_kernels(OPERANDS)["i8_proj_shift"]
    slices = _slices(kernel.source)
    narrow = reference._uses(kernel.source)[1]
    held = {name.split("_")[0] for name, call in slices.items() if id(call) in narrow}
    assert held == {"wb"}  # xa feeds `pl.add` too
    inputs = _inputs(True)
    result = reference.run_reference(kernel.source, inputs)
    x = inputs["x"].astype(np.int64)
    np.testing.assert_array_equal(result.outputs["y"], x @ inputs["w"].astype(np.int64))
    # the add of the widened window, wrapped to its int8 dtype, then cast
    np.testing.assert_array_equal(result.outputs["s"], ((x + x + 128) % 256) - 128)


def test_the_held_windows_give_the_widened_run_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = lowered_kernels(OPERANDS)["i8_proj"]
    inputs = _inputs(False)
    held = reference.run_reference(kernel.source, inputs)
    uses = reference._uses
    monkeypatch.setattr(reference, "_uses", lambda fn: (uses(fn)[0], frozenset()))
    widened = reference.run_reference(kernel.source, inputs)
    assert held.outputs["y"].dtype == widened.outputs["y"].dtype
    np.testing.assert_array_equal(held.outputs["y"], widened.outputs["y"])


def test_the_projection_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = lowered_kernels(OPERANDS)["i8_proj"]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def _stuck_weights(fn):
    """*fn* with its weight window always at rows 0..128 (the first K block): the reference then sums the first
    block twice."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.slice" \
                and stmt.target.name.startswith("wb"):
            offsets = stmt.value.args[2]
            assert isinstance(offsets, ListExpr) and isinstance(offsets.items[0], (Var, BinOp))
            hits.append(stmt)
            stuck = ListExpr((offsets.items[1], offsets.items[1]))
            return (replace(stmt, value=replace(stmt.value, args=(*stmt.value.args[:2], stuck))),)
        return None

    wrong = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1
    return wrong


def test_a_source_reading_the_wrong_weight_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = lowered_kernels(OPERANDS)["i8_proj"]
    wrong = _stuck_weights(kernel.source)
    assert reference._uses(wrong)[1]  # the mutated window is held as int8 too
    outcome = simulate_kernel(wrong, kernel.lowered)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
