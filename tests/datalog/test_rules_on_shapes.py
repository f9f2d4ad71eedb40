"""The L0C rules on the Form 3 shapes A-F: exact (rule, line, windows) per shape; clean shapes stay clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.run import Options, Stage, run_work

FORM3 = Path(__file__).resolve().parents[1] / "fixtures" / "form3"
OPTIONS = Options(engine="clingo")


def findings_of(name: str):
    (work,) = run_work([str(FORM3 / name)], OPTIONS, (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG))
    return list(work.findings)  # the datalog stage asserts that every assert_* relation is empty


def test_divergent_tail_phi_reports_pv001_with_both_windows() -> None:
    found = findings_of("shape_a_divergent_tail_phi.py")
    assert sorted((f.rule.id, f.span.line) for f in found) == [("PV001", 50), ("PV009", 29)]
    pv001 = next(f for f in found if f.rule.id == "PV001")
    assert set(pv001.windows) == {"mem_acc_5[0:16384]", "mem_acc_12[0:16384]"}


def test_post_if_read_reports_pv004_naming_the_seed() -> None:
    found = findings_of("shape_b_post_if_read.py")
    assert [(f.rule.id, f.span.line) for f in found] == [("PV004", 38)]
    assert "`seed` (line 34)" in found[0].message
    # the notes trace the path: `acc_1` written (line 30), then overwritten by `seed` (line 34)
    assert [(n.span.line, n.message.split(" ", 1)[0]) for n in found[0].notes] == [(30, "`acc_1`"), (34, "`seed`")]


def test_fragmented_chain_reports_pv003_pv007_and_one_pv009() -> None:
    found = findings_of("shape_c_fragmented_chain.py")
    assert sorted((f.rule.id, f.span.line) for f in found) == [
        ("PV003", 46), ("PV003", 54), ("PV007", 46), ("PV007", 54), ("PV009", 31)]
    pv009 = next(f for f in found if f.rule.id == "PV009")
    assert pv009.windows == ("mem_acc_5[0:4096]", "mem_acc_8[0:4096]", "mem_acc_11[0:4096]")


def test_iterarg_phi_arm_and_loop_init_are_values_like_any_other() -> None:
    found = findings_of("shape_d_iterarg_blind_spot.py")
    rules = sorted((f.rule.id, f.span.line) for f in found)
    # the phi whose else arm is the loop's iter_arg, and the nested loop whose init is an iter_arg
    assert ("PV001", 36) in rules and ("PV002", 33) in rules and ("PV002", 56) in rules
    assert ("PV003", 63) in rules


@pytest.mark.parametrize("name", ["shape_e_biased_split_k.py", "shape_f_predicated.py"])
def test_clean_shapes_have_no_finding(name: str) -> None:
    assert findings_of(name) == []
