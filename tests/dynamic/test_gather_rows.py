"""`tile.gather_row` (PyPTO's sub-view of the destination + `tload` of one GM window): rows gathered into an L1 tile
and used as a matmul operand simulate and match on a kernel of ours, and a mutated twin (every row written at row 0
of the tile) mismatches."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, ListExpr, map_stmts

KEYS = KERNELS / "gathered_keys.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(KEYS)), Options()).kernels
    return kernel


def test_gathered_rows_are_a_subview_tload_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    assert "pto.tload ins(%kv_pview : !pto.partition_tensor_view<1x64xbf16>) outs(%keys__ssa_v2_row : " in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_rows_gathered_onto_one_row_mismatch() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def first_row(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.gather_row":
            args = stmt.value.args
            return (replace(stmt, value=replace(stmt.value, args=(*args[:2], ListExpr((Const(0), Const(0))), *args[3:]))),)
        return None

    outcome = simulate_kernel(kernel.source, replace(kernel.lowered, body=map_stmts(kernel.lowered.body, first_row)))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "scores", outcome.message
