"""Kernels with `pl.dynamic` sizes simulated at bound samples (pypto_verify/sizes.py, issue 14 item 1)
and the producer of a mismatch's first differing element (item 5)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner

from stages import KERNELS, require_stages, lowered_kernels

from pypto_verify.ir import Assign, BinOp, Call, Const, Eval, ListExpr, TupleExpr, Var, map_stmts

ROWS = KERNELS / "dynamic_rows.py"


def _kernels():
    return lowered_kernels(ROWS)


def _run(*args: str):
    from pypto_verify.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_sizes_tiling_and_samples() -> None:
    from pypto_verify.sizes import check_binding, dynamic_names, has_remainder_path, sample_bindings, tiling_unit

    kernels = _kernels()
    whole, tail = kernels["rows_proj"].source, kernels["rows_tail_proj"].source
    assert dynamic_names(whole) == dynamic_names(tail) == ["TOKENS"]
    assert tiling_unit(whole, "TOKENS") == tiling_unit(tail, "TOKENS") == 16  # lcm(16, 8)
    assert tiling_unit(kernels["rows_step_proj"].source, "TOKENS") == 16  # no division: its slices' extent
    two = kernels["two_sizes_proj"].source
    assert (dynamic_names(two), tiling_unit(two, "TOKENS"), tiling_unit(two, "PAGES")) == (["TOKENS", "PAGES"], 16, 32)
    assert sample_bindings(two) == [{"TOKENS": 32, "PAGES": 64}]  # each size its own tiling
    assert "not a multiple of 32" in check_binding(two, "PAGES", 48) and check_binding(two, "TOKENS", 48) is None
    assert not has_remainder_path(whole) and has_remainder_path(tail)
    assert sample_bindings(whole) == [{"TOKENS": 32}]
    assert sample_bindings(tail) == [{"TOKENS": 32}, {"TOKENS": 40}]  # two whole tiles, then a tail
    assert check_binding(whole, "TOKENS", 48) is None
    assert "not a multiple of 16" in check_binding(whole, "TOKENS", 40)
    assert check_binding(tail, "TOKENS", 40) is None
    assert "at least 1" in check_binding(tail, "TOKENS", 0)
    assert "not a `pl.dynamic` size" in check_binding(tail, "BATCH", 4)


def test_a_symbolic_value_outside_the_parameter_shapes_is_not_a_size() -> None:
    # a module value the frontend could not evaluate reads as `dynamic("_b0")` too: a float threshold
    # is never bound to a sample (it is a guess, not a size)
    from pypto_verify.sizes import check_binding, dynamic_names

    fn = _kernels()["rows_proj"].source
    threshold = Eval(Call("tensor.cmp", (Var("x"), Call("dynamic", (Const("_b0"),)))))
    fn = replace(fn, body=(threshold, *fn.body))
    assert dynamic_names(fn) == ["TOKENS"]
    assert "not a `pl.dynamic` size" in check_binding(fn, "_b0", 2)


def test_bound_kernel_has_no_symbolic_size_left() -> None:
    from pypto_verify.sizes import bind_sizes, dynamic_names

    kernel = _kernels()["rows_tail_proj"]
    for fn in (kernel.source, kernel.lowered):
        bound = bind_sizes(fn, {"TOKENS": 40})
        assert dynamic_names(bound) == []
        assert [p.type.shape[0].value for p in bound.params if p.name in ("x", "y")] == [40, 40]
        assert "tensor.dim" not in repr(bound.body) and "bind_dynamic" not in repr(bound.body)


def test_a_value_computed_from_a_size_becomes_a_constant() -> None:
    # `tokens = pl.tensor.dim(x, 0)` then `tokens // ROW_TILE`: the loop's trip count is a number once
    # bound, as a GM scratch shape written `[tokens, D]` is (the emitter needs static shapes)
    from pypto_verify.ir import For, walk_stmts
    from pypto_verify.sizes import bind_sizes

    kernel = _kernels()["rows_proj"]
    for fn in (kernel.source, kernel.lowered):
        loops = [s for s in walk_stmts(bind_sizes(fn, {"TOKENS": 48}).body) if isinstance(s, For)]
        assert loops and isinstance(loops[0].stop, Const) and loops[0].stop.value == 3


def test_dynamic_kernels_simulate_and_match_at_the_samples() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernels = _kernels()
    whole = simulate_kernel(kernels["rows_proj"].source, kernels["rows_proj"].lowered)
    assert (whole.status, whole.message) == ("match", "match at TOKENS=32")
    tail = simulate_kernel(kernels["rows_tail_proj"].source, kernels["rows_tail_proj"].lowered)
    assert (tail.status, tail.message) == ("match", "match at TOKENS=32; TOKENS=40")
    steps = simulate_kernel(kernels["rows_step_proj"].source, kernels["rows_step_proj"].lowered)
    assert (steps.status, steps.message) == ("match", "match at TOKENS=32")
    two = simulate_kernel(kernels["two_sizes_proj"].source, kernels["two_sizes_proj"].lowered)
    assert (two.status, two.message) == ("match", "match at TOKENS=32, PAGES=64")


def _shift_tail_store(fn):
    """*fn* with the tail loop's store one row too early (its second `tile.store`: an off-by-one window)."""
    seen = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tile.store":
            seen.append(stmt)
            if len(seen) == 2:
                offsets = stmt.value.args[1]
                assert isinstance(offsets, (ListExpr, TupleExpr))
                row = BinOp("-", offsets.items[0], Const(1))
                moved = replace(offsets, items=(row, *offsets.items[1:]))
                args = (stmt.value.args[0], moved, *stmt.value.args[2:])
                return (replace(stmt, value=replace(stmt.value, args=args)),)
        return None

    return replace(fn, body=map_stmts(fn.body, stmt_fn))


