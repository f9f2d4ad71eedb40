"""A window of an accumulator is a view of its bytes: an INT32 accumulator that fills L0C, drained 16 rows at a
time, simulates and matches (its last window once padded to 32 rows of its own and ran past L0C's end, PV202)."""

from __future__ import annotations

from stages import KERNELS, require_stages


def test_int32_accumulator_windows_stay_inside_it_and_match() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(KERNELS / "int32_acc_rows.py")), Options()).kernels
    assert "loc=acc, dtype=i32, rows=16, cols=256" in emit(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
