"""A module value computed when the module is imported (pypto-lib's `turboquant_kv.py` boundaries `_b0` ... `_b14`):
sampled where it is an op's scalar operand, else no value in the simulation, and the reason says so."""

from __future__ import annotations

from stages import KERNELS, require_stages



def _outcome(name: str):
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    kernels = lower_stage(read_stage(str(KERNELS / "import_time_values.py")), Options()).kernels
    kernel = next(k for k in kernels if k.name == name)
    return simulate_kernel(kernel.source, kernel.lowered)


def test_a_value_used_as_an_ops_scalar_is_sampled_and_named() -> None:
    # `sizes.module_values`: the same sample on both sides, named (test_import_values.py has its mutated twin)
    outcome = _outcome("floor_rows")
    assert outcome.message == "match (module values computed at import, sampled: _LOW=0.0)"


def test_a_value_bound_to_a_name_of_its_own_is_named_as_the_reason_for_no_simulation() -> None:
    outcome = _outcome("ceiling_rows")
    assert outcome.status == "skipped"
    assert outcome.reason == ("emit: `_HIGH` is a value the kernel's module computes when it is imported (or a size "
                              "no sample binds): the file is never executed, so the simulation has no value for it")


def test_a_sampled_value_inside_a_nested_op_is_skipped_with_the_op() -> None:
    # the lowering kept `pl.maximum(rows, _LOW)` as a tile-tile op (its operand was no scalar it knew)
    outcome = _outcome("clamp_rows")
    assert outcome.status == "skipped" and "`tile.maximum` has no instruction in the PTO subset" in outcome.reason
