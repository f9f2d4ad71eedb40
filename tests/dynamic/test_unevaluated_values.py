"""A module value computed when the module is imported has no value in the simulation, and the reason says so
(the siminline brief, item 3: pypto-lib's `turboquant_kv.py` boundaries `_b0` ... `_b14`)."""

from __future__ import annotations

from stages import KERNELS, require_stages


import pytest


@pytest.mark.parametrize("name, value", [("floor_rows", "_LOW"), ("clamp_rows", "_LOW"), ("ceiling_rows", "_HIGH")])
def test_a_value_the_module_computes_at_import_is_named_as_the_reason_for_no_simulation(name: str, value: str) -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    kernels = lower_stage(read_stage(str(KERNELS / "import_time_values.py")), Options()).kernels
    kernel = next(k for k in kernels if k.name == name)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped"
    assert outcome.reason == (f"emit: `{value}` is a value the kernel's module computes when it is imported (or a size "
                              "no sample binds): the file is never executed, so the simulation has no value for it")
