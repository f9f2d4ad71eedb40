"""Illegal PTO is rejected with PV202 on the right line (fixtures/rejected/*.pto).

Each fixture marks its offending line with `// expect: PV202 "<message fragment>"`.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import FIXTURES, expected_line

REJECTED = sorted((FIXTURES / "rejected").glob("*.pto"))
_FRAGMENT = re.compile(r'// expect: PV202 "([^"]*)"')


@pytest.mark.parametrize("path", REJECTED, ids=lambda p: p.stem)
def test_illegal_program_is_rejected_with_pv202_on_its_line(path: Path) -> None:
    text = path.read_text()
    fragment = _FRAGMENT.search(text)
    assert fragment is not None
    with pytest.raises(SimError) as error:
        simulate(text, "main", {"arg0": np.zeros((16, 16), np.float32)} if "%arg0" in text else {})
    assert error.value.rule == "PV202"
    assert error.value.line == expected_line(text)
    assert fragment.group(1) in error.value.message


def test_acc_capacity_depends_on_the_target() -> None:
    text = (FIXTURES / "rejected" / "acc_capacity_overflow.pto").read_text()
    assert simulate(text, "main", {}, target="a5") == {}


def test_acc_to_vec_move_is_accepted_on_a5() -> None:
    text = (FIXTURES / "rejected" / "tmov_acc_to_vec_on_a2a3.pto").read_text()
    assert simulate(text, "main", {}, target="a5") == {}


def test_unknown_target_is_an_error() -> None:
    text = (FIXTURES / "rejected" / "acc_capacity_overflow.pto").read_text()
    with pytest.raises(SimError, match="unknown target"):
        simulate(text, "main", {}, target="a9")


def test_undefined_value_is_a_name_error_not_pv202() -> None:
    text = (FIXTURES / "rejected" / "tmov_acc_to_acc.pto").read_text().replace("ins(%src", "ins(%nope")
    with pytest.raises(SimError) as error:
        simulate(text, "main", {})
    assert error.value.rule == "" and "undefined value %nope" in error.value.message
    assert error.value.line == expected_line(text)
