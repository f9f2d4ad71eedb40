"""The pre-fix pipeline's defects, witnessed dynamically (TARGET_FACTS.md "The defects").

(B) post-if read and (C) fragmented chain compile silently in legacy mode; their simulated PTO gives
wrong results (PV201 mismatch), while the fixed pipeline's PTO matches. (A) is a Form 3 divergent
phi as the old compiler printed it: the drain reads poisoned L0C.
"""

from __future__ import annotations

import numpy as np
import pytest

from stages import KERNELS, require_stages


def _outcomes(name: str, mode: str):
    from pypto_verify.run import Options, Stage, run_work

    (work,) = run_work([str(KERNELS / name)], Options(mode=mode), (Stage.READ, Stage.LOWER, Stage.SIMULATE))
    assert work.status == "ok", [f.render() for f in work.findings]
    return work, [k.simulation for k in work.kernels]


@pytest.mark.parametrize("name", ["post_if_read.py", "fragmented_chain.py"])
def test_legacy_lowering_of_defect_shape_simulates_to_wrong_results(name: str) -> None:
    require_stages()
    work, results = _outcomes(name, "legacy")
    assert [f.rule.id for f in work.findings if f.rule.id != "PV201"] == []  # the old compiler is silent
    assert [r.status for r in results] == ["mismatch"], [r.message for r in results]
    assert results[0].rule == "PV201"


def test_fixed_lowering_of_fragmented_chain_matches() -> None:
    require_stages()
    _, results = _outcomes("fragmented_chain.py", "fixed")
    assert [r.status for r in results] == ["match"], [r.message for r in results]


def test_fixed_lowering_of_post_if_read_never_simulates_wrong() -> None:
    require_stages()
    _, results = _outcomes("post_if_read.py", "fixed")
    assert all(r is None or r.status != "mismatch" for r in results), [r.message for r in results if r]


def test_form3_divergent_phi_drains_poison() -> None:
    require_stages()
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit_function
    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.run.chain import emit_stage
    from pypto_verify.sim import simulate

    (work,) = run_work([str(KERNELS / "divergent_tail_phi.py")], Options(), (Stage.READ, Stage.LOWER))
    (kernel,) = work.kernels
    assert kernel.source is None
    assert simulate_kernel(kernel.source, kernel.lowered).reason == "no source to compare"
    text, failed = emit_stage(work, Options())
    assert not failed
    emitted = emit_function(kernel.lowered)
    rng = np.random.default_rng(0)
    args = {"arg0": rng.standard_normal((16, 128)).astype(np.float32),
            "arg1": rng.standard_normal((128, 64)).astype(np.float32),
            "arg2": np.zeros((16, 64), np.float32)}
    assert [a.name for a in emitted.args] == list(args)
    out = simulate(text, emitted.name, args)["arg2"]
    assert np.isnan(out).all()
