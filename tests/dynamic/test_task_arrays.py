"""A parameter that only receives task ids (PyPTO's `pl.Array[n, pl.TASK_ID]`, issue 14 item 3) carries no data the
kernel reads: the simulation passes nothing for it and its writes emit nothing; one the kernel also uses otherwise
is not simulated, and says why."""

from __future__ import annotations

from stages import KERNELS, check_text, require_stages

COMPLETION = KERNELS / "task_completion.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(COMPLETION)), Options()).kernels
    return kernel


def test_a_task_id_array_parameter_gets_no_argument_and_the_kernel_matches() -> None:
    from pypto_verify import ops
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit_function

    kernel = _kernel()
    assert ops.task_arrays(kernel.source) == ops.task_arrays(kernel.lowered) == {"completion"}
    emitted = emit_function(kernel.lowered)
    assert [(a.name, a.param) for a in emitted.args] == [("arg0", "x"), ("arg1", "y")]
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"


def test_a_task_id_array_the_kernel_also_reads_is_not_simulated(tmp_path) -> None:
    text = COMPLETION.read_text().replace(
        "    return y\n", "    again = pl.system.task_dummy(deps=[completion[0]])\n    return y\n")
    file, errors = check_text(tmp_path, text, sim=True)
    (kernel,) = file.kernels
    assert kernel.sim == "skipped" and "parameter `completion` has an annotation" in kernel.sim_reason, kernel.sim_reason
