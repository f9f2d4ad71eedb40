"""Scalar loop carries and scalar phis of `if`s with tile ops in their arms (issue 14 item 3): PyPTO's `scf.for
iter_args` / `scf.yield` and `scf.if -> (...)` forms simulate and match on kernels of ours, and a mutated twin of
the lowering (the carry not updated) mismatches."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, lowered_kernels

from pypto_verify.ir import Assign, Var, map_stmts

CARRIES = KERNELS / "scalar_carries.py"


def _kernel(name: str):
    return lowered_kernels(CARRIES)[name]


def _not_updated(fn, prefix: str):
    """*fn* with the one update `prefix__ssa_vN = <carry> ± ...` replaced by the carry itself."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and stmt.target.name.startswith(f"{prefix}__ssa_v"):
            hits.append(stmt)
            return (replace(stmt, value=Var(f"{prefix}__iter_v1")),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


def test_a_scalar_loop_carry_is_an_iter_arg_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel("reversed_segments")
    text = emit(kernel.lowered)
    assert "iter_args(%dst__iter_v1 = " in text and "scf.yield %dst__ssa_v2 : index" in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_a_carry_not_updated_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("reversed_segments")
    outcome = simulate_kernel(kernel.source, _not_updated(kernel.lowered, "dst"))
    # every segment lands on the last row tile: the first one written, rows 0..15, keep y's input
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [0, 0]


def test_a_scalar_phi_of_an_if_with_tile_ops_is_an_if_result_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel("kept_segments")
    text = emit(kernel.lowered)
    assert "%dst__phi_v3 = scf.if %" in text and " -> (index) {" in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_a_phi_not_updated_in_its_arm_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("kept_segments")
    outcome = simulate_kernel(kernel.source, _not_updated(kernel.lowered, "dst"))
    # every kept segment lands on rows 0..15 and the end marker too: rows 16.. keep y's input
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["index"] == [0, 0]


def test_a_phi_typed_only_by_the_arm_that_computes_it_is_an_if_result_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit
    from pypto_verify.ir import type_env
    from pypto_verify import ops

    kernel = _kernel("cast_segments")
    # no type names the phi before the `if`: the then arm's cast tells it is an index
    assert not any(name.startswith("dst__phi_v") for name in type_env(kernel.lowered, ops.value_type))
    assert " = scf.if %" in emit(kernel.lowered)
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"
