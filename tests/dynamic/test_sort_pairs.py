"""`pl.sort32` / `pl.mrgsort` (format 1) and the P0101 / P1010 mask gathers (PyPTO's TSORT32, TMRGSORT and row
TGATHER): rows ranked by a kernel of ours simulate and match, and mutated twins — every index one too high, the
blocks left unmerged — mismatch; the index lanes are compared as integers, exactly."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, Var

RANKED = KERNELS / "ranked_scores.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(RANKED)), Options()).kernels
    return kernel


def _mutated(fn, change):
    from pypto_verify.ir import map_stmts

    def edit(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
            value = change(stmt.value)
            if value is not None:
                return (replace(stmt, value=value),)
        return None
    return replace(fn, body=map_stmts(fn.body, edit))


def test_ranked_rows_emit_the_sort_instructions_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    for mnemonic in ("pto.tsort32 ins(%row, %cols", "pto.tmrgsort ins(%pairs, %c64_i32",
                     "{maskPattern = #pto.mask_pattern<P0101>}", "{maskPattern = #pto.mask_pattern<P1010>}"):
        assert mnemonic in text, mnemonic
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_indices_one_too_high_mismatch_in_the_order_only() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    shifted = _mutated(kernel.lowered, lambda call: replace(call, args=(Const(1), *call.args[1:]))
                       if call.op == "tile.arange" else None)
    outcome = simulate_kernel(kernel.source, shifted)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "order", outcome.message


def test_unmerged_blocks_mismatch() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    unmerged = _mutated(kernel.lowered, lambda call: Var(call.args[0].name) if call.op == "tile.mrgsort" else None)
    outcome = simulate_kernel(kernel.source, unmerged)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "ranked", outcome.message


def test_the_reference_ranks_stably_and_refuses_pairs_read_as_floats() -> None:
    from pypto_verify.ir import Function
    from pypto_verify.reference import ReferenceError, run_reference

    kernel = _kernel()
    assert isinstance(kernel.source, Function)
    scores = (np.arange(4 * 128).reshape(4, 128) * 7 % 5 * 0.25).astype(np.float32)  # ties keep column order
    inputs = {"x": np.zeros((4, 64)), "w": np.zeros((128, 64)), "scores": scores, "logits": np.zeros((4, 128)),
              "ranked": np.zeros((4, 128)), "order": np.zeros((4, 128))}
    result = run_reference(kernel.source, inputs)
    expected = np.argsort(-scores, axis=1, kind="stable")
    np.testing.assert_array_equal(result.outputs["order"], expected)
    np.testing.assert_array_equal(result.outputs["ranked"], np.take_along_axis(scores, expected, axis=1))
    pairs_stored = _mutated(kernel.source, lambda call: replace(call, args=(
        call.args[0], Var(call.args[1].args[0].name), *call.args[2:])) if call.op == "tensor.assemble"
        and isinstance(call.args[1], Call) else None)  # the pairs themselves stored as floats
    with pytest.raises(ReferenceError, match="u32 bits"):
        run_reference(pairs_stored, inputs)
