"""A call of a helper that is not a kernel and holds InCore scopes of its own (tensor-level ops only) is not spliced:
the simulation lowers a non-kernel callee only when it is one region as a whole, and the skip says why rather than
naming the call as an instruction outside the subset."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_a_helper_with_scopes_of_its_own_that_is_not_a_kernel_is_named_as_not_lowered() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    work = lower_stage(read_stage(str(KERNELS / "untiled_helper.py")), Options())
    (kernel,) = work.kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered, callees=file_callees(work, Options()))
    assert outcome.status == "skipped"
    assert "`_bump` is not lowered: it holds InCore scopes but no tile op and no matmul" in outcome.reason, \
        outcome.reason
