"""A multi-rank run follows the kernel's calls (issue 14; `reference_ranks.reached_calls`): a kernel whose
distributed ops are all in the plain helpers it calls, at any depth, runs on every rank and matches the reference
run the same way; a helper whose PTO puts to the wrong peer or at the wrong rows mismatches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, require_stages

CALLS = KERNELS / "rank_callees.py"
PUT = "distributed.tensor.put"


@pytest.fixture(scope="module")
def work():
    require_stages()
    from pypto_verify.run.callees import file_callees
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    lowered = lower_stage(read_stage(str(CALLS)), Options())
    return {k.name: k for k in lowered.kernels}, file_callees(lowered, Options())


def _simulate(work, callees=None):
    from pypto_verify.dynamic import simulate_kernel

    kernels, found = work
    kernel = kernels["gathered_rows"]
    return simulate_kernel(kernel.source, kernel.lowered, callees=found if callees is None else callees)


def _with_put(callees, change):
    """*callees* with the PTO side of `_share_rows` (its lowered form) putting as `change(put)` says; the reference
    still runs its source."""
    from pypto_verify.ir import Call, Eval, map_stmts

    share = callees["call._share_rows"]
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == PUT:
            hits.append(stmt)
            return (replace(stmt, value=change(stmt.value)),)
        return None

    lowered = replace(share.lowered, body=map_stmts(share.lowered.body, stmt_fn))
    assert len(hits) == 1, hits
    return {**callees, "call._share_rows": replace(share, lowered=lowered)}


def _kwarg(call, key: str, value):
    assert call.kwarg(key) is not None, key
    return replace(call, kwargs=tuple((k, value if k == key else v) for k, v in call.kwargs))


def test_only_the_caller_is_a_kernel_and_every_helper_is_spliced(work) -> None:
    from pypto_verify.callees import Callee
    from pypto_verify.dynamic_ranks import is_multi_rank
    from pypto_verify.reference_ranks import rank_param, reached_calls, window_params, world_size

    kernels, callees = work
    assert sorted(kernels) == ["gathered_rows"]
    for helper in ("_share_rows", "_signal_peers", "_wait_peers"):
        assert isinstance(callees[f"call.{helper}"], Callee), callees[f"call.{helper}"]
    source = kernels["gathered_rows"].source
    # the kernel's own body holds no distributed op: only its calls do, two levels down for the signals
    assert not is_multi_rank(source) and is_multi_rank(source, callees)
    assert sorted({(r.fn.name, r.call.op) for r in reached_calls(source, callees)}) == [
        ("_share_rows", PUT), ("_signal_peers", "distributed.system.notify"),
        ("_wait_peers", "distributed.system.wait")]
    assert world_size(source, callees) == 2
    assert rank_param(source, callees) == "my_rank"
    assert window_params(source, callees) == {"inbox", "arrived"}


def test_the_kernel_matches_on_every_rank(work) -> None:
    outcome = _simulate(work)
    assert (outcome.status, outcome.message) == ("match", "match at ranks=2")


def test_the_reference_runs_the_helpers_on_every_rank(work) -> None:
    # what the match compares is every rank's rows, gathered: not zeros a missing put would leave
    from pypto_verify.dynamic import make_inputs
    from pypto_verify.reference_ranks import run_reference_ranks, window_params

    kernels, callees = work
    source = kernels["gathered_rows"].source
    inputs = [make_inputs(source, seed=r) for r in range(2)]
    results = run_reference_ranks(source, inputs, [{"my_rank": r} for r in range(2)],
                                  window_params(source, callees), callees=callees)
    rows = np.concatenate([2.0 * np.asarray(inputs[r]["x"], np.float32) for r in range(2)])
    for r in range(2):
        assert np.array_equal(np.asarray(results[r].outputs["y"], np.float32), rows)


def test_a_helper_putting_to_the_wrong_peer_mismatches(work) -> None:
    # the PTO puts every rank's rows into its own inbox, where the source puts them into the peer's
    from pypto_verify.ir import Var

    _, callees = work
    wrong = _with_put(callees, lambda put: _kwarg(put, "peer", Var("my_rank")))
    outcome = _simulate(work, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    # rank 0's inbox lacks the rows rank 1 keeps putting to itself
    assert outcome.message.startswith("at ranks=2: `inbox@rank0`[8, 0]: sim 0 vs reference"), outcome.message


def test_a_helper_putting_at_the_wrong_rows_mismatches(work) -> None:
    # the PTO puts at the rows kept for rank 0 whichever rank puts
    from pypto_verify.ir import Const, ListExpr

    _, callees = work
    zero = Const(0)
    wrong = _with_put(callees, lambda put: _kwarg(put, "dst_offsets", ListExpr((zero, zero))))
    outcome = _simulate(work, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
