"""PV107 on a grid launch whose block index is split by a run-time divisor (issue 13,
`bounds/grid_launch.py`): the query states the block as `t * works + work` (`bounds._grid_lemmas`, facts
every value of the query satisfies), so the non-linear offsets are decided within the solver's budget: the
clean kernel proves, and the twin one head tile further gets a model (conditional on the run-time sizes),
neither of them left unknown."""

from __future__ import annotations

from pypto_verify.frontend import read_file
from pypto_verify.smt import Verdict, prove_bounds
from pypto_verify.smt import encode as E
from pypto_verify.smt.bounds import _grid_lemmas

from .harness import KERNELS, only


def _outcomes(function: str):
    parsed = read_file(KERNELS.parent / "bounds" / "grid_launch.py")
    assert not parsed.errors
    return prove_bounds(only(parsed.module, function), cache=False)


def test_a_grid_launch_split_by_a_run_time_divisor_proves_in_bounds():
    (outcome,) = _outcomes("grid_partials")
    assert outcome.verdict is Verdict.PROVED, (outcome.verdict, outcome.message)


def test_a_grid_partial_one_tile_further_is_found_not_left_unknown():
    (outcome,) = _outcomes("grid_partials_shifted")
    assert outcome.verdict is Verdict.CONDITIONAL, (outcome.verdict, outcome.message)
    assert "`PAGES` is a dynamic dimension" in outcome.reason


def test_grid_facts_are_stated_only_for_a_divisor_that_is_a_factor_of_the_range():
    index, a, d, other = (E.const(n) for n in ("!idx", "A", "d", "e"))
    quotient = E.floordiv(index, d)
    assert len(_grid_lemmas([(index, E.mul(a, d))], (E.lt(quotient, a),))) == 2
    assert _grid_lemmas([(index, E.mul(a, other))], (E.lt(quotient, a),)) == []
    assert _grid_lemmas([(index, d)], (E.lt(quotient, a),)) == []
