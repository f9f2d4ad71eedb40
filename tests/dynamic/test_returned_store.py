"""A store in a return statement is emitted and simulated, and the reference does it too."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_a_store_in_the_return_statement_is_emitted_and_matches() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit_function
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    kernel = lower_stage(read_stage(str(KERNELS / "returned_store.py")), Options()).kernels[0]
    assert "pto.tstore" in emit_function(kernel.lowered).text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.reason
