"""A module value computed when the module is imported has no value in the simulation, and the reason says so
(the siminline brief, item 3: pypto-lib's `turboquant_kv.py` boundaries `_b0` ... `_b14`)."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_a_value_the_module_computes_at_import_is_named_as_the_reason_for_no_simulation() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(KERNELS / "import_time_values.py")), Options()).kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped"
    assert outcome.reason == ("emit: `_LOW` is a value the kernel's module computes when it is imported (or a size "
                              "no sample binds): the file is never executed, so the simulation has no value for it")
