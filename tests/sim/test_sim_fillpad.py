"""`pto.tfillpad` (docs/pto-subset.md, vector ops): the source's valid region into a whole-valid
destination, the padding set from the destination type's `pad=` code; in place over the source's bytes."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, module, pview, store, tile, view


def _padded(dtype: str, pad: int) -> str:
    return tile("vec", dtype, 4, 8).replace("pad=0>", f"pad={pad}>")


def _kernel(dtype: str, pad: int, dst_valid_cols: int = 8, dst_addr: str = "%a0") -> str:
    """Load the 4x3 window of `arg0` into a 4x8 tile (valid 4x3), fill it into `%z`, store `%z` whole."""
    t = tile("vec", dtype, 4, 8)
    body = "\n".join([
        view("x", "arg0", 4, 3, dtype),
        f"    %t = pto.alloc_tile addr = %a0 valid_row = %c4 valid_col = %c3 : {t}",
        f"    pto.tload ins(%x : {pview(4, 3, dtype)}) outs(%t : {t})",
        f"    %z = pto.alloc_tile addr = {dst_addr} valid_row = %c4 valid_col = %c{dst_valid_cols} : "
        f"{_padded(dtype, pad)}",
        f"    pto.tfillpad ins(%t : {t}) outs(%z : {_padded(dtype, pad)})",
        view("out", "arg1", 4, 8, dtype),
        store("z", "vec", dtype, 4, 8, "out").replace(tile("vec", dtype, 4, 8), _padded(dtype, pad)),
    ])
    return module(f"%arg0: !pto.ptr<{dtype}>, %arg1: !pto.ptr<{dtype}>", body)


@pytest.mark.parametrize(("pad", "fill"), [(1, 0.0), (2, np.inf), (3, -np.inf)])
def test_a_float_fill_sets_the_padding_in_place(pad: int, fill: float) -> None:
    x = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    out = simulate(_kernel("f32", pad), "main", {"arg0": x, "arg1": np.zeros((4, 8), np.float32)})["arg1"]
    np.testing.assert_array_equal(out[:, :3], x)
    np.testing.assert_array_equal(out[:, 3:], np.full((4, 5), fill, np.float32))


def test_an_integer_fill_max_is_the_dtypes_largest() -> None:
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    text = _kernel("i32", 2, dst_addr="%a1024")
    out = simulate(text, "main", {"arg0": x, "arg1": np.zeros((4, 8), np.int32)})["arg1"]
    np.testing.assert_array_equal(out[:, :3], x)
    assert (out[:, 3:] == np.iinfo(np.int32).max).all()


def test_a_destination_without_a_pad_value_is_rejected() -> None:
    with pytest.raises(SimError) as error:
        simulate(_kernel("f32", 0), "main", {})
    assert error.value.rule == "PV202" and "no pad value" in error.value.message


def test_a_destination_not_valid_whole_is_rejected() -> None:
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(SimError) as error:
        simulate(_kernel("f32", 1, dst_valid_cols=5), "main", {"arg0": x, "arg1": np.zeros((4, 8), np.float32)})
    assert error.value.rule == "PV202" and "is not its whole 4x8" in error.value.message
