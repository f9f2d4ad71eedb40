"""Element writes into Vec tiles (`pl.write` of a tile: PyPTO's `pto.tsetval`), at a position carried through a loop
and advanced in an `if` on a float condition: a kernel of ours simulates and matches, and a mutated twin (each row
written at its own index instead of the carried one) mismatches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, require_stages

from pypto_verify.ir import Call, Eval, ListExpr, Var, map_stmts

POSITIONS = KERNELS / "kept_positions.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(POSITIONS)), Options()).kernels
    return kernel


def test_tile_element_writes_are_tsetval_and_match() -> None:
    from pypto_verify.dynamic import make_inputs, simulate_kernel
    from pypto_verify.emit import emit
    from pypto_verify.sim import simulate

    kernel = _kernel()
    text = emit(kernel.lowered)
    assert text.count("pto.tsetval ins(") == 2 and ": index, i32) outs(%positions" in text
    assert simulate_kernel(kernel.source, kernel.lowered).status == "match"
    inputs = make_inputs(kernel.source)
    out = simulate(text, "kept_positions", {"arg0": inputs["x"], "arg1": inputs["kept"], "arg2": inputs["leads"]})
    kept = np.flatnonzero(inputs["x"][:, 0] > 0)
    assert 0 < len(kept) < 16  # the samples keep some rows and drop others
    np.testing.assert_array_equal(out["arg1"][0], np.concatenate((kept, np.full(16 - len(kept), -1))))


def test_a_write_at_the_wrong_position_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def at_row(stmt):
        if isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == "tile.write":
            row, _ = stmt.value.args[1].items
            index = ListExpr((row, Var("r")))
            return (replace(stmt, value=replace(stmt.value, args=(stmt.value.args[0], index, stmt.value.args[2]))),)
        return None

    outcome = simulate_kernel(kernel.source, replace(kernel.lowered, body=map_stmts(kernel.lowered.body, at_row)))
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message


def test_tsetval_outside_the_valid_shape_is_refused() -> None:
    from pypto_verify.emit import emit
    from pypto_verify.sim import SimError, simulate

    text = emit(_kernel().lowered).replace("pto.tsetval ins(%9,", "pto.tsetval ins(%c16_index,", 1)
    assert "pto.tsetval ins(%c16_index," in text
    args = {"arg0": np.ones((16, 32), np.float32), "arg1": np.zeros((1, 16), np.int32),
            "arg2": np.zeros((1, 16), np.float32)}
    with pytest.raises(SimError, match="outside the tile's valid 1x16"):
        simulate(text, "kept_positions", args)
