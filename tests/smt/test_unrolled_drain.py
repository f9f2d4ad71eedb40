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


def test_an_untraced_operand_is_never_proved_nor_refuted() -> None:
    """The second MAD's left operand comes from scores the kernel accumulates itself: untraced on both
    sides, so PV105 cannot show that the lowered MAD reads the source's block: inconclusive, naming the
    operand (it used to be proved by comparing the steps by index), never a refutation."""
    from pypto_verify.smt import Verdict, prove_module

    from .harness import lower_fixed, read

    source = read(Path(__file__).parent / "inconclusive" / "untraced_operand.py")
    outcomes = prove_module(source, lower_fixed(source))
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    (second,) = [o for o in outcomes if o.rule == "PV105" and o.site.endswith(":27")]
    assert second.verdict is Verdict.INCONCLUSIVE
    assert "the left operand of the MAD at line 27 (`oi`) is not traced to a GM tensor or buffer" in second.message

def test_a_chain_under_an_if_the_constants_decide_against_is_not_a_site_to_prove() -> None:
    """Issue 13, item 6 (`deepseek_v4_pro/lm_head.py:205`, `if VOCAB_TAIL != 0:` with a tail of 0): the
    lowering removes the tail's chain, so it is no PV100; `sites` lists it as removed and a verified run does
    not count it as a verified site."""
    result = _check("constant_false_tail.py")
    assert result.findings == []
    assert [k.verdict for f in result.files for k in f.kernels] == ["verified"]
    (sites,) = [f.sites for f in result.files]
    assert [(s.line, bool(s.removed)) for s in sites] == [(22, False), (30, True)]
    assert "the `if` at line 28 is false" in sites[1].removed
    assert result.verified_sites == 1
