"""`tile.concat` (issue 14 item 3): PyPTO's `pto.tconcat` of two Vec tiles simulates and matches on a kernel of ours,
and a mutated twin (the operands in the other order) mismatches."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, map_stmts

ROTATION = KERNELS / "half_rotation.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(ROTATION)), Options()).kernels
    return kernel


def test_a_concat_is_a_tconcat_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    assert "pto.tconcat ins(%y__neg, %first : " in emit(kernel.lowered)
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_a_concat_in_the_other_order_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def swap(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.concat":
            return (replace(stmt, value=replace(stmt.value, args=stmt.value.args[::-1])),)
        return None

    outcome = simulate_kernel(kernel.source, replace(kernel.lowered, body=map_stmts(kernel.lowered.body, swap)))
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [0, 0]


def test_the_reference_refuses_a_concat_of_different_row_counts() -> None:
    import numpy as np

    from pypto_verify.ir import Const, ListExpr
    from pypto_verify.reference import ReferenceError, run_reference

    kernel = _kernel()

    def shorter(stmt):
        if isinstance(stmt, Assign) and stmt.target.name == "first":
            return (replace(stmt, value=replace(stmt.value, args=(*stmt.value.args[:2], ListExpr((Const(8), Const(64)))))),)
        return None

    wrong = replace(kernel.source, body=map_stmts(kernel.source.body, shorter))
    with pytest.raises(ReferenceError, match="tile.concat"):
        run_reference(wrong, {"x": np.zeros((64, 128), np.float32), "y": np.zeros((64, 128), np.float32)})
