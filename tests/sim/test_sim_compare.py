"""`pto.tcmps` / `pto.tcmp` and `pto.tsel` (docs/pto-subset.md "Vector ops"): PyPTO's packed predicate mask, lane j
of a row in bit j % 8 (least significant first) of byte j // 8, and the select that reads it."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, load, module, store, tile, view

F32 = tile("vec", "f32", 4, 16)
MASK = tile("vec", "ui8", 4, 32)
TMP = tile("vec", "ui8", 1, 32)
ARGS = "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<ui8>, %arg2: !pto.ptr<f32>"


def _mask(mode: str = "ge", valid_cols: int = 16, rhs: str = "%s", rhs_type: str = "f32", op: str = "tcmps") -> str:
    """`x` (4 x valid_cols f32) compared into the mask stored to arg1 (4 x 2 bytes); then a select of 1 / 0 into arg2."""
    return "\n".join([
        view("x", "arg0", 4, 16, "f32"), view("m", "arg1", 4, 2, "ui8"), view("y", "arg2", 4, 16, "f32"),
        f"    %a = pto.alloc_tile addr = %a0 valid_row = %c4 valid_col = %c{valid_cols} : {F32}",
        f"    %xw = pto.alloc_tile addr = %a0 valid_row = %c4 valid_col = %c16 : {F32}",
        f"    pto.tload ins(%x : !pto.partition_tensor_view<4x16xf32>) outs(%xw : {F32})",
        "    %s = arith.constant 0.5 : f32",
        load("x", "b", "vec", "f32", 4, 16, addr="%a256"),
        f"    %mk = pto.alloc_tile addr = %a1024 valid_row = %c4 valid_col = %c2 : {MASK}",
        f"    pto.{op} ins(%a, {rhs} {{cmpMode = #pto<cmp {mode}>}} : {F32}, {rhs_type}) outs(%mk : {MASK})",
        store("mk", "vec", "ui8", 4, 2, "m").replace(tile("vec", "ui8", 4, 2), MASK),
        "    %one = arith.constant 1.0 : f32",
        "    %zero = arith.constant 0.0 : f32",
        alloc("o", "vec", "f32", 4, 16, addr="%a4096"),
        alloc("z", "vec", "f32", 4, 16, addr="%a8192"),
        f"    pto.texpands ins(%one : f32) outs(%o : {F32})",
        f"    pto.texpands ins(%zero : f32) outs(%z : {F32})",
        alloc("t", "vec", "ui8", 1, 32, addr="%a16384"),
        f"    pto.tsel ins(%mk, %o, %z, %t : {MASK}, {F32}, {F32}, {TMP}) outs(%o : {F32})",
        store("o", "vec", "f32", 4, 16, "y"),
    ])


def _args(x: np.ndarray | None = None) -> dict[str, np.ndarray]:
    if x is None:
        x = (np.arange(64, dtype=np.float32).reshape(4, 16) - 24) / 32  # -0.75 .. 1.21875, 0.5 at [2, 8]
    return {"arg0": x, "arg1": np.zeros((4, 2), np.uint8), "arg2": np.zeros((4, 16), np.float32)}


def _run(text: str, args: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return simulate(module(ARGS, text), "main", args)


@pytest.mark.parametrize("mode, holds", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less),
                                         ("le", np.less_equal), ("gt", np.greater), ("ge", np.greater_equal)])
def test_tcmps_packs_lane_j_into_bit_j_mod_8_and_tsel_reads_it(mode, holds) -> None:
    args = _args()
    out = _run(_mask(mode), args)
    bits = holds(args["arg0"], np.float32(0.5))
    np.testing.assert_array_equal(out["arg1"], np.packbits(bits, axis=1, bitorder="little"))
    np.testing.assert_array_equal(out["arg2"], bits.astype(np.float32))


def test_the_first_lane_is_the_least_significant_bit() -> None:
    x = np.zeros((4, 16), np.float32)
    x[0, 0] = x[1, 9] = 1.0
    out = _run(_mask("gt"), _args(x))
    assert out["arg1"][0].tolist() == [1, 0] and out["arg1"][1].tolist() == [0, 2] and not out["arg1"][2:].any()


def test_tcmp_compares_two_tiles() -> None:
    args = _args()
    out = _run(_mask("lt", rhs="%b", rhs_type=F32, op="tcmp"), args)
    assert not out["arg2"].any()  # x < x nowhere
    out = _run(_mask("le", rhs="%b", rhs_type=F32, op="tcmp"), args)
    assert out["arg2"].all()


def test_a_nan_lane_is_not_simulated() -> None:
    x = np.zeros((4, 16), np.float32)
    x[3, 15] = np.nan
    with pytest.raises(SimError, match="a NaN lane: its compare is not modelled"):
        _run(_mask(), _args(x))


def test_valid_columns_that_are_not_whole_mask_bytes_are_not_simulated() -> None:
    with pytest.raises(SimError, match="4 valid columns are not whole bytes"):
        _run(_mask(valid_cols=4), _args())


def test_an_unknown_cmp_mode_is_rejected() -> None:
    with pytest.raises(SimError, match="cmpMode #pto<cmp ult> is not one of"):
        _run(_mask("ult"), _args())


def test_tsel_into_its_mask_is_rejected() -> None:
    text = _mask().replace(f"outs(%o : {F32})\n" + store("o", "vec", "f32", 4, 16, "y"),
                           f"outs(%ow : {F32})\n" + store("o", "vec", "f32", 4, 16, "y"))
    text = text.replace("    pto.tsel", f"    %ow = pto.alloc_tile addr = %a1024 valid_row = %c4 valid_col = %c16 : {F32}\n"
                                       "    pto.tsel")
    with pytest.raises(SimError, match="the destination .* overlaps the mask"):
        _run(text, _args())
