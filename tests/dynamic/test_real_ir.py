"""The emitter on the IR the real PyPTO compiler printed (../shared/real-ir/*/35_after_AllocateMemoryAddr.py).

Its PTO, simulated, matches the reference of the case's `source.py`; and, where the real codegen's
`main.pto` expresses the same program in the subset (no transposed operand: the real codegen encodes a
transpose in the tile layout fields, which the simulator ignores), both simulate to identical GM.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stages import ROOT, require_stages

REAL_IR = ROOT.parent / "shared" / "real-ir"
CASES = ["auto_tiled", "hand_peel", "tensor_proj", "two_accumulators"]
LAYOUT_TRANSPOSED = {"tensor_proj"}


def _kernel(path: Path):
    from pypto_verify.run import Options, Stage, run_work

    (work,) = run_work([str(path)], Options(), (Stage.READ, Stage.LOWER))
    assert work.status == "ok", [f.render() for f in work.findings]
    return work


@pytest.mark.parametrize("case", CASES)
def test_real_lowered_ir_simulates_to_the_reference_of_its_source(case: str) -> None:
    require_stages()
    if not REAL_IR.exists():
        pytest.skip("../shared/real-ir is not there")
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Module, Program
    from pypto_verify.run.chain import find_lowered

    given = [k.lowered for k in _kernel(REAL_IR / case / "35_after_AllocateMemoryAddr.py").kernels]
    lowered = Module("", (Program("", tuple(fn for fn in given if fn is not None)),))
    sources = [k.source for k in _kernel(REAL_IR / case / "source.py").kernels]
    assert sources
    for source in sources:
        outcome = simulate_kernel(source, find_lowered(source.name, lowered), seed=1)
        assert outcome.status == "match", outcome.message


@pytest.mark.parametrize("case", [c for c in CASES if c not in LAYOUT_TRANSPOSED])
def test_emitted_pto_agrees_with_the_real_codegen(case: str) -> None:
    require_stages()
    if not REAL_IR.exists():
        pytest.skip("../shared/real-ir is not there")
    from pypto_verify import ops
    from pypto_verify.emit import emit, emit_function
    from pypto_verify.sim import parse_pto, simulate

    (kernel,) = _kernel(REAL_IR / case / "35_after_AllocateMemoryAddr.py").kernels
    emitted = emit_function(kernel.lowered)
    real = parse_pto((REAL_IR / case / "main.pto").read_text())
    shapes = {p.name: ops.static_shape(p.type.shape) for p in kernel.lowered.params}
    rng = np.random.default_rng(0)
    args = {a.name: rng.standard_normal(shapes[a.param]).astype(np.float32) for a in emitted.args}
    ours = simulate(emit(kernel.lowered), emitted.name, args)
    theirs = simulate(real, real.functions[0].name, args)
    for name in ours:
        np.testing.assert_array_equal(ours[name], theirs[name])
