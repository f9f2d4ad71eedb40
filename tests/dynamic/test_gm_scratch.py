"""GM scratch tensors sized by run-time values (issue 14 item 3): a `pl.dynamic` size folded through `pl.max`,
or a scalar parameter rounded up to whole tiles. The workspace the simulation passes has the shape those values
give (`emit_function(..., scalars=)`); without the scalars' values such a shape is `NeedsScalars`."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, lowered_kernels

from pypto_verify.ir import Assign, Const, ListExpr, map_stmts

SCRATCH = KERNELS / "gm_scratch.py"


def _kernel(name: str):
    return lowered_kernels(SCRATCH)[name]


def _rewrite(fn, target: str, change):
    """*fn* with the value of the one `Assign` to *target* replaced by `change(value)`."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and stmt.target.name == target:
            hits.append(stmt)
            return (replace(stmt, value=change(stmt.value)),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


def _simulate(kernel, lowered=None):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered if lowered is None else lowered)


@pytest.mark.parametrize("name", ["padded_rows", "active_rows"])
def test_a_scratch_of_a_run_time_shape_simulates_and_matches(name: str) -> None:
    outcome = _simulate(_kernel(name))
    assert outcome.status == "match", outcome.message


def test_a_scratch_sized_by_a_scalar_parameter_needs_its_value_and_takes_its_shape() -> None:
    from pypto_verify.emit import NeedsScalars, emit_function

    lowered = _kernel("active_rows").lowered
    with pytest.raises(NeedsScalars, match="GM scratch tensor `staged` has a shape known only at run time"):
        emit_function(lowered)
    (workspace,) = [a for a in emit_function(lowered, scalars={"active": 40}).args if a.kind == "workspace"]
    assert (workspace.param, workspace.shape) == ("staged", (48, 64))


def test_a_scratch_sized_by_a_dynamic_size_takes_the_samples_shape() -> None:
    from pypto_verify.emit import emit_function
    from pypto_verify.sizes import bind_sizes

    lowered = bind_sizes(_kernel("padded_rows").lowered, {"TOKENS": 8})
    (workspace,) = [a for a in emit_function(lowered).args if a.kind == "workspace"]
    assert workspace.shape == (16, 64)  # max(8, 16) rows


def test_a_scratch_too_small_for_its_tiles_is_rejected() -> None:
    kernel = _kernel("padded_rows")
    wrong = _rewrite(kernel.lowered, "rows", lambda value: replace(value, op="min"))  # min(tokens, 16) rows
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV202", outcome.message
    assert "exceed the view's shape [16, 64]" in outcome.message


def test_a_scratch_read_back_at_the_wrong_row_mismatches() -> None:
    kernel = _kernel("active_rows")
    wrong = _rewrite(kernel.lowered, "y__load", lambda call: replace(
        call, args=(call.args[0], ListExpr((Const(0), Const(0))), *call.args[2:])))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [16, 0], outcome.message
