"""`pto.tmrgsort` format 2 (docs/pto-subset.md "Vector ops"): `ins(%src0, %src1, %tmp {exhausted = false}) outs(%dst,
%executed)` merges the lists pair by pair into the workspace, the head of greatest value first and the earlier list
on a tie, then copies the workspace into dst; a workspace on a list, or too narrow, is illegal."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, parse_pto, simulate
from sim_kernels import alloc, load, module, store, tile, view

ARGS = "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>"
VEC = tile("vec", "f32", 1, 16)
WIDE = tile("vec", "f32", 1, 32)


def _merge(tmp_addr: str = "%a256", tmp_cols: int = 32, exhausted: str = "false") -> str:
    workspace = tile("vec", "f32", 1, tmp_cols)
    return "\n".join([
        view("a", "arg0", 1, 16, "f32"), view("b", "arg1", 1, 16, "f32"), view("y", "arg2", 1, 32, "f32"),
        load("a", "s0", "vec", "f32", 1, 16),
        load("b", "s1", "vec", "f32", 1, 16, addr="%a64"),
        f"    %t = pto.alloc_tile addr = {tmp_addr} valid_row = %c1 valid_col = %c{tmp_cols} : {workspace}",
        alloc("d", "vec", "f32", 1, 32, addr="%a1024"),
        "    %executed = arith.constant dense<0> : vector<4xi16>",
        f"    pto.tmrgsort ins(%s0, %s1, %t {{exhausted = {exhausted}}} : {VEC}, {VEC}, {workspace}) "
        f"outs(%d, %executed : {WIDE}, vector<4xi16>)",
        store("d", "vec", "f32", 1, 32, "y"),
    ])


def _pairs(values: list[float], first_index: int) -> np.ndarray:
    """One row of (value, index) pairs, the indices' u32 bits in the odd lanes."""
    pairs = np.empty((1, 2 * len(values)), np.float32)
    pairs[0, 0::2] = values
    pairs[0, 1::2] = (np.arange(len(values), dtype=np.uint32) + first_index).view(np.float32)
    return pairs


def _args() -> dict[str, np.ndarray]:
    return {"arg0": _pairs([9, 5, 3, 3, 2, 1, 0, -1], 100), "arg1": _pairs([7, 3, 3, 2, 2, -4, -5, -6], 200),
            "arg2": np.zeros((1, 32), np.float32)}


def test_lists_merge_descending_the_earlier_list_first_on_a_tie() -> None:
    out = simulate(module(ARGS, _merge()), "main", _args())["arg2"].reshape(16, 2)
    np.testing.assert_array_equal(out[:, 0], [9, 7, 5, 3, 3, 3, 3, 2, 2, 2, 1, 0, -1, -4, -5, -6])
    assert out[:, 1].view(np.uint32).tolist() == [100, 200, 101, 102, 103, 201, 202, 104, 203, 204, 105, 106, 107,
                                                  205, 206, 207]


def test_the_vector_status_and_the_workspace_attribute_parse() -> None:
    (op,) = [o for o in parse_pto(module(ARGS, _merge())).functions[0].body if o.name == "pto.tmrgsort"]
    assert op.attr("exhausted") is False and str(op.types[-1]) == "vector<4xi16>"


def test_a_workspace_on_a_list_is_rejected() -> None:
    with pytest.raises(SimError, match="workspace .* overlaps list 1") as caught:
        simulate(module(ARGS, _merge(tmp_addr="%a64")), "main", _args())
    assert caught.value.rule == "PV202"


def test_a_workspace_narrower_than_the_merge_is_rejected() -> None:
    with pytest.raises(SimError, match="workspace of 16 columns") as caught:
        simulate(module(ARGS, _merge(tmp_cols=16)), "main", _args())
    assert caught.value.rule == "PV202"


def test_an_exhausted_merge_is_outside_the_subset() -> None:
    with pytest.raises(SimError, match="exhausted") as caught:
        simulate(module(ARGS, _merge(exhausted="true")), "main", _args())
    assert caught.value.rule == ""
