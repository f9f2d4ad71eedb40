"""Windows of an accumulator at run-time row and column offsets (issue 14 item 3): a sub-view of the one L0C buffer
drained by FIXPIPE simulates and matches on a kernel of ours, and a mutated twin (the wrong column window)
mismatches."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, ListExpr, map_stmts

HEADS = KERNELS / "head_split.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(HEADS)), Options()).kernels
    return kernel


def test_an_accumulator_window_at_run_time_offsets_is_a_subview_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    # the window's address is computed: row r0 and column h * 64 at the accumulator's row pitch (128 f32)
    assert "%slice_row = arith.muli %r0, %c128_index : index" in text
    assert "pto.alloc_tile addr = %slice_addr valid_row = %c16_index valid_col = %c64_index : !pto.tile_buf<loc=acc" in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_the_wrong_column_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def first_head(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.slice":
            row = stmt.value.args[2].items[0]
            return (replace(stmt, value=replace(stmt.value, args=(*stmt.value.args[:2], ListExpr((row, Const(0)))))),)
        return None

    outcome = simulate_kernel(kernel.source, replace(kernel.lowered, body=map_stmts(kernel.lowered.body, first_head)))
    # head 1's rows (32..63 of y) receive head 0's columns
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [32, 0]
