"""The value-semantic reference (pypto_verify/reference.py) on Form 1 and Form 2 IR built in Python."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import builders as b
from pypto_verify.ir import DType, LoopKind
from pypto_verify.reference import ReferenceError, round_bf16, run_reference, to_dtype

RNG = np.random.default_rng(7)


def _normal(*shape: int, dtype: DType = DType.FP32) -> np.ndarray:
    return to_dtype(RNG.standard_normal(shape), dtype)


def test_bf16_rounding_is_half_to_even() -> None:
    one = np.float32(1.0)
    ulp = np.float32(2.0 ** -7)
    values = np.array([one + ulp / 2, one + 3 * ulp / 2, -(one + ulp / 2), np.nan, 3.40e38], np.float32)
    rounded = round_bf16(values)
    assert rounded[0] == one and rounded[1] == one + 2 * ulp and rounded[2] == -one
    assert np.isnan(rounded[3]) and np.isinf(rounded[4])


def test_tile_gemm_with_init_cond_is_the_matmul() -> None:
    a, w = _normal(64, 256), _normal(256, 64)
    result = run_reference(b.gemm_predicated(False), {"a": a, "b": w, "out": np.zeros((64, 64))})
    np.testing.assert_allclose(result.outputs["out"], a @ w, rtol=1e-5, atol=1e-4)
    assert result.max_k == 256


def test_int8_inputs_accumulate_exactly_in_int32() -> None:
    x = RNG.integers(-3, 4, (16, 64))
    w = RNG.integers(-3, 4, (64, 32))
    result = run_reference(b.int8_padded(False), {"x": x, "w": w, "y": np.zeros((16, 32), np.int64)})
    assert result.outputs["y"].dtype == np.int64
    np.testing.assert_array_equal(result.outputs["y"], x @ w)


def test_store_to_a_narrower_tensor_rounds_and_atomic_adds() -> None:
    x, w = _normal(16, 32), _normal(32, 32)
    ya = _normal(32, 32)
    result = run_reference(b.drain_variants(False), {"x": x, "w": w, "yb": np.zeros((16, 32)), "ya": ya})
    product = np.matmul(x, w)
    np.testing.assert_array_equal(result.outputs["yb"], round_bf16(product))
    np.testing.assert_array_equal(result.outputs["ya"][:16], ya[:16])
    np.testing.assert_allclose(result.outputs["ya"][16:], ya[16:] + product, rtol=1e-6, atol=1e-6)


def _form1_proj(init_cond: bool = False) -> b.Function:
    """Form 1: `acc = create; for kb: acc = matmul_acc(acc, x[:, k0], w[e, :, k0].T, init_cond)`."""
    m, n, k, tk, e = 16, 32, 128, 32, 1
    acc_kwargs = {"b_trans": True}
    if init_cond:
        acc_kwargs["init_cond"] = b.eq("kb", 0)
    return b.function("proj", [b.param("x", b.tensor([m, k], b.BF16)), b.param("w", b.tensor([2, n, k], b.BF16)),
                               b.out("y", b.tensor([1, m, n], b.FP32))], [
        b.assign("acc", b.call("tensor.create", [m, n], dtype=b.sym("FP32"))),
        b.loop("kb", 0, k // tk, 1, [
            b.assign("k0", b.mul("kb", tk)),
            b.assign("xa", b.call("tensor.slice", "x", [m, tk], [0, "k0"])),
            b.assign("wb", b.call("tensor.slice", "w", [1, n, tk], [e, 0, "k0"])),
            b.assign("acc2", b.call("tensor.matmul_acc", b.it("acc_it"), "xa", "wb", **acc_kwargs)),
            b.yield_("acc2"),
        ], iter_args=["acc_it"], inits=["acc"], returns=["acc_rv"], kind=LoopKind.PIPELINE, stage=2),
        b.assign("y", b.call("tensor.assemble", "y", "acc_rv", [0, 0, 0])),
        b.ret("y"),
    ])


@pytest.mark.parametrize("init_cond", [False, True])
def test_form1_accumulates_from_a_zero_filled_create(init_cond: bool) -> None:
    x, w = _normal(16, 128, dtype=DType.BF16), _normal(2, 32, 128, dtype=DType.BF16)
    result = run_reference(_form1_proj(init_cond), {"x": x, "w": w, "y": np.ones((1, 16, 32))})
    np.testing.assert_allclose(result.outputs["y"][0], x @ w[1].T, rtol=1e-5, atol=1e-4)


def test_if_phi_and_post_if_read_keep_value_semantics() -> None:
    x, w = _normal(16, 32), _normal(32, 32)
    result = run_reference(b.post_if_read(False), {"x": x, "w": w, "ya": np.zeros((16, 32)), "yp": np.zeros((16, 32))})
    p = np.matmul(x, w)
    np.testing.assert_allclose(result.outputs["ya"], 3 * p, rtol=1e-5, atol=1e-4)  # prev + 2 accumulations
    np.testing.assert_allclose(result.outputs["yp"], p, rtol=1e-5, atol=1e-4)      # the seed of kb == 1


def test_tensor_read_gives_a_runtime_scalar() -> None:
    fn = b.function("k", [b.param("lens", b.tensor([4], b.INT32)), b.param("x", b.tensor([64, 8], b.FP32)),
                          b.out("y", b.tensor([16, 8], b.FP32))], [
        b.assign("n", b.call("tensor.read", "lens", [1])),
        b.assign("s", b.call("tensor.slice", "x", [16, 8], ["n", 0])),
        b.assign("y", b.call("tensor.assemble", "y", "s", [0, 0])),
    ])
    x = _normal(64, 8)
    result = run_reference(fn, {"lens": np.array([0, 40, 0, 0]), "x": x, "y": np.zeros((16, 8))})
    np.testing.assert_array_equal(result.outputs["y"], x[40:56])
    with pytest.raises(ReferenceError, match="exceed"):
        run_reference(fn, {"lens": np.array([0, 60, 0, 0]), "x": x, "y": np.zeros((16, 8))})


def test_vector_chain_computes_in_f32_and_rounds_to_the_result() -> None:
    a, c = _normal(16, 64), _normal(16, 64)
    result = run_reference(b.vector_chain(False), {"a": a, "b": c, "y": np.zeros((16, 64))})
    expected = round_bf16(np.exp(np.maximum(a + c, 0) * np.float32(0.5)) + np.float32(1.0))
    np.testing.assert_allclose(result.outputs["y"], expected, rtol=1e-6)


def test_transposed_rhs_both_styles_agree() -> None:
    x, w = _normal(16, 128, dtype=DType.BF16), _normal(64, 128, dtype=DType.BF16)
    for style in ("view", "flag"):
        result = run_reference(b.transposed_rhs(False, style), {"x": x, "w": w, "y": np.zeros((16, 64))})
        np.testing.assert_allclose(result.outputs["y"], x @ w.T, rtol=1e-5, atol=1e-4)


def test_unknown_op_is_a_reference_error_naming_it() -> None:
    fn = b.function("k", [b.param("x", b.tensor([16, 16], b.FP32))], [
        b.assign("r", b.call("tensor.sort32", "x")),
    ])
    with pytest.raises(ReferenceError, match="tensor.sort32"):
        run_reference(fn, {"x": np.zeros((16, 16))})


def test_row_and_column_ops_reduce_and_broadcast_in_f32() -> None:
    x, g = _normal(8, 64), _normal(1, 64)
    result = run_reference(b.norm_chain(False), {"x": x, "g": g, "y": np.zeros((8, 64)),
                                                 "m": np.zeros((8, 1)), "z": np.zeros((8, 64))})
    ms = (x * x).sum(axis=1, keepdims=True, dtype=np.float32) * np.float32(0.015625) + np.float32(1e-6)
    expected = x * (np.float32(1) / np.sqrt(ms)) + g
    np.testing.assert_allclose(result.outputs["y"], expected, rtol=1e-6)
    np.testing.assert_array_equal(result.outputs["m"], np.maximum(x.max(axis=1, keepdims=True), 0.5))
    np.testing.assert_array_equal(result.outputs["z"], np.full((8, 64), 3))
    assert not result.sigma["y"].any()  # no matmul upstream: exactly determined


def test_matmul_deviation_is_the_reordering_bound_on_the_size_of_the_terms() -> None:
    x, w = _normal(64, 256), _normal(256, 64)
    fn = b.gemm_predicated(False, k=256, tk=256)
    result = run_reference(fn, {"a": x, "b": w, "out": np.zeros((64, 64))})
    terms = np.abs(x) @ np.abs(w)
    np.testing.assert_allclose(result.sigma["out"], 2.0 ** -24 * np.sqrt(2 * 256) * terms, rtol=1e-3)
    # Drained into bf16, the uncertain value may round to the other neighbour: half a bf16 spacing.
    narrow = replace(fn, params=(*fn.params[:2], b.out("out", b.tensor([64, 64], DType.BF16))))
    result = run_reference(narrow, {"a": x, "b": w, "out": np.zeros((64, 64))})
    half = 0.5 * np.spacing(np.abs(result.outputs["out"])) * 2.0 ** 16
    np.testing.assert_allclose(result.sigma["out"], np.hypot(2.0 ** -24 * np.sqrt(512) * terms, half),
                               rtol=1e-3)


def _bf16_oracle(values: np.ndarray) -> np.ndarray:
    """Round half to even to bf16 written out case by case: the nearer of the two neighbours, the
    even one on a tie; NaN kept."""
    bits = values.view(np.uint32).astype(np.uint64)
    low, rest = bits & 0xFFFF, bits & 0xFFFF0000
    up = (low > 0x8000) | ((low == 0x8000) & ((rest >> 16) & 1 == 1))
    rounded = ((rest + up.astype(np.uint64) * np.uint64(0x10000)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    rounded = rounded.view(np.float32)
    return np.where(np.isnan(values), values, rounded)


def test_bf16_rounding_in_chunks_and_in_place_matches_the_case_by_case_rounding() -> None:
    values = RNG.standard_normal(3 * 65536 + 11).astype(np.float32)
    values[70000] = np.nan  # in the second chunk
    values[5] = np.float32(1.0) + np.float32(2.0 ** -8)  # a tie
    want = _bf16_oracle(values)
    copied = round_bf16(values)
    in_place = values.copy()
    assert round_bf16(in_place, in_place=True) is in_place
    for got in (copied, in_place):
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    again = round_bf16(copied)  # on the grid already: a copy
    assert again is not copied and np.array_equal(again.view(np.uint32), copied.view(np.uint32))


def test_a_tensor_only_loaded_is_held_as_given_and_a_stored_one_is_a_copy() -> None:
    a, w = _normal(64, 256), _normal(256, 64)
    out = np.zeros((64, 64), np.float32)
    result = run_reference(b.gemm_predicated(False), {"a": a, "b": w, "out": out})
    assert np.shares_memory(result.outputs["a"], a) and not result.outputs["a"].flags.writeable
    assert not np.shares_memory(result.outputs["out"], out) and not out.any()
    np.testing.assert_allclose(result.outputs["out"], a @ w, rtol=1e-5, atol=1e-4)
    assert "a" not in result.written and "out" in result.written


def test_int8_inputs_held_as_int8_accumulate_exactly_in_int32() -> None:
    x = RNG.integers(-3, 4, (16, 64), dtype=np.int8)
    w = RNG.integers(-3, 4, (64, 32), dtype=np.int8)
    result = run_reference(b.int8_padded(False), {"x": x, "w": w, "y": np.zeros((16, 32), np.int64)})
    assert result.outputs["x"] is not x and np.shares_memory(result.outputs["x"], x)
    np.testing.assert_array_equal(result.outputs["y"], x.astype(np.int64) @ w.astype(np.int64))


def _grid(*shape: int) -> np.ndarray:
    """Odd multiples of 2**-8 in (-1, 1), as the dynamic check draws them."""
    return (2 * RNG.integers(-128, 128, shape) + 1).astype(np.float32) / 256


def test_grid_operands_are_summed_in_f32_to_the_f64_sums_values(monkeypatch: pytest.MonkeyPatch) -> None:
    import pypto_verify.reference as reference

    operands: list[tuple[bool, bool]] = []
    product = reference._product
    monkeypatch.setattr(reference, "_product", lambda a, b: operands.append((a.grid, b.grid)) or product(a, b))
    inputs = {"a": _grid(64, 256), "b": _grid(256, 64), "out": np.zeros((64, 64), np.float32)}
    fast = run_reference(b.gemm_predicated(False), inputs, grid=frozenset({"a", "b"}))
    assert operands and all(a and b for a, b in operands)
    operands.clear()
    slow = run_reference(b.gemm_predicated(False), inputs)
    assert operands and not any(a or b for a, b in operands)
    assert np.array_equal(fast.outputs["out"], slow.outputs["out"])
    # a long sum of arbitrary f32 values is not exact in f32: the grid is what makes the fast sum the f64 one
    x, w = _normal(64, 256), _normal(256, 64)
    assert not np.array_equal(np.matmul(x, w), (x.astype(np.float64) @ w).astype(np.float32))


def test_a_written_tensor_is_off_the_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    # `out` is stored to before it is read again: what it holds then is no longer the drawn grid
    import pypto_verify.reference as reference

    operands: list[tuple[bool, bool]] = []
    product = reference._product
    monkeypatch.setattr(reference, "_product", lambda a, b: operands.append((a.grid, b.grid)) or product(a, b))
    fn = b.function("twice", [b.param("x", b.tensor([16, 32], DType.FP32)),
                              b.out("y", b.tensor([16, 32], DType.FP32))], [
        b.assign("t", b.call("tensor.matmul", "x", "x", b_trans=True)),
        b.assign("y1", b.call("tensor.assemble", "y", "x", [0, 0])),
        b.assign("u", b.call("tensor.matmul", "y1", "x", b_trans=True)),
        b.ret("y1"),
    ])
    run_reference(fn, {"x": _grid(16, 32), "y": _grid(16, 32)}, grid=frozenset({"x", "y"}))
    assert operands == [(True, True), (False, True)]


def _borrowed_count(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    import pypto_verify.reference as reference

    seen: list[bool] = []
    borrowable = reference._borrowable
    monkeypatch.setattr(reference, "_borrowable",
                        lambda value, window: seen.append(borrowable(value, window)) or seen[-1])
    return seen


def test_windows_of_a_read_only_grid_tensor_are_borrowed_and_change_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    import pypto_verify.reference as reference

    seen = _borrowed_count(monkeypatch)
    inputs = {"a": _grid(64, 256), "b": _grid(256, 64), "out": np.zeros((64, 64), np.float32)}
    borrowed = run_reference(b.gemm_predicated(False), inputs, grid=frozenset({"a", "b"}))
    assert seen and all(seen)
    copied = reference._reference(b.gemm_predicated(False), inputs, {}, True, frozenset({"a", "b"}), None, None, None,
                                  False)
    for name, want in copied.outputs.items():
        assert np.array_equal(borrowed.outputs[name], want) and np.array_equal(borrowed.sigma[name], copied.sigma[name])
    assert borrowed.max_k == copied.max_k and borrowed.written == copied.written
    seen.clear()  # off the grid (any sum of its values may depend on their layout): copied
    run_reference(b.gemm_predicated(False), {**inputs, "a": _normal(64, 256)}, grid=frozenset({"b"}))
    assert seen and not seen[0] and all(seen[1:])


def test_a_write_into_a_borrowed_window_runs_again_copying_the_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # `t` is a window of `x`, which the kernel only reads: borrowed, until `tensor.write` writes into it
    seen = _borrowed_count(monkeypatch)
    fn = b.function("poke", [b.param("x", b.tensor([32, 64], DType.FP32)),
                             b.out("y", b.tensor([16, 32], DType.FP32))], [
        b.assign("t", b.call("tensor.slice", "x", [16, 32], [16, 32])),
        b.assign("t1", b.call("tensor.write", "t", [1, 2], 0.5)),
        b.assign("y1", b.call("tensor.assemble", "y", "t1", [0, 0])),
        b.ret("y1"),
    ])
    x = _grid(32, 64)
    result = run_reference(fn, {"x": x, "y": np.zeros((16, 32), np.float32)}, grid=frozenset({"x"}))
    assert seen == [True]  # the borrowing run stopped at the write; the run again copied without asking
    want = x[16:, 32:].copy()
    want[1, 2] = 0.5
    assert np.array_equal(result.outputs["y"], want) and np.array_equal(result.outputs["x"], x)


def test_a_list_of_plain_ints_is_read_as_each_int_is() -> None:
    """`_Interpreter.ints` takes a list of plain ints as is (a fast path): the same tuple `_int` of each gives,
    and a list with anything else still goes through `_int` (numpy ints converted, a bool refused)."""
    from pypto_verify.reference import _Interpreter

    it = _Interpreter(b.gemm_predicated(False))
    plain = [0, 64, -3]
    assert it.ints(plain, "offsets") == tuple(it._int(v, None) for v in plain) == (0, 64, -3)
    mixed = it.ints([np.int64(5), 7], "offsets")
    assert mixed == (5, 7) and all(type(v) is int for v in mixed)
    with pytest.raises(ReferenceError, match="expected an integer"):
        it.ints([1, True], "offsets")
    with pytest.raises(ReferenceError, match="is not a list"):
        it.ints((1, 2), "offsets")
