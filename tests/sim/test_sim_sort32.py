"""`pto.tsort32 ins(%src, %idx) outs(%dst)` (docs/pto-subset.md "Vector ops"): each 32-column block sorted
descending, each value followed by the u32 bits of its index, equal values in their column order."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, load, module, store, tile

ARGS = "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<ui32>, %arg2: !pto.ptr<f32>"


def _sort(cols: int = 64, src_dtype: str = "f32") -> str:
    from sim_kernels import view
    return "\n".join([
        "    %c128 = arith.constant 128 : index",
        view("x", "arg0", 2, 64, src_dtype), view("i", "arg1", 2, 64, "ui32"), view("y", "arg2", 2, 128, "f32"),
        load("x", "s", "vec", src_dtype, 2, 64),
        load("i", "k", "vec", "ui32", 2, 64, addr="%a1024"),
        alloc("d", "vec", "f32", 2, 128, addr="%a4096"),
        f"    %dw = pto.alloc_tile addr = %a4096 valid_row = %c2 valid_col = %c{cols} : {tile('vec', 'f32', 2, 128)}",
        f"    pto.tsort32 ins(%s, %k : {tile('vec', src_dtype, 2, 64)}, {tile('vec', 'ui32', 2, 64)}) "
        f"outs(%dw : {tile('vec', 'f32', 2, 128)})",
        store("d", "vec", "f32", 2, 128, "y"),
    ])


def _args(values: np.ndarray) -> dict[str, np.ndarray]:
    return {"arg0": values.astype(np.float32), "arg1": (np.arange(128, dtype=np.uint32) + 1000).reshape(2, 64),
            "arg2": np.zeros((2, 128), np.float32)}


def test_tsort32_sorts_each_block_descending_with_its_index_bits() -> None:
    rng = np.random.default_rng(3)
    values = rng.permutation(128).reshape(2, 64).astype(np.float32)
    values[1, 40] = values[1, 33] = 7.5  # a tie: column order kept
    args = _args(values)
    out = simulate(module(ARGS, _sort(128)), "main", args)["arg2"].reshape(2, 64, 2)
    for r in range(2):
        for b in range(2):
            block = values[r, 32 * b: 32 * b + 32]
            order = sorted(range(32), key=lambda j: (-block[j], j))
            np.testing.assert_array_equal(out[r, 32 * b: 32 * b + 32, 0], block[order])
            expected = args["arg1"][r, 32 * b: 32 * b + 32][order]
            np.testing.assert_array_equal(out[r, 32 * b: 32 * b + 32, 1].view(np.uint32), expected)
    tie = out[1, 32:64, 1].view(np.uint32).tolist()
    assert tie.index(1000 + 64 + 33) < tie.index(1000 + 64 + 40)


def test_tsort32_into_other_than_twice_the_columns_is_rejected() -> None:
    with pytest.raises(SimError, match="tsort32"):
        simulate(module(ARGS, _sort(64)), "main", _args(np.zeros((2, 64))))


def test_tsort32_of_a_nan_is_not_modelled() -> None:
    values = np.zeros((2, 64))
    values[0, 3] = np.nan
    with pytest.raises(SimError, match="NaN") as caught:
        simulate(module(ARGS, _sort(128)), "main", _args(values))
    assert caught.value.rule == ""


def test_tsort32_in_place_is_rejected() -> None:
    from sim_kernels import view
    text = "\n".join([
        "    %c128 = arith.constant 128 : index",
        view("x", "arg0", 2, 64, "f32"), view("i", "arg1", 2, 64, "ui32"), view("y", "arg2", 2, 128, "f32"),
        load("x", "s", "vec", "f32", 2, 64),
        load("i", "k", "vec", "ui32", 2, 64, addr="%a1024"),
        alloc("d", "vec", "f32", 2, 128),  # on the values it sorts
        f"    pto.tsort32 ins(%s, %k : {tile('vec', 'f32', 2, 64)}, {tile('vec', 'ui32', 2, 64)}) "
        f"outs(%d : {tile('vec', 'f32', 2, 128)})",
        store("d", "vec", "f32", 2, 128, "y"),
    ])
    with pytest.raises(SimError, match="does not sort in place") as caught:
        simulate(module(ARGS, text), "main", _args(np.zeros((2, 64))))
    assert caught.value.rule == "PV202"
