"""Multi-rank kernels (`pypto.language.distributed`): every rank simulated over shared windows against the
source's reference run the same way (issue 14, item 2; `pypto_verify/dynamic_ranks.py`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, lowered_kernels

RANKS = KERNELS / "ranks.py"


@pytest.fixture(scope="module")
def kernels():
    return lowered_kernels(RANKS)


def _simulate(source, lowered):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(source, lowered)


def _rewrite_kwarg(fn, op: str, key: str, value):
    """*fn* with keyword *key* of its one call of *op* (a statement of its own) set to *value*."""
    from pypto_verify.ir import Assign, Call, Eval, map_stmts

    hits = []

    def changed(call: Call) -> Call:
        hits.append(call)
        return replace(call, kwargs=tuple((k, value if k == key else v) for k, v in call.kwargs))

    def stmt_fn(stmt):
        if isinstance(stmt, (Assign, Eval)) and isinstance(stmt.value, Call) and stmt.value.op == op:
            return (replace(stmt, value=changed(stmt.value)),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


@pytest.mark.parametrize("name", ["pair_sum", "scatter_rows", "flag_exchange"])
def test_a_kernel_of_two_ranks_matches_at_its_world_size(kernels, name) -> None:
    outcome = _simulate(kernels[name].source, kernels[name].lowered)
    assert (outcome.status, outcome.message) == ("match", "match at ranks=2")


def test_the_world_size_and_the_rank_are_read_from_the_kernel(kernels) -> None:
    from pypto_verify.reference_ranks import rank_param, window_params, world_size

    source = kernels["scatter_rows"].source
    assert world_size(source) == 2
    assert rank_param(source) == "me"
    assert window_params(source) == {"inbox", "arrived"}


def test_the_ops_have_their_pto_forms(kernels) -> None:
    from pypto_verify.emit import emit_function

    text = emit_function(kernels["scatter_rows"].lowered).text + emit_function(kernels["flag_exchange"].lowered).text
    for form in ("pto.comm.peer %arg2, ", "pto.comm.tput(", "{atomicType = #pto<atomic_type atomic_none>}",
                 "pto.comm.tnotify(", "{notifyOp = #pto<notify_op atomic_add>}", "{notifyOp = #pto<notify_op set>}",
                 "pto.comm.twait(", "{cmp = #pto<wait_cmp ge>}", "{cmp = #pto<wait_cmp eq>}"):
        assert form in text, form


def test_loading_from_the_wrong_peer_mismatches(kernels) -> None:
    # the PTO reads the rank's own window where the source reads its peer's
    from pypto_verify.ir import Var

    kernel = kernels["pair_sum"]
    me = next(p for p in kernel.lowered.params if p.name == "me")
    wrong = _rewrite_kwarg(kernel.lowered, "distributed.tile.remote_load", "peer", Var(me.name))
    outcome = _simulate(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201"
    assert outcome.message.startswith("at ranks=2: `y@rank")


def test_putting_at_the_wrong_offset_mismatches(kernels) -> None:
    # every rank's block lands on row 0 of its peer's inbox, where the source puts rank r's at row r * BLOCK
    from pypto_verify.ir import Const, ListExpr

    kernel = kernels["scatter_rows"]
    wrong = _rewrite_kwarg(kernel.lowered, "distributed.tensor.put", "dst_offsets", ListExpr((Const(0), Const(0))))
    outcome = _simulate(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201"


def test_reading_a_peers_window_without_waiting_is_a_race_between_ranks(kernels) -> None:
    outcome = _simulate(kernels["pair_sum_no_wait"].source, kernels["pair_sum_no_wait"].lowered)
    assert outcome.status == "mismatch"
    assert "the result depends on the order the ranks run in (a race between ranks)" in outcome.message


def test_a_wait_the_pto_never_satisfies_is_a_deadlock(kernels) -> None:
    # the PTO waits for a flag of 2 where the source waits for 1: no rank raises it that high
    from pypto_verify.ir import Const

    kernel = kernels["flag_exchange"]
    wrong = _rewrite_kwarg(kernel.lowered, "distributed.system.wait", "expected", Const(2))
    outcome = _simulate(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV202"
    assert "deadlock: every rank waits: rank 0 waits for its signal == 2 at PTO line" in outcome.message
    assert "(it holds 1)" in outcome.message


def test_a_kernel_that_deadlocks_as_written_is_reported(kernels) -> None:
    outcome = _simulate(kernels["flag_exchange_never"].source, kernels["flag_exchange_never"].lowered)
    assert outcome.status == "mismatch" and outcome.rule == "PV202"
    assert outcome.message == ("PV202 the kernel deadlocks at ranks=2 (the reference's own run): every rank waits: "
                               "rank 0 waits for its signal == 2 at line 129 (it holds 1); rank 1 waits for its "
                               "signal == 2 at line 129 (it holds 1)")


def test_the_scheduler_runs_one_rank_at_a_time_and_names_a_deadlock() -> None:
    from pypto_verify.ranks import Deadlock, run_ranks

    log: list[tuple[int, str]] = []
    flags = [0, 0]

    def body(baton) -> None:
        me = baton.rank
        log.append((me, "start"))
        flags[1 - me] = 1
        baton.wait(lambda: flags[me] == 1, lambda: "its flag")
        log.append((me, "end"))
    run_ranks([1, 0], body)
    assert log == [(1, "start"), (0, "start"), (0, "end"), (1, "end")]

    with pytest.raises(Deadlock, match=r"rank 0 waits for never; rank 1 waits for never"):
        run_ranks([0, 1], lambda baton: baton.wait(lambda: False, lambda: "never"))


def test_a_peer_write_at_offsets_read_from_an_index_table_is_skipped_with_its_reason(kernels) -> None:
    outcome = _simulate(kernels["routed_put"].source, kernels["routed_put"].lowered)
    assert outcome.status == "skipped"
    assert outcome.reason.startswith("`pld.tensor.put` (line 148) writes its peer at offsets read from `routes`, an "
                                     "index table another kernel fills")


def test_a_race_that_follows_tables_read_at_run_time_is_skipped_not_a_finding(kernels) -> None:
    """Who waits for whom is read from `owner` (another kernel fills it): the sample table makes a rank skip its
    wait, so the ranks' order changes the result; that is the sample's inconsistency, not the kernel's race."""
    from pypto_verify.dynamic import simulate_kernel

    kernel = kernels["owned_sum"]
    for holder in (0, 1):  # every entry names rank 0 (or 1) the owner: the other rank does not wait
        outcome = simulate_kernel(kernel.source, kernel.lowered, scalars={"owner": holder})
        assert outcome.status == "skipped", outcome.message
        assert "depends on the order the ranks run in" in outcome.reason and "`owner`" in outcome.reason
    # owned by neither: both wait, no race
    assert simulate_kernel(kernel.source, kernel.lowered, scalars={"owner": 2}).message == "match at ranks=2"
