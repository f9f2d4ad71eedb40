"""One test per vector instruction added to docs/pto-subset.md for the corpus: unary math, scalar
forms, the texpands fill, row / column reductions and row / column broadcasts."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, bf16, load, module, store, tile, view

RNG = np.random.default_rng(20260802)
ADDRS = ("%a0", "%a1024", "%a4096")


def _kernel(op_line: str, inputs: list[tuple[int, int]], out: tuple[int, int], dtype: str = "f32",
            consts: str = "") -> str:
    """`@main(arg0.., argN)`: load each input `(rows, cols)` into `%t0 ..`, run *op_line* into
    `%z` of shape *out*, store `%z` to the last argument."""
    args = ", ".join(f"%arg{i}: !pto.ptr<{dtype}>" for i in range(len(inputs) + 1))
    lines = [consts]
    for i, (rows, cols) in enumerate(inputs):
        lines += [view(f"x{i}", f"arg{i}", rows, cols, dtype),
                  load(f"x{i}", f"t{i}", "vec", dtype, rows, cols, ADDRS[i])]
    rows, cols = out
    lines += [alloc("z", "vec", dtype, rows, cols, "%a8192"), op_line,
              view("out", f"arg{len(inputs)}", rows, cols, dtype),
              store("z", "vec", dtype, rows, cols, "out")]
    return module(args, "\n".join(lines))


def _run(text: str, arrays: list[np.ndarray], out: tuple[int, int], dtype=np.float32) -> np.ndarray:
    args = {f"arg{i}": a for i, a in enumerate(arrays)}
    args[f"arg{len(arrays)}"] = np.zeros(out, dtype)
    return simulate(text, "main", args)[f"arg{len(arrays)}"]


def _t(rows: int, cols: int, dtype: str = "f32") -> str:
    return tile("vec", dtype, rows, cols)


UNARY = {
    "pto.trecip": lambda x: np.float32(1) / x,
    "pto.trsqrt": lambda x: np.float32(1) / np.sqrt(x),
    "pto.tsqrt": np.sqrt,
    "pto.tlog": np.log,
    "pto.tabs": np.abs,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math_op_is_elementwise_in_f32(name: str) -> None:
    text = _kernel(f"    {name} ins(%t0 : {_t(4, 8)}) outs(%z : {_t(4, 8)})", [(4, 8)], (4, 8))
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    if name != "pto.tabs":
        x = np.abs(x) + np.float32(0.25)
    np.testing.assert_array_equal(_run(text, [x], (4, 8)), UNARY[name](x))


def test_trecip_on_bf16_rounds_the_f32_reciprocal_half_to_even() -> None:
    text = _kernel(f"    pto.trecip ins(%t0 : {_t(4, 8, 'bf16')}) outs(%z : {_t(4, 8, 'bf16')})",
                   [(4, 8)], (4, 8), dtype="bf16")
    x = bf16(RNG.standard_normal((4, 8)) + 3)
    np.testing.assert_array_equal(_run(text, [x], (4, 8)), bf16(np.float32(1) / x))


def test_float_only_unary_op_rejects_an_integer_tile() -> None:
    text = _kernel(f"    pto.trsqrt ins(%t0 : {_t(4, 8, 'i32')}) outs(%z : {_t(4, 8, 'i32')})",
                   [(4, 8)], (4, 8), dtype="i32")
    with pytest.raises(SimError) as error:
        simulate(text, "main", {})
    assert error.value.rule == "PV202" and "needs a float tile" in error.value.message


SCALAR = {"pto.tsubs": np.subtract, "pto.tdivs": np.divide, "pto.tmaxs": np.maximum,
          "pto.tmins": np.minimum}


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_scalar_form_applies_the_scalar_to_every_element(name: str) -> None:
    text = _kernel(f"    {name} ins(%t0, %s : {_t(4, 8)}, f32) outs(%z : {_t(4, 8)})", [(4, 8)],
                   (4, 8), consts="    %s = arith.constant 0.75 : f32")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    np.testing.assert_array_equal(_run(text, [x], (4, 8)), SCALAR[name](x, np.float32(0.75)))


def test_tdivs_on_integers_truncates_toward_zero() -> None:
    text = _kernel(f"    pto.tdivs ins(%t0, %s : {_t(4, 8, 'i32')}, i32) outs(%z : {_t(4, 8, 'i32')})",
                   [(4, 8)], (4, 8), dtype="i32", consts="    %s = arith.constant 2 : i32")
    x = np.arange(-16, 16, dtype=np.int32).reshape(4, 8)
    np.testing.assert_array_equal(_run(text, [x], (4, 8), np.int32), np.trunc(x / 2).astype(np.int32))


def test_texpands_fills_the_valid_region_with_an_f32_scalar() -> None:
    fill = "    %s = arith.constant -1.5 : f32"
    text = _kernel(f"    pto.texpands ins(%s : f32) outs(%z : {_t(4, 8)})", [], (4, 8), consts=fill)
    np.testing.assert_array_equal(_run(text, [], (4, 8)), np.full((4, 8), -1.5, np.float32))


def test_texpands_of_negative_infinity_spelled_in_hex() -> None:
    fill = "    %s = arith.constant 0xFF800000 : f32"
    text = _kernel(f"    pto.texpands ins(%s : f32) outs(%z : {_t(4, 8, 'bf16')})", [], (4, 8),
                   dtype="bf16", consts=fill)
    np.testing.assert_array_equal(_run(text, [], (4, 8)), np.full((4, 8), -np.inf, np.float32))


def test_texpands_fills_an_integer_tile_with_an_integer_scalar() -> None:
    fill = "    %s = arith.constant 7 : i32"
    text = _kernel(f"    pto.texpands ins(%s : i32) outs(%z : {_t(4, 8, 'i32')})", [], (4, 8),
                   dtype="i32", consts=fill)
    np.testing.assert_array_equal(_run(text, [], (4, 8), np.int32), np.full((4, 8), 7, np.int32))


def test_texpands_rejects_a_scalar_of_the_other_kind() -> None:
    fill = "    %s = arith.constant 7 : i32"
    text = _kernel(f"    pto.texpands ins(%s : i32) outs(%z : {_t(4, 8)})", [], (4, 8), consts=fill)
    with pytest.raises(SimError) as error:
        simulate(text, "main", {})
    assert error.value.rule == "PV202" and "cannot fill a f32 tile with a i32 scalar" in error.value.message


REDUCE = {
    "pto.trowsum": (np.add, 1), "pto.trowmax": (np.maximum, 1), "pto.trowmin": (np.minimum, 1),
    "pto.tcolsum": (np.add, 0), "pto.tcolmax": (np.maximum, 0), "pto.tcolmin": (np.minimum, 0),
}


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduction_collapses_rows_or_columns_in_f32(name: str) -> None:
    reduce, axis = REDUCE[name]
    out = (4, 1) if axis == 1 else (1, 8)
    text = _kernel(f"    {name} ins(%t0 : {_t(4, 8)}) outs(%z : {_t(*out)})", [(4, 8)], out)
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    np.testing.assert_array_equal(_run(text, [x], out), reduce.reduce(x, axis=axis, keepdims=True))


def test_trowsum_reads_only_the_valid_columns() -> None:
    # a 4x8 tile whose valid region is 4x5: the poisoned / stale columns 5..7 are not summed
    body = "\n".join([
        view("x", "arg0", 4, 8, "f32"), load("x", "full", "vec", "f32", 4, 8),
        f"    %part = pto.alloc_tile addr = %a0 valid_row = %c4 valid_col = %c5 : {_t(4, 8)}",
        alloc("z", "vec", "f32", 4, 1, "%a4096"),
        f"    pto.trowsum ins(%part : {_t(4, 8)}) outs(%z : {_t(4, 1)})",
        view("out", "arg1", 4, 1, "f32"), store("z", "vec", "f32", 4, 1, "out")])
    text = module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", body)
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": np.zeros((4, 1), np.float32)})["arg1"]
    np.testing.assert_array_equal(out, x[:, :5].sum(axis=1, keepdims=True, dtype=np.float32))


def test_reduction_into_a_wrong_shape_is_rejected() -> None:
    text = _kernel(f"    pto.trowsum ins(%t0 : {_t(4, 8)}) outs(%z : {_t(1, 8)})", [(4, 8)], (1, 8))
    with pytest.raises(SimError) as error:
        _run(text, [np.zeros((4, 8), np.float32)], (1, 8))
    assert error.value.rule == "PV202" and "shape mismatch: 4x1" in error.value.message


EXPAND = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("kind", sorted(EXPAND))
@pytest.mark.parametrize("axis", ["row", "col"])
def test_expand_op_broadcasts_a_row_or_column_vector(axis: str, kind: str) -> None:
    vec = (4, 1) if axis == "row" else (1, 8)
    text = _kernel(f"    pto.t{axis}expand{kind} ins(%t0, %t1 : {_t(4, 8)}, {_t(*vec)}) "
                   f"outs(%z : {_t(4, 8)})", [(4, 8), vec], (4, 8))
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    v = RNG.standard_normal(vec).astype(np.float32) + 3
    np.testing.assert_array_equal(_run(text, [x, v], (4, 8)), EXPAND[kind](x, v))


def test_expand_op_in_place_overwrites_its_source() -> None:
    body = "\n".join([
        view("x", "arg0", 4, 8, "f32"), load("x", "t", "vec", "f32", 4, 8),
        view("r", "arg1", 4, 1, "f32"), load("r", "row", "vec", "f32", 4, 1, "%a1024"),
        f"    pto.trowexpandsub ins(%t, %row : {_t(4, 8)}, {_t(4, 1)}) outs(%t : {_t(4, 8)})",
        view("out", "arg2", 4, 8, "f32"), store("t", "vec", "f32", 4, 8, "out")])
    text = module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>", body)
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    row = RNG.standard_normal((4, 1)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": row, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg2"], x - row)


def test_expand_op_with_a_mis_shaped_vector_is_rejected() -> None:
    text = _kernel(f"    pto.trowexpandmul ins(%t0, %t1 : {_t(4, 8)}, {_t(1, 8)}) outs(%z : {_t(4, 8)})",
                   [(4, 8), (1, 8)], (4, 8))
    with pytest.raises(SimError) as error:
        _run(text, [np.zeros((4, 8), np.float32), np.zeros((1, 8), np.float32)], (4, 8))
    assert error.value.rule == "PV202" and "shape mismatch: 4x1" in error.value.message


def test_textract_copies_a_window_of_a_vec_tile_into_a_vec_tile() -> None:
    text = _kernel(f"    pto.textract ins(%t0, %c2, %c4 : {_t(8, 16)}, index, index) outs(%z : {_t(4, 8)})",
                   [(8, 16)], (4, 8))
    x = RNG.standard_normal((8, 16)).astype(np.float32)
    np.testing.assert_array_equal(_run(text, [x], (4, 8)), x[2:6, 4:12])


def test_vec_textract_does_not_transpose() -> None:
    text = _kernel(f"    pto.textract ins(%t0, %c0, %c0 : {_t(8, 8)}, index, index) outs(%z : {_t(8, 8)}) "
                   "{transpose = true}", [(8, 8)], (8, 8))
    with pytest.raises(SimError) as error:
        simulate(text, "main", {})
    assert error.value.rule == "PV202" and "does not transpose" in error.value.message
