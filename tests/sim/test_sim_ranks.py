"""Ranks (docs/pto-subset.md "Ranks"): `simulate_ranks` runs a function once per rank over shared window
arguments, `pto.comm.peer` reaching another rank's window, `pto.comm.tnotify` / `twait` / `tput` acting on it."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate, simulate_ranks
from sim_kernels import CONSTANTS, load, pview, store, view

SIGNAL = pview(1, 1, "i32")


def _module(body: str) -> str:
    """`@main(x, inbox window, flag window, rank)`: x and inbox are 4 x 8 f32, flag 2 x 1 i32."""
    return ('module attributes {pto.target_arch = "a2a3"} {\n'
            "  func.func @main(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<i32>, %arg3: index) "
            "attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n"
            f"{CONSTANTS}\n{body}\n    return\n  }}\n}}\n")


def _peer(arg: str, name: str, rows: int, cols: int, dtype: str) -> str:
    """`%name`: the whole window *arg* of the other rank (1 - rank) as a partition view."""
    return "\n".join([
        f"    %{name}_r = arith.subi %c1, %arg3 : index",
        f"    %{name}_p = pto.comm.peer %{arg}, %{name}_r : !pto.ptr<{dtype}> -> !pto.ptr<{dtype}>",
        view(name, f"{name}_p", rows, cols, dtype),
    ])


def _cell(name: str, source: str, row: str) -> str:
    return (f"    %{name} = pto.partition_view %{source}_v, offsets = [{row}, %c0], sizes = [%c1, %c1] : "
            f"!pto.tensor_view<?x?xi32> -> {SIGNAL}")


def _exchange(wait: str = "pto.comm.twait(%own, %one : {s}, i32) {{cmp = #pto<wait_cmp ge>}}") -> str:
    """Each rank puts x into the other's inbox, adds 1 to the other's flag at its own row, waits on its own flag
    at the other's row."""
    return "\n".join([
        view("x", "arg0", 4, 8, "f32"),
        _peer("arg1", "theirs", 4, 8, "f32"),
        "    pto.comm.tput(%theirs, %x : {p}, {p}) {{atomicType = #pto<atomic_type atomic_none>}}".format(
            p=pview(4, 8, "f32")),
        _peer("arg2", "flag", 2, 1, "i32"),
        _cell("their_cell", "flag", "%arg3"),
        "    %one = arith.index_cast %c1 : index to i32",
        f"    pto.comm.tnotify(%their_cell, %one : {SIGNAL}, i32) {{notifyOp = #pto<notify_op atomic_add>}}",
        view("mine", "arg2", 2, 1, "i32"),
        "    %other = arith.subi %c1, %arg3 : index",
        _cell("own", "mine", "%other"),
        "    " + wait.format(s=SIGNAL),
    ])


def _args(rank: int, x: np.ndarray) -> dict[str, object]:
    return {"arg0": x, "arg1": np.zeros((4, 8), np.float32), "arg2": np.zeros((2, 1), np.int32), "arg3": rank}


@pytest.mark.parametrize("in_order", [False, True])
def test_a_put_and_a_notify_reach_the_other_ranks_windows(in_order) -> None:
    xs = [np.arange(32, dtype=np.float32).reshape(4, 8) + 100 * r for r in range(2)]
    finals = simulate_ranks(_module(_exchange()), "main", [_args(r, xs[r]) for r in range(2)],
                            frozenset({"arg1", "arg2"}), in_order=in_order)
    for rank in range(2):
        np.testing.assert_array_equal(finals[rank]["arg1"], xs[1 - rank])
        assert finals[rank]["arg2"].ravel().tolist() == ([0, 1] if rank == 0 else [1, 0])


def test_a_wait_no_rank_satisfies_is_a_deadlock_naming_every_wait() -> None:
    never = "pto.comm.twait(%own, %one : {s}, i32) {{cmp = #pto<wait_cmp eq>}}\n    %two = arith.index_cast %c2 : " \
            "index to i32\n    pto.comm.twait(%own, %two : {s}, i32) {{cmp = #pto<wait_cmp eq>}}"
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(SimError, match=r"deadlock: every rank waits: rank 0 waits for its signal == 2 at PTO line "
                                       r"\d+ \(it holds 1\); rank 1 waits for its signal == 2") as caught:
        simulate_ranks(_module(_exchange(never)), "main", [_args(r, x) for r in range(2)],
                       frozenset({"arg1", "arg2"}))
    assert caught.value.rule == "PV202"


def test_a_peer_of_an_argument_that_is_not_a_window_is_rejected() -> None:
    body = _peer("arg0", "theirs", 4, 8, "f32")
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(SimError, match=r"%arg0 is not a window argument") as caught:
        simulate_ranks(_module(body), "main", [_args(r, x) for r in range(2)], frozenset({"arg1", "arg2"}))
    assert caught.value.rule == "PV202"


def test_a_peer_outside_a_multi_rank_run_is_rejected() -> None:
    with pytest.raises(SimError, match=r"pto.comm.peer outside a multi-rank run") as caught:
        simulate(_module(_exchange()), "main", _args(0, np.zeros((4, 8), np.float32)))
    assert caught.value.rule == "PV202"


def test_a_peer_rank_outside_the_run_is_rejected() -> None:
    body = "\n".join([
        "    %p = pto.comm.peer %arg1, %c2 : !pto.ptr<f32> -> !pto.ptr<f32>",
        view("far", "p", 4, 8, "f32"),
    ])
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(SimError, match=r"rank 2 is outside the run's 2 ranks"):
        simulate_ranks(_module(body), "main", [_args(r, x) for r in range(2)], frozenset({"arg1", "arg2"}))


def test_a_remote_load_reads_the_peers_window() -> None:
    body = "\n".join([
        view("x", "arg0", 4, 8, "f32"), view("inbox", "arg1", 4, 8, "f32"),
        load("x", "t", "vec", "f32", 4, 8),
        store("t", "vec", "f32", 4, 8, "inbox"),
        _peer("arg1", "theirs", 4, 8, "f32"),
        load("theirs", "u", "vec", "f32", 4, 8, addr="%a1024"),
        store("u", "vec", "f32", 4, 8, "x"),
    ])
    xs = [np.full((4, 8), 1.0 + r, np.float32) for r in range(2)]
    # in order: rank 0 reads rank 1's inbox before rank 1 stores it (zeros); rank 1 then reads rank 0's
    finals = simulate_ranks(_module(body), "main", [_args(r, xs[r]) for r in range(2)],
                            frozenset({"arg1", "arg2"}), in_order=True)
    assert (finals[0]["arg0"] == 0).all() and (finals[1]["arg0"] == 1).all()
