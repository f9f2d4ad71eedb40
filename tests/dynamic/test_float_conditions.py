"""Comparisons of run-time float scalars (PyPTO's `arith.cmpf` with the ordered predicates): a kernel of ours
simulates and matches, its NaN compares unequal to nothing (`one` is false on a NaN), and a mutated twin (the
predicate flipped) mismatches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from stages import KERNELS, require_stages

from pypto_verify.ir import Compare, If, map_stmts

CONDITIONS = KERNELS / "float_conditions.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(CONDITIONS)), Options()).kernels
    return kernel


def test_float_conditions_are_ordered_cmpf_and_match() -> None:
    from pypto_verify.dynamic import make_inputs, simulate_kernel
    from pypto_verify.emit import emit
    from pypto_verify.sim import simulate

    kernel = _kernel()
    text = emit(kernel.lowered)
    assert "arith.cmpf ogt, %lead, %cst_f32 : f32" in text and "arith.cmpf one, %nan, %nan : f32" in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"
    inputs = make_inputs(kernel.source)
    flags = simulate(text, "float_conditions", {"arg0": inputs["x"], "arg1": inputs["y"], "arg2": inputs["flags"]})
    assert (flags["arg2"] == 0).all()  # NaN != NaN is false under the ordered `one`


def test_a_flipped_float_predicate_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def flip(stmt):
        if isinstance(stmt, If) and isinstance(stmt.cond, Compare) and stmt.cond.op == ">":
            return (replace(stmt, cond=replace(stmt.cond, op="<")),)
        return None

    outcome = simulate_kernel(kernel.source, replace(kernel.lowered, body=map_stmts(kernel.lowered.body, flip)))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_the_reference_compares_floats_ordered() -> None:
    from pypto_verify.dynamic import make_inputs
    from pypto_verify.reference import run_reference

    kernel = _kernel()
    outputs = run_reference(kernel.source, make_inputs(kernel.source)).outputs
    assert (np.asarray(outputs["flags"]) == 0).all()