def test_an_off_by_one_tail_window_mismatches_at_the_tail_sample_and_names_its_store() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernels()["rows_tail_proj"]
    outcome = simulate_kernel(kernel.source, _shift_tail_store(kernel.lowered))
    assert outcome.status == "mismatch" and outcome.sizes == {"TOKENS": 40}  # 32 has no tail: it matched
    diff = outcome.first_difference
    assert diff["tensor"] == "y" and diff["index"] == [31, 0]  # the last whole row, overwritten by the tail
    assert diff["producer"].startswith("written by the store emitted for line 55 (PTO line ")  # the tail store
    assert outcome.message.startswith("at TOKENS=40: `y`[31, 0]: sim ")
    assert outcome.message.endswith(diff["producer"] + ")")


def test_sim_bind_chooses_the_value_and_rejects_an_invalid_one() -> None:
    require_stages()
    result = _run("sim", str(ROWS), "--sim-bind", "TOKENS=48")
    assert result.exit_code == 0, result.output
    assert f"{ROWS}:22:1: rows_proj: match at TOKENS=48" in result.output
    assert f"{ROWS}:38:1: rows_tail_proj: match at TOKENS=48" in result.output
    assert f"{ROWS}:74:1: two_sizes_proj: match at TOKENS=48, PAGES=64" in result.output  # the other: its sample
    for bind, why in (("TOKENS=40", "`TOKENS=40` is not a multiple of 16, the tiling the kernel divides its sizes by, "
                                    "and the kernel has no remainder path (kernel `rows_proj`)"),
                      ("BATCH=4", "`BATCH` is not a `pl.dynamic` size of any kernel checked "
                                  "(their sizes: PAGES, TOKENS)"),
                      ("TOKENS=0", "outside its bounds"),
                      ("TOKENS", "is not NAME=INTEGER")):
        result = _run("sim", str(ROWS), "--sim-bind", bind)
        assert result.exit_code == 2 and why in result.output, result.output


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_check_reports_the_sample_values(fmt: str) -> None:
    require_stages()
    result = _run("check", str(ROWS), "--no-cache", "--jobs", "1", "--kernels", "--format", fmt)
    assert result.exit_code == 0, result.output
    if fmt == "json":
        assert '"sim_reason": "match at TOKENS=32; TOKENS=40"' in result.output
    else:
        assert "rows_tail_proj: verified, simulated and matched at TOKENS=32; TOKENS=40" in result.output
    result = _run("check", str(ROWS), "--no-cache", "--jobs", "1", "--sim-bind", "TOKENS=40")
    assert result.exit_code == 2 and "no remainder path" in result.output


def test_the_summary_groups_skip_reasons_without_their_samples() -> None:
    from pypto_verify.reports.text import _unsimulated_reasons
    from pypto_verify.run.records import KernelResult

    reason = "emit: `tile.get_block_idx` has no instruction in the PTO subset"
    kernels = [KernelResult("a", "a", sim_reason=f"at T=16; T=20: {reason}"),
               KernelResult("b", "b", sim_reason=f"at B=32, S=64: {reason}"),
               KernelResult("c", "c", sim_reason=reason),
               KernelResult("d", "d", sim_reason="Form 3 input: no source to compare with")]
    assert _unsimulated_reasons(kernels) == f": 3 {reason}; 1 Form 3 input: no source to compare with"


def test_the_summary_groups_the_size_limit_without_each_kernels_count() -> None:
    """pypto-lib's model kernels over whole weights: one reason, not one group per element count."""
    from pypto_verify.reports.text import _unsimulated_reasons
    from pypto_verify.run.records import KernelResult

    limit = "the kernel's tensors hold more elements than the simulation's limit of 268435456"
    kernels = [KernelResult("a", "a", sim_reason=f"{limit} (778958850)"),
               KernelResult("b", "b", sim_reason=f"{limit} (1078198530)"),
               KernelResult("d", "d", sim_reason=f"at T=32: {limit} (778958850); at T=40: {limit} (779110915)"),
               KernelResult("c", "c", sim_reason="emit: `tensor.reshape` has no instruction in the PTO subset")]
    assert _unsimulated_reasons(kernels) == \
        f": 3 {limit}; 1 emit: `tensor.reshape` has no instruction in the PTO subset"
