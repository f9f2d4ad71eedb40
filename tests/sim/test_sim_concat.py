"""`pto.tconcat ins(%a, %b) outs(%c)` (docs/pto-subset.md "Vector ops"): a's valid columns, then b's."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, load, module, store, tile, view


def _concat(dst_cols: int) -> str:
    return "\n".join([
        view("x", "arg0", 4, 8, "f32"), view("y", "arg1", 4, 16, "f32"),
        load("x", "a", "vec", "f32", 4, 8),
        load("x", "b", "vec", "f32", 4, 8, addr="%a256"),
        "    %one = arith.constant 1.0 : f32",
        f"    pto.tadds ins(%b, %one : {tile('vec', 'f32', 4, 8)}, f32) outs(%b : {tile('vec', 'f32', 4, 8)})",
        alloc("c", "vec", "f32", 4, 16, addr="%a1024"),
        f"    %cw = pto.alloc_tile addr = %a1024 valid_row = %c4 valid_col = %c{dst_cols} : {tile('vec', 'f32', 4, 16)}",
        f"    pto.tconcat ins(%a, %b : {tile('vec', 'f32', 4, 8)}, {tile('vec', 'f32', 4, 8)}) "
        f"outs(%cw : {tile('vec', 'f32', 4, 16)})",
        store("c", "vec", "f32", 4, 16, "y"),
    ])


def _args() -> dict[str, np.ndarray]:
    return {"arg0": np.arange(32, dtype=np.float32).reshape(4, 8), "arg1": np.zeros((4, 16), np.float32)}


def test_tconcat_puts_the_second_source_after_the_first() -> None:
    args = _args()
    out = simulate(module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", _concat(16)), "main", args)["arg1"]
    np.testing.assert_array_equal(out, np.concatenate((args["arg0"], args["arg0"] + 1), axis=1))


def test_tconcat_into_other_than_both_sources_columns_is_rejected() -> None:
    with pytest.raises(SimError, match="valid shapes 4x8 and 4x8 into a destination of 4x8"):
        simulate(module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", _concat(8)), "main", _args())
