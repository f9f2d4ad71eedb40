"""Scalars carried through `scf.for` (`iter_args` / `scf.yield`) and `scf.if` results (docs/pto-subset.md "Control
flow"): PyPTO's form of a scalar loop carry and a scalar phi."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, module, pview, store, view

I32 = "!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, " \
      "slayout=row_major, fractal=512, pad=0>"


def _stored(value: str) -> str:
    """Row 0 of y (1 x 8 i32) filled with the index *value*."""
    return "\n".join([
        alloc("t", "vec", "i32", 1, 8),
        f"    pto.texpands ins(%{value} : index) outs(%t : {I32})",
        f"    %yw = pto.partition_view %y_v, offsets = [%c0, %c0], sizes = [%c1, %c8] : "
        f"!pto.tensor_view<?x?xi32> -> {pview(1, 8, 'i32')}",
        store("t", "vec", "i32", 1, 8, "yw"),
    ])


def _run(loop: str, result: str = "total") -> int:
    body = "\n".join([view("y", "arg0", 1, 8, "i32"), loop, _stored(result)])
    out = simulate(module("%arg0: !pto.ptr<i32>", body), "main", {"arg0": np.zeros((1, 8), np.int32)})["arg0"]
    assert (out == out[0, 0]).all()
    return int(out[0, 0])


SUM = """    %total = scf.for %i = %c0 to %UB step %c1 iter_args(%acc = %c3) -> (index) {
      %next = arith.addi %acc, %i : index
      scf.yield %next : index
    }"""


def test_a_carried_scalar_starts_at_its_init_and_takes_each_yield() -> None:
    assert _run(SUM.replace("%UB", "%c5")) == 3 + 0 + 1 + 2 + 3 + 4


def test_a_loop_that_runs_no_iteration_results_in_its_init() -> None:
    assert _run(SUM.replace("%UB", "%c0")) == 3


def test_yields_are_read_before_any_is_written() -> None:
    # a swap: (a, b) <- (b, a) three times
    loop = """    %total, %other = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %c1, %b = %c2) -> (index, index) {
      scf.yield %b, %a : index, index
    }"""
    assert _run(loop) == 2


def test_an_if_with_results_gives_the_taken_arm_s_yield() -> None:
    loop = """    %total = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %c0) -> (index) {
      %r = arith.remsi %i, %c2 : index
      %even = arith.cmpi eq, %r, %c0 : index
      %picked = scf.if %even -> (index) {
        %more = arith.addi %acc, %c1 : index
        scf.yield %more : index
      } else {
        scf.yield %acc : index
      }
      scf.yield %picked : index
    }"""
    assert _run(loop) == 3


@pytest.mark.parametrize("loop, message", [
    (SUM.replace("%UB", "%c5").replace("      scf.yield %next : index\n", ""), "does not end in its one scf.yield"),
    (SUM.replace("%UB", "%c5").replace("scf.yield %next : index", "scf.yield %next, %next : index, index"),
     "scf.yield of index, index where index is carried"),
    ("    %t1 = arith.constant true : i1\n    %total = scf.if %t1 -> (index) {\n      scf.yield %c1 : index\n    }",
     "has no else region"),
    ("    scf.yield %c1 : index\n    %total = arith.addi %c1, %c1 : index", "scf.yield outside"),
])
def test_a_malformed_carry_is_refused(loop: str, message: str) -> None:
    with pytest.raises(SimError, match=message):
        _run(loop)
