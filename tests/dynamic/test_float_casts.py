"""A scalar cast of a run-time float to an integer type (issue 14 item 3) is PyPTO's `arith.fptosi`, which rounds
toward zero: a kernel of ours simulates and matches, its codes are the truncated values and not the floored or
nearest ones, and the simulator refuses a value the type does not hold (poison in MLIR)."""

from __future__ import annotations

import numpy as np
import pytest

from stages import KERNELS, require_stages

CODES = KERNELS / "truncated_codes.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(CODES)), Options()).kernels
    return kernel


def test_a_float_cast_to_int32_is_fptosi_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    assert "arith.fptosi %value__read : f32 to i32" in emit(kernel.lowered)
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_the_codes_are_truncated_not_floored_or_rounded() -> None:
    from pypto_verify.dynamic import make_inputs
    from pypto_verify.emit import emit
    from pypto_verify.sim import simulate

    kernel = _kernel()
    inputs = make_inputs(kernel.source)
    codes = simulate(emit(kernel.lowered), "truncated_codes", {"arg0": inputs["x"], "arg1": inputs["codes"]})["arg1"]
    scaled = inputs["x"][:, :1] * np.float32(20.0)
    assert (codes == np.trunc(scaled)).all()
    # the samples have both signs and fractions: a floor, a rounding to nearest, or either tie rule would differ
    for other in (np.floor(scaled), np.rint(scaled), np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)):
        assert (codes != other).any()


@pytest.mark.parametrize("value", ["3.0e9", "0x7FC00000"])
def test_fptosi_of_a_value_outside_the_type_is_refused(value: str) -> None:
    from pypto_verify.sim import SimError, simulate

    text = ('module attributes {pto.target_arch = "a2a3"} {\n'
            '  func.func @main() attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n'
            f'    %v = arith.constant {value} : f32\n'
            '    %t = arith.fptosi %v : f32 to i32\n'
            '    return\n  }\n}\n')
    with pytest.raises(SimError, match="outside the type"):
        simulate(text, "main", {})


def test_a_scalar_cast_in_a_mode_pypto_refuses_has_no_form() -> None:
    from dataclasses import replace

    from pypto_verify.emit import EmitError, emit
    from pypto_verify.ir import Call, Const, map_expr, map_stmt_exprs, map_stmts

    kernel = _kernel()

    def floor(expr):
        if isinstance(expr, Call) and expr.op == "tensor.cast":
            return replace(expr, kwargs=(*expr.kwargs, ("mode", Const("floor"))))
        return None

    wrong = replace(kernel.lowered, body=map_stmts(
        kernel.lowered.body, lambda stmt: (map_stmt_exprs(stmt, lambda e: map_expr(e, floor)),)))
    with pytest.raises(EmitError, match="mode="):
        emit(wrong)
