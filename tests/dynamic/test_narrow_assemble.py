"""A `tile.assemble` into a window narrower than its destination (issue 14 item 3): a `tmov` into an
`alloc_tile` window at the destination's row pitch, at a literal or a run-time column offset; it simulates
and matches, and a twin assembling at the wrong column mismatches."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, ListExpr, map_stmts

BLOCKS = KERNELS / "column_blocks.py"


def _kernel(name: str = "column_blocks"):
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    return {k.name: k for k in lower_stage(read_stage(str(BLOCKS)), Options()).kernels}[name]


def test_a_narrow_assemble_at_a_run_time_column_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    windows = [line.strip() for line in text.splitlines() if "_window" in line and "pto.alloc_tile" in line]
    # both windows have the staging tile's 64 columns as their row pitch and the block's 16 x 32 valid shape
    assert len(windows) == 2 and all("rows=16, cols=64" in w and "valid_col = %c32_index" in w for w in windows)
    assert "arith.index_cast" in text  # the second window's address, computed from `second`
    outcome = simulate_kernel(kernel.source, kernel.lowered, scalars={"second": 32})
    assert outcome.status == "match", outcome.message


def _shifted(fn):
    """*fn* with its assemble into `both` at column 16: the second block half over the first."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.assemble" \
                and stmt.target.name.startswith("both"):
            hits.append(stmt)
            offsets = ListExpr((Const(0), Const(16)))
            return (replace(stmt, value=replace(stmt.value, args=(*stmt.value.args[:2], offsets))),)
        return None

    wrong = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1
    return wrong


def test_assembling_at_the_wrong_column_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    outcome = simulate_kernel(kernel.source, _shifted(kernel.lowered), scalars={"second": 32})
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message


def test_a_vec_assemble_is_a_vec_to_vec_move_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel("lane_blocks")
    moves = [line for line in emit(kernel.lowered).splitlines() if "pto.tmov" in line]
    assert len(moves) == 2 and all("loc=vec" in m.split("outs(")[0] and "loc=vec" in m.split("outs(")[1]
                                   for m in moves)
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"
    outcome = simulate_kernel(kernel.source, _shifted(kernel.lowered))
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
