"""Module values computed at import (`sizes.module_values`): sampled, named in the outcome, the same on both
sides; a lowered form that takes the other value mismatches."""

from __future__ import annotations

from stages import KERNELS, lowered_kernels, require_stages


def test_values_computed_at_import_are_sampled_and_named() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.sizes import module_value_samples, module_values

    kernel = lowered_kernels(KERNELS / "import_values.py")["scaled_sum"]
    assert module_values(kernel.source) == ["_s0", "_s1"]
    assert module_value_samples(["_s0", "_s1"]) == {"_s0": -0.0625, "_s1": 0.0}
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.message == "match (module values computed at import, sampled: _s0=-0.0625, _s1=0.0)"


def test_a_lowering_that_takes_the_other_value_mismatches() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from dataclasses import replace

    from pypto_verify.ir import Call, Const, map_stmt_exprs, map_stmts

    kernel = lowered_kernels(KERNELS / "import_values.py")["scaled_sum"]
    swap = {"_s0": "_s1", "_s1": "_s0"}

    def swapped(expr):
        if isinstance(expr, Call) and expr.op == "dynamic" and expr.args and expr.args[0] in \
                (Const("_s0"), Const("_s1")):
            return Call("dynamic", (Const(swap[expr.args[0].value]),), span=expr.span)
        return None

    lowered = replace(kernel.lowered, body=map_stmts(kernel.lowered.body,
                                                       lambda stmt: (map_stmt_exprs(stmt, swapped),)))
    outcome = simulate_kernel(kernel.source, lowered)
    assert outcome.status == "mismatch", outcome.message
