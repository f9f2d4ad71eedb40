"""PV106 on MADs whose operand rows and columns come from `get_block_idx()` (issue 13,
`kernels/block_indexed.py`, `inconclusive/unlaunched_block.py`): inside a `pl.spmd(n)` launch the block index is the launch's loop variable, so
blocks of reshaped operands at the block's rows are traced and their K coverage is decided (proved, or
refuted for the twin that reads one block behind); outside every launch the block index is known only at
run time and the coverage stays inconclusive with its reason, never proved and never refuted."""

from __future__ import annotations

import pytest

from pypto_verify.ir import Call, stmt_exprs, walk_exprs
from pypto_verify.smt import Verdict, prove_module
from pypto_verify.smt.sites import bind_block_indices, _walk

from .harness import KERNELS, expectations, lower_fixed, only, read

PATH = KERNELS / "block_indexed.py"
UNLAUNCHED = KERNELS.parent / "inconclusive" / "unlaunched_block.py"


def _coverage(function: str, path=PATH):
    source = only(read(path), function)
    outcomes = [o for o in prove_module(source, lower_fixed(source), cache=False) if o.rule.startswith("PV10")
                and o.rule != "PV107"]
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED and o.rule != "PV106"]
    (coverage,) = [o for o in outcomes if o.rule == "PV106"]
    return outcomes, coverage


def test_a_chain_at_the_launch_block_rows_proves():
    outcomes, coverage = _coverage("launched_rows")
    assert all(o.verdict is Verdict.PROVED for o in outcomes), [(o.rule, o.message) for o in outcomes]


def test_a_block_indexed_operand_one_k_block_behind_is_refuted():
    _, coverage = _coverage("launched_rows_skips")
    assert coverage.verdict is Verdict.REFUTED
    assert (coverage.rule, coverage.span.line) in expectations(PATH)
    assert "accumulated twice" in coverage.message


def test_a_block_index_outside_every_launch_is_never_taken_as_known():
    # its value is one free symbol on both sides (never a guessed range): the K blocks of the rows it picks
    # are adjacent whatever it is, so PV106 proves for every value; whether the rows lie in the tensor is
    # PV107's, conditional on it
    outcomes, coverage = _coverage("unlaunched_rows", UNLAUNCHED)
    assert coverage.verdict is Verdict.PROVED, coverage.message
    assert not [o for o in outcomes if o.verdict is Verdict.REFUTED]


@pytest.mark.parametrize("path, function", [(PATH, "launched_rows"), (UNLAUNCHED, "unlaunched_rows")])
def test_only_a_launched_block_index_is_bound_to_the_launch_variable(path, function):
    (fn,) = [f for p in read(path).programs for f in p.functions if f.name == function]
    calls = [e for s in _walk(bind_block_indices(fn).body) for r in stmt_exprs(s) for e in walk_exprs(r)
             if isinstance(e, Call) and e.op.endswith("get_block_idx")]
    assert bool(calls) == (function == "unlaunched_rows")
