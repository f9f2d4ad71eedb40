"""On-core arrays (issue 14 item 3): `pl.array.create(N, pl.INT32 / pl.INT64)` is PyPTO's
`pto.declare_local_array`, `arr[i] = v` a `pto.local_array_set` in place and `arr[i]` a `pto.local_array_get`; an
array of task ids (`pl.TASK_ID`) only orders tasks and emits nothing (docs/pto-subset.md "Scalars")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, check_text, lowered_kernels, rewrite_call

from pypto_verify.ir import Assign, BinOp, Call, Const, Var, map_stmts

ARRAYS = KERNELS / "arrays.py"


def _kernel(name: str):
    return lowered_kernels(ARRAYS)[name]


def _rewrite(fn, target: str, op: str, change):
    return rewrite_call(fn, op, target, change)


def _simulate(kernel, lowered=None):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered if lowered is None else lowered)


@pytest.mark.parametrize("name", ["row_shuffle", "staged_scale", "swapped_pairs"])
def test_arrays_simulate_and_match(name: str) -> None:
    outcome = _simulate(_kernel(name))
    assert outcome.status == "match", outcome.message


def test_an_array_is_a_local_array_written_and_read_in_place() -> None:
    from pypto_verify.emit import emit

    text = emit(_kernel("row_shuffle").lowered)
    ops = [line.strip().split(" = ")[-1].split(" ")[0] for line in text.splitlines() if "local_array" in line]
    assert ops == ["pto.declare_local_array", "pto.local_array_set", "pto.local_array_get"]
    assert "pto.local_array_set %order[%r], %2 : !pto.local_array<8xi32>, i32" in text


def test_an_array_of_task_ids_emits_nothing() -> None:
    from pypto_verify.emit import emit

    text = emit(_kernel("staged_scale").lowered)
    assert "local_array" not in text and text.count("pto.launch") == 2


def test_an_array_read_at_the_wrong_index_mismatches() -> None:
    kernel = _kernel("row_shuffle")
    wrong = _rewrite(kernel.lowered, "src", "tensor.getitem", lambda call: replace(call, args=(call.args[0], Const(0))))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [1, 0], outcome.message


def test_an_array_written_with_the_wrong_value_mismatches() -> None:
    kernel = _kernel("row_shuffle")
    # order[r] = r: the rows in their own order
    wrong = _rewrite(kernel.lowered, "order", "tensor.setitem", lambda call: replace(call, args=(*call.args[:2], Var("r"))))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [1, 0], outcome.message


def test_an_array_written_in_one_arm_only_mismatches() -> None:
    kernel = _kernel("swapped_pairs")
    hits = []

    def stmt_fn(stmt):  # the odd rows' `order[r] = r - 1` writes row r + 1 instead
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.setitem" \
                and isinstance(stmt.value.args[2], BinOp) and stmt.value.args[2].op == "-":
            hits.append(stmt)
            return (replace(stmt, value=replace(stmt.value, args=(
                stmt.value.args[0], BinOp("+", stmt.value.args[1], Const(1)), stmt.value.args[2]))),)
        return None

    wrong = replace(kernel.lowered, body=map_stmts(kernel.lowered.body, stmt_fn))
    assert len(hits) == 1
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch", outcome.message


UNSET = '''
import pypto.language as pl

ROWS = 8
COLS = 64


@pl.jit
def unset_order(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="unset_order"):
        order = pl.array.create(ROWS, pl.INT32)
        for r in pl.range(1, ROWS):
            order[r] = r
        for r in pl.range(ROWS):
            y[r : r + 1, :] = pl.tile.load(x, [order[r], 0], [1, COLS])
    return y
'''
"""`order[0]` is read and never written."""


def test_an_array_element_read_before_it_is_written_is_not_simulated(tmp_path) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    path = tmp_path / "unset.py"
    path.write_text(UNSET)
    (kernel,) = lower_stage(read_stage(str(path)), Options()).kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped", outcome.message
    assert "element 0 of an array is read before it is written" in outcome.reason


UNSET_TASKS = '''
import pypto.language as pl

ROWS = 8
COLS = 64


@pl.jit
def early_fence(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    waits = pl.array.create(2, pl.TASK_ID)
    first = waits[0]
    with pl.spmd(ROWS, name_hint="copy", deps=[first]) as copy_tid:
        r = pl.tile.get_block_idx()
        y[r : r + 1, :] = pl.tile.load(x, [r, 0], [1, COLS])
    waits[1] = copy_tid
    return y
'''
"""`waits[0]` is read before any task id is written into it: PyPTO's task-id array starts as invalid ids."""


def test_a_task_id_array_element_read_before_it_is_written_orders_nothing_and_matches(tmp_path) -> None:
    file, errors = check_text(tmp_path, UNSET_TASKS, sim=True)
    (kernel,) = file.kernels
    assert not errors and kernel.sim == "match", kernel.sim_reason
