"""`pl.aiv_shard` of an accumulator is a FIXPIPE drain (issue 13, item 5): the shard a vector lane takes
across the C->V edge is read out of L0C by FIXPIPE, so it is a legal reader (no PV006) and, like any
drain, a shard of an accumulator nothing wrote is PV007 (`datalog/acc_chain.dl`, `drain_use`).

pypto-lib's `deepseek_v4_flash_dspark/lm_head.py:223` pushes the shard with `pld.tensor.remote_store`
(PV006 before this rule), while `deepseek_v4_flash_mtp/lm_head.py` stores it to GM first (the lowering's
drain-and-reload path): the two now agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.run import Options, run

KERNELS = Path(__file__).parent / "kernels"


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_shard_pushed_across_the_cv_edge_is_a_drain(mode: str) -> None:
    result = run([str(KERNELS / "aiv_shard_push.py")], Options(mode=mode, cache=False, jobs=1, sim=False))
    assert result.findings == []
    assert [k.verdict for f in result.files for k in f.kernels] == ["verified"]


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_shard_of_an_accumulator_nothing_wrote_is_pv007(mode: str) -> None:
    result = run([str(KERNELS / "aiv_shard_unwritten.py")], Options(mode=mode, cache=False, jobs=1, sim=False))
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV007", 31)]
    assert "sent across the C->V edge as `shard`" in result.findings[0].message
