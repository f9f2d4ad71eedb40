"""PV106 on MAD operands narrowed by `set_validshape` in the K loop (issue 13,
`kernels/valid_shape_operands.py`, `inconclusive/half_k_valid.py`): the op keeps its operand's data and buffer, so a narrowed block is a
block of its operand and the coverage is decided (proved, or refuted for the twin one block behind); a
block narrowed along K is not taken as a K block, so its coverage is never proved."""

from __future__ import annotations

from pypto_verify.smt import Verdict, prove_module

from .harness import KERNELS, expectations, lower_fixed, only, read

PATH = KERNELS / "valid_shape_operands.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _outcomes(function: str, path=PATH):
    source = only(read(path), function)
    return [o for o in prove_module(source, lower_fixed(source), cache=False) if o.rule in CHAIN_RULES]


def test_operands_narrowed_off_k_prove_their_coverage():
    outcomes = _outcomes("active_rows")
    assert {o.rule for o in outcomes} == set(CHAIN_RULES)
    assert all(o.verdict is Verdict.PROVED for o in outcomes), [(o.rule, o.message) for o in outcomes]


def test_a_narrowed_operand_one_k_block_behind_is_refuted():
    outcomes = _outcomes("active_rows_skips")
    refuted = {(o.rule, o.span.line) for o in outcomes if o.verdict is Verdict.REFUTED}
    assert refuted == set(expectations(PATH)) & {(o.rule, o.span.line) for o in outcomes} and refuted
    (coverage,) = [o for o in outcomes if o.rule == "PV106"]
    assert "accumulated twice" in coverage.message


def test_operands_narrowed_along_k_never_prove_their_coverage():
    outcomes = _outcomes("half_k_valid", KERNELS.parent / "inconclusive" / "half_k_valid.py")
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]
    (coverage,) = [o for o in outcomes if o.rule == "PV106"]
    assert coverage.verdict is Verdict.INCONCLUSIVE
