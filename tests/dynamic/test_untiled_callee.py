"""A call of a helper the static stages did not lower (tensor-level ops only: not a kernel) is not spliced, and the
skip says why rather than naming the call as an instruction outside the subset."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_a_helper_that_is_not_a_kernel_is_named_as_not_lowered() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(KERNELS / "untiled_helper.py")), Options())
    (kernel,) = work.kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered, callees=file_callees(work, Options()))
    assert outcome.status == "skipped"
    assert "`_bump` is not lowered: it holds no tile op and no matmul" in outcome.reason, outcome.reason
