"""`pl.read` of a GM tensor the kernel writes is PyPTO's `pto.load_scalar %base[%off] : !pto.ptr<T> -> T` (its
MakeTensorReadCodegenPTO): a kernel of ours reading back f32 and i32 elements it staged simulates and matches, and
twins reading one column off, or the first row's i32 codes for every row, mismatch."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, BinOp, Call, Const, ListExpr, Var

STAGED = KERNELS / "staged_reads.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(STAGED)), Options()).kernels
    return kernel


def _reads_changed(fn, tensor: str, change):
    """*fn* with the `tensor.read` of *tensor* given the operands *change* makes of its old ones."""
    from pypto_verify.ir import map_stmts

    def edit(stmt):
        call = stmt.value if isinstance(stmt, Assign) else None
        if isinstance(call, Call) and call.op == "tensor.read" and isinstance(call.args[0], Var) \
                and call.args[0].name == tensor:
            return (replace(stmt, value=replace(call, args=change(call.args))),)
        return None
    return replace(fn, body=map_stmts(fn.body, edit))


def test_staged_elements_are_loaded_back_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    assert "= pto.load_scalar %arg4[" in text and ": !pto.ptr<f32> -> f32" in text
    assert ": !pto.ptr<i32> -> i32" in text and "arith.index_cast" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_read_one_column_off_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def off(args):
        row, col = args[1].items
        assert isinstance(col, BinOp)
        return (args[0], ListExpr((row, col.lhs)))
    outcome = simulate_kernel(kernel.source, _reads_changed(kernel.lowered, "doubled", off))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "picked", outcome.message


def test_a_read_of_the_first_row_for_every_row_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()
    first_row = _reads_changed(kernel.lowered, "staged", lambda args: (args[0], ListExpr((Const(0), args[1].items[1]))))
    outcome = simulate_kernel(kernel.source, first_row)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "picked_codes", outcome.message


def test_a_read_of_a_gm_slice_is_not_simulated() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from stages import lowered_kernels

    text = STAGED.read_text().replace("pl.read(doubled, [r, k + 1])", "pl.read(doubled[1:ROWS, :], [r - r, k + 1])")
    kernel = lowered_kernels(STAGED, text)["staged_reads"]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped" and "GM slice" in outcome.reason, outcome.message
