"""`pl.read` of a GM scratch tensor the kernel writes (PyPTO's `pto.load_scalar`): a kernel of ours reading back the
rows its blocks staged matches, its twin reading the other block's rows mismatches, and the simulator refuses an
offset outside the argument."""

from __future__ import annotations

import numpy as np
import pytest

from stages import KERNELS, require_stages

READS = KERNELS / "scratch_reads.py"


def _kernels():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    return {k.name: k for k in lower_stage(read_stage(str(READS)), Options()).kernels}


def test_reads_of_a_scratch_the_kernel_wrote_load_it_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernels()["reversed_rows"]
    text = emit(kernel.lowered)
    assert "pto.load_scalar" in text and "-> i32" in text and "-> f32" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_reading_the_other_blocks_rows_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernels()["reversed_rows_crossed"]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "mismatch", outcome.message


_LOAD = """module {{
  func.func @load(%arg0: !pto.ptr<i32>, %arg1: !pto.ptr<i32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %at = arith.constant {at} : index
    %zero = arith.constant 0 : index
    %v = pto.load_scalar %arg0[%at] : !pto.ptr<i32> -> i32
    pto.store_scalar %v, %arg1[%zero] : !pto.ptr<i32>, i32
    return
  }}
}}
"""


def test_the_simulator_loads_one_element_and_refuses_one_outside() -> None:
    from pypto_verify.sim import SimError, simulate

    source = np.arange(10, 14, dtype=np.int32)
    out = simulate(_LOAD.format(at=2), "load", {"arg0": source, "arg1": np.zeros(1, np.int32)})
    assert int(out["arg1"][0]) == 12
    with pytest.raises(SimError, match="outside"):
        simulate(_LOAD.format(at=4), "load", {"arg0": source, "arg1": np.zeros(1, np.int32)})
