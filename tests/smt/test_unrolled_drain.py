"""MAD-free loops of a literal trip count are encoded iteration by iteration (issue 13, item 1): a drain
in `for band in pl.unroll(2)` happens once in each iteration, not in one unknown iteration, so PV103 and
PV105 are decided exactly (`smt/encode.py`, `ChainEncoding._descend`). An untraced operand still makes a
model no refutation (`smt/obligations.py`, `reduction_equivalence`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.run import Options, run

KERNELS = Path(__file__).parent / "kernels"


def _check(name: str, folder: Path = KERNELS, **kwargs):
    return run([str(folder / name)], Options(cache=False, jobs=1, sim=False, **kwargs))


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_a_drain_in_a_literal_unroll_is_decided_exactly(mode: str) -> None:
    result = _check("unrolled_drain.py", mode=mode)
    assert result.findings == []
    assert [k.verdict for f in result.files for k in f.kernels] == ["verified"]


def test_a_drain_loop_that_runs_zero_times_loses_the_partial_sums() -> None:
    result = _check("unrolled_drain_none.py")
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV103", 27)]


def test_an_untraced_operand_makes_pv105_inconclusive_not_refuted() -> None:
    result = _check("untraced_operand.py", Path(__file__).parent / "inconclusive")
    assert [f.rule.id for f in result.findings] == ["PV100"]
    assert "not traced to a GM tensor or buffer" in result.findings[0].message
    assert [k.verdict for f in result.files for k in f.kernels] == ["inconclusive"]
