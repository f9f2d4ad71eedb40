"""One test per instruction of docs/pto-subset.md, each on a hand-written kernel."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_verify.sim import SimError, simulate
from sim_kernels import alloc, bf16, load, module, pview, store, tile, view

RNG = np.random.default_rng(20260801)


def _probe(value: str, slot: int) -> str:
    """`out[0, slot] = x[0, value]`: makes a scalar observable (x is arange(64))."""
    return (f"    %pin{slot} = pto.partition_view %x_v, offsets = [%c0, %{value}], sizes = [%c1, %c1] "
            f": !pto.tensor_view<?x?xf32> -> {pview(1, 1, 'f32')}\n"
            + load(f"pin{slot}", f"pt{slot}", "vec", "f32", 1, 1) + "\n"
            f"    %pout{slot} = pto.partition_view %out_v, offsets = [%c0, %c{slot}], "
            f"sizes = [%c1, %c1] : !pto.tensor_view<?x?xf32> -> {pview(1, 1, 'f32')}\n"
            + store(f"pt{slot}", "vec", "f32", 1, 1, f"pout{slot}"))


def _run_probes(scalar_ops: str, probes: list[str], scalar_args: dict[str, int]) -> list[float]:
    extra = "".join(f", %{name}: index" for name in scalar_args)
    body = "\n".join([view("x", "arg0", 1, 64, "f32"), view("out", "arg1", 1, 8, "f32"),
                      scalar_ops] + [_probe(v, i) for i, v in enumerate(probes)])
    text = module(f"%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>{extra}", body)
    args = {"arg0": np.arange(64, dtype=np.float32).reshape(1, 64),
            "arg1": np.full((1, 8), -1, np.float32), **scalar_args}
    return simulate(text, "main", args)["arg1"][0, :len(probes)].tolist()


def test_arith_integer_ops_compute_on_python_ints() -> None:
    ops = """
    %s = arith.addi %n, %c3 : index
    %d = arith.subi %s, %c1 : index
    %m = arith.muli %d, %c2 : index
    %neg = arith.subi %c0, %c7 : index
    %q = arith.divsi %neg, %c2 : index
    %q32 = arith.addi %q, %c32 : index
    %r = arith.remsi %neg, %c2 : index
    %r32 = arith.addi %r, %c32 : index
    %mx = arith.maxsi %q, %c5 : index
    %mn = arith.minsi %m, %c4 : index"""
    assert _run_probes(ops, ["s", "d", "m", "q32", "r32", "mx", "mn"], {"n": 5}) == \
        [8, 7, 14, 29, 31, 5, 4]


def test_arith_cmpi_select_and_boolean_ops() -> None:
    ops = """
    %t = arith.constant true : i1
    %eq = arith.cmpi eq, %n, %c5 : index
    %lt = arith.cmpi slt, %n, %c4 : index
    %ge = arith.cmpi sge, %n, %c5 : index
    %both = arith.andi %eq, %lt : i1
    %any = arith.ori %eq, %lt : i1
    %flip = arith.xori %eq, %t : i1
    %v0 = arith.select %eq, %c1, %c0 : index
    %v1 = arith.select %lt, %c1, %c0 : index
    %v2 = arith.select %ge, %c1, %c0 : index
    %v3 = arith.select %both, %c1, %c0 : index
    %v4 = arith.select %any, %c1, %c0 : index
    %v5 = arith.select %flip, %c1, %c0 : index"""
    assert _run_probes(ops, ["v0", "v1", "v2", "v3", "v4", "v5"], {"n": 5}) == [1, 0, 1, 0, 1, 0]


def test_scf_for_and_if_else_run_their_regions() -> None:
    ops = """
    %sum = arith.addi %c0, %c0 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %odd = arith.remsi %i, %c2 : index
      %is_odd = arith.cmpi eq, %odd, %c1 : index
      scf.if %is_odd {
""" + _probe("i", 5).replace("\n", "\n    ") + """
      } else {
""" + _probe("i", 6).replace("\n", "\n    ") + """
      }
    }"""
    body = "\n".join([view("x", "arg0", 1, 64, "f32"), view("out", "arg1", 1, 8, "f32"), ops])
    text = module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", body)
    out = simulate(text, "main", {"arg0": np.arange(64, dtype=np.float32).reshape(1, 64),
                                  "arg1": np.full((1, 8), -1, np.float32)})["arg1"]
    # the last odd iteration is 3, the last even one 2
    assert out[0, 5] == 3 and out[0, 6] == 2


def test_make_tensor_view_strides_and_3d_partition() -> None:
    tt = tile("vec", "f32", 4, 8)
    body = f"""
    %w = pto.make_tensor_view %arg0, shape = [%c2, %c4, %c8], strides = [%c32, %c8, %c1] : !pto.tensor_view<?x?x?xf32>
    %wp = pto.partition_view %w, offsets = [%c1, %c0, %c0], sizes = [%c1, %c4, %c8] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<1x4x8xf32>
    %t = pto.alloc_tile addr = %a0 : {tt}
    pto.tload ins(%wp : !pto.partition_tensor_view<1x4x8xf32>) outs(%t : {tt})
    %o = pto.make_tensor_view %arg1, shape = [%c4, %c8], strides = [%c1, %c4] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %o, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> {pview(4, 8, 'f32')}
{store("t", "vec", "f32", 4, 8, "op")}"""
    weights = np.arange(64, dtype=np.float32).reshape(2, 4, 8)
    out = simulate(module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", body), "main",
                   {"arg0": weights, "arg1": np.zeros(32, np.float32)})["arg1"]
    # the output view has column-major strides: element (r, c) lives at r + 4 * c
    np.testing.assert_array_equal(out.reshape(8, 4).T, weights[1])


def test_tload_and_tstore_copy_a_gm_window_through_vec() -> None:
    body = "\n".join([
        view("x", "arg0", 8, 16, "bf16"),
        "    %xp = pto.partition_view %x_v, offsets = [%c2, %c4], sizes = [%c4, %c8] : "
        f"!pto.tensor_view<?x?xbf16> -> {pview(4, 8, 'bf16')}",
        load("xp", "t", "vec", "bf16", 4, 8),
        view("out", "arg1", 4, 8, "bf16"),
        store("t", "vec", "bf16", 4, 8, "out")])
    x = RNG.standard_normal((8, 16)).astype(np.float32)
    out = simulate(module("%arg0: !pto.ptr<bf16>, %arg1: !pto.ptr<bf16>", body), "main",
                   {"arg0": x, "arg1": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg1"], bf16(x)[2:6, 4:12])
    assert out["arg0"] is x  # an input no tstore writes comes back as the caller's array


def _identity_matmul(right_setup: str, k: int, n: int, dtype: str = "f32",
                     target: str = "a2a3", extra_args: str = "", args: dict | None = None
                     ) -> np.ndarray:
    """out = I(k) @ %r where *right_setup* defines the right tile %r (k x n, *dtype*)."""
    eye_tile = tile("left", dtype, k, k)
    body = "\n".join([
        view("eye", "arg0", k, k, dtype), load("eye", "eye_m", "mat", dtype, k, k, "%a8192"),
        alloc("eye_l", "left", dtype, k, k),
        f"    pto.tmov ins(%eye_m : {tile('mat', dtype, k, k)}) outs(%eye_l : {eye_tile})",
        right_setup,
        alloc("c", "acc", "f32", k, n),
        f"    pto.tmatmul ins(%eye_l, %r : {eye_tile}, {tile('right', dtype, k, n)}) "
        f"outs(%c : {tile('acc', 'f32', k, n)})",
        view("out", "arg1", k, n, "f32"), store("c", "acc", "f32", k, n, "out")])
    text = module(f"%arg0: !pto.ptr<{dtype}>, %arg1: !pto.ptr<f32>{extra_args}", body, target)
    return simulate(text, "main", {"arg0": np.eye(k, dtype=np.float32),
                                   "arg1": np.zeros((k, n), np.float32), **(args or {})})["arg1"]


def test_textract_copies_a_mat_window_into_right() -> None:
    setup = "\n".join([
        view("b", "arg2", 8, 16, "f32"), load("b", "bm", "mat", "f32", 8, 16),
        alloc("r", "right", "f32", 4, 8),
        f"    pto.textract ins(%bm, %c2, %c4 : {tile('mat', 'f32', 8, 16)}, index, index) "
        f"outs(%r : {tile('right', 'f32', 4, 8)})"])
    b = RNG.standard_normal((8, 16)).astype(np.float32)
    out = _identity_matmul(setup, 4, 8, extra_args=", %arg2: !pto.ptr<f32>", args={"arg2": b})
    np.testing.assert_array_equal(out, b[2:6, 4:12])


def test_textract_transpose_reads_the_transposed_window() -> None:
    setup = "\n".join([
        view("b", "arg2", 8, 16, "f32"), load("b", "bm", "mat", "f32", 8, 16),
        alloc("r", "right", "f32", 4, 8),
        f"    pto.textract ins(%bm, %c0, %c3 : {tile('mat', 'f32', 8, 16)}, index, index) "
        f"outs(%r : {tile('right', 'f32', 4, 8)}) {{transpose = true}}"])
    b = RNG.standard_normal((8, 16)).astype(np.float32)
    out = _identity_matmul(setup, 4, 8, extra_args=", %arg2: !pto.ptr<f32>", args={"arg2": b})
    np.testing.assert_array_equal(out, b[0:8, 3:7].T)


def test_tmov_mat_to_right_and_vec_to_mat() -> None:
    setup = "\n".join([
        view("b", "arg2", 4, 8, "f32"), load("b", "bv", "vec", "f32", 4, 8),
        alloc("bm", "mat", "f32", 4, 8, "%a1024"),
        f"    pto.tmov ins(%bv : {tile('vec', 'f32', 4, 8)}) outs(%bm : {tile('mat', 'f32', 4, 8)})",
        alloc("r", "right", "f32", 4, 8),
        f"    pto.tmov ins(%bm : {tile('mat', 'f32', 4, 8)}) outs(%r : {tile('right', 'f32', 4, 8)})"])
    b = RNG.standard_normal((4, 8)).astype(np.float32)
    out = _identity_matmul(setup, 4, 8, extra_args=", %arg2: !pto.ptr<f32>", args={"arg2": b})
    np.testing.assert_array_equal(out, b)


def test_tmov_acc_to_mat_narrows_f32_to_bf16() -> None:
    acc_t, mat_t = tile("acc", "f32", 4, 8), tile("mat", "bf16", 4, 8)
    setup = "\n".join([
        view("b", "arg2", 4, 8, "f32"), load("b", "bm", "mat", "f32", 4, 8, "%a1024"),
        alloc("bl", "left", "f32", 4, 8, "%a1024"),
        alloc("e4", "right", "f32", 8, 8, "%a1024"),
        view("e8", "arg3", 8, 8, "f32"), load("e8", "e8m", "mat", "f32", 8, 8, "%a4096"),
        f"    pto.tmov ins(%e8m : {tile('mat', 'f32', 8, 8)}) outs(%e4 : {tile('right', 'f32', 8, 8)})",
        # B (f32) @ I(8) into acc, then acc -> mat as bf16 (FIXPIPE), then mat -> right
        alloc("ba", "acc", "f32", 4, 8, "%a4096"),
        f"    pto.tmov ins(%bm : {tile('mat', 'f32', 4, 8)}) outs(%bl : {tile('left', 'f32', 4, 8)})",
        f"    pto.tmatmul ins(%bl, %e4 : {tile('left', 'f32', 4, 8)}, {tile('right', 'f32', 8, 8)}) "
        f"outs(%ba : {acc_t})",
        alloc("bb", "mat", "bf16", 4, 8, "%a16384"),
        f"    pto.tmov ins(%ba : {acc_t}) outs(%bb : {mat_t})",
        alloc("r", "right", "bf16", 4, 8, "%a16384"),
        f"    pto.tmov ins(%bb : {mat_t}) outs(%r : {tile('right', 'bf16', 4, 8)})"])
    b = RNG.standard_normal((4, 8)).astype(np.float32)
    out = _identity_matmul(setup, 4, 8, "bf16", extra_args=", %arg2: !pto.ptr<f32>, %arg3: !pto.ptr<f32>",
                           args={"arg2": b, "arg3": np.eye(8, dtype=np.float32)})
    np.testing.assert_array_equal(out, bf16(b))


def test_tmov_acc_to_vec_is_legal_on_a5() -> None:
    acc_t = tile("acc", "f32", 4, 8)
    body = "\n".join([
        view("a", "arg0", 4, 4, "f32"), load("a", "am", "mat", "f32", 4, 4),
        view("b", "arg1", 4, 8, "f32"), load("b", "bm", "mat", "f32", 4, 8, "%a1024"),
        alloc("al", "left", "f32", 4, 4), alloc("br", "right", "f32", 4, 8),
        f"    pto.tmov ins(%am : {tile('mat', 'f32', 4, 4)}) outs(%al : {tile('left', 'f32', 4, 4)})",
        f"    pto.tmov ins(%bm : {tile('mat', 'f32', 4, 8)}) outs(%br : {tile('right', 'f32', 4, 8)})",
        alloc("c", "acc", "f32", 4, 8),
        f"    pto.tmatmul ins(%al, %br : {tile('left', 'f32', 4, 4)}, {tile('right', 'f32', 4, 8)}) "
        f"outs(%c : {acc_t})",
        alloc("cv", "vec", "f16", 4, 8),
        f"    pto.tmov ins(%c : {acc_t}) outs(%cv : {tile('vec', 'f16', 4, 8)})",
        view("out", "arg2", 4, 8, "f16"), store("cv", "vec", "f16", 4, 8, "out")])
    a = RNG.standard_normal((4, 4)).astype(np.float32)
    b = RNG.standard_normal((4, 8)).astype(np.float32)
    text = module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f16>", body, "a5")
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": np.zeros((4, 8), np.float16)})
    np.testing.assert_allclose(out["arg2"], (a @ b).astype(np.float16), rtol=1e-3, atol=1e-3)


def _cube(op_line: str, extra: str = "", dtype: str = "f32", acc_dtype: str = "f32",
          m: int = 16, k: int = 32, n: int = 16, target: str = "a2a3") -> str:
    """A kernel loading A (arg0, m x k) and B (arg1, k x n) into left/right, running *op_line*
    (which writes %c), and storing %c to arg2; *extra* runs before *op_line*."""
    return module(
        f"%arg0: !pto.ptr<{dtype}>, %arg1: !pto.ptr<{dtype}>, %arg2: !pto.ptr<{acc_dtype}>, "
        f"%arg3: !pto.ptr<{acc_dtype}>",
        "\n".join([
            view("a", "arg0", m, k, dtype), load("a", "am", "mat", dtype, m, k),
            view("b", "arg1", k, n, dtype), load("b", "bm", "mat", dtype, k, n, "%a8192"),
            alloc("al", "left", dtype, m, k), alloc("br", "right", dtype, k, n),
            f"    pto.textract ins(%am, %c0, %c0 : {tile('mat', dtype, m, k)}, index, index) "
            f"outs(%al : {tile('left', dtype, m, k)})",
            f"    pto.textract ins(%bm, %c0, %c0 : {tile('mat', dtype, k, n)}, index, index) "
            f"outs(%br : {tile('right', dtype, k, n)})",
            alloc("c", "acc", acc_dtype, m, n), extra, op_line,
            view("out", "arg2", m, n, acc_dtype), store("c", "acc", acc_dtype, m, n, "out")]),
        target)


def _types(dtype: str = "f32", acc_dtype: str = "f32", m: int = 16, k: int = 32,
           n: int = 16) -> tuple[str, str, str]:
    return tile("left", dtype, m, k), tile("right", dtype, k, n), tile("acc", acc_dtype, m, n)


def test_tmatmul_writes_a_fresh_product() -> None:
    lhs, rhs, acc = _types("bf16")
    text = _cube(f"    pto.tmatmul ins(%al, %br : {lhs}, {rhs}) outs(%c : {acc})", dtype="bf16")
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 16)).astype(np.float32)
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": np.zeros((16, 16), np.float32),
                                  "arg3": np.zeros(1, np.float32)})
    np.testing.assert_allclose(out["arg2"], bf16(a) @ bf16(b), rtol=1e-5, atol=1e-5)


def test_tmatmul_acc_adds_into_the_accumulator() -> None:
    lhs, rhs, acc = _types()
    first = f"    pto.tmatmul ins(%al, %br : {lhs}, {rhs}) outs(%c : {acc})"
    text = _cube(f"    pto.tmatmul.acc ins(%c, %al, %br : {acc}, {lhs}, {rhs}) outs(%c : {acc})",
                 extra=first)
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 16)).astype(np.float32)
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": np.zeros((16, 16), np.float32),
                                  "arg3": np.zeros(1, np.float32)})
    np.testing.assert_allclose(out["arg2"], 2 * (a @ b), rtol=1e-5, atol=1e-5)


def test_tmatmul_bias_broadcasts_row_zero_of_the_bias() -> None:
    lhs, rhs, acc = _types()
    bias_t = tile("bias", "f32", 1, 16)
    extra = "\n".join([
        view("bias", "arg3", 1, 16, "f32"), load("bias", "bias_m", "mat", "f32", 1, 16, "%a4096"),
        alloc("bias_t", "bias", "f32", 1, 16),
        f"    pto.tmov ins(%bias_m : {tile('mat', 'f32', 1, 16)}) outs(%bias_t : {bias_t})"])
    text = _cube(f"    pto.tmatmul.bias ins(%al, %br, %bias_t : {lhs}, {rhs}, {bias_t}) outs(%c : {acc})",
                 extra=extra)
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 16)).astype(np.float32)
    bias = RNG.standard_normal((1, 16)).astype(np.float32)
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": np.zeros((16, 16), np.float32),
                                  "arg3": bias})
    np.testing.assert_allclose(out["arg2"], a @ b + bias, rtol=1e-5, atol=1e-5)


def test_tmatmul_i8_accumulates_exactly_in_i32() -> None:
    lhs, rhs, acc = _types("i8", "i32", k=64)
    text = _cube(f"    pto.tmatmul ins(%al, %br : {lhs}, {rhs}) outs(%c : {acc})", dtype="i8",
                 acc_dtype="i32", k=64)
    a = RNG.integers(-128, 128, (16, 64)).astype(np.int8)
    b = RNG.integers(-128, 128, (64, 16)).astype(np.int8)
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": np.zeros((16, 16), np.int32),
                                  "arg3": np.zeros(1, np.int32)})
    np.testing.assert_array_equal(out["arg2"], a.astype(np.int32) @ b.astype(np.int32))


def test_tstore_from_acc_narrows_to_bf16_round_half_to_even() -> None:
    patterns = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0xBF808000,
                         0x7F7FFFFF, 0x00000000, 0x3F800000] * 2, dtype=np.uint32)
    expected = np.array([0x3F80, 0x3F82, 0x3F81, 0x3F80, 0xBF80, 0x7F80, 0x0000, 0x3F80] * 2,
                        dtype=np.uint16)
    lhs, rhs, acc = _types(m=16, k=16, n=16)
    body = module(
        "%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<bf16>",
        "\n".join([
            view("a", "arg0", 16, 16, "f32"), load("a", "am", "mat", "f32", 16, 16),
            view("b", "arg1", 16, 16, "f32"), load("b", "bm", "mat", "f32", 16, 16, "%a8192"),
            alloc("al", "left", "f32", 16, 16), alloc("br", "right", "f32", 16, 16),
            f"    pto.tmov ins(%am : {tile('mat', 'f32', 16, 16)}) outs(%al : {lhs})",
            f"    pto.tmov ins(%bm : {tile('mat', 'f32', 16, 16)}) outs(%br : {rhs})",
            alloc("c", "acc", "f32", 16, 16),
            f"    pto.tmatmul ins(%al, %br : {lhs}, {rhs}) outs(%c : {acc})",
            view("out", "arg2", 16, 16, "bf16"),
            store("c", "acc", "f32", 16, 16, "out", view_dtype="bf16")]))
    b = np.tile(patterns.view(np.float32), (16, 1))
    out = simulate(body, "main", {"arg0": np.eye(16, dtype=np.float32), "arg1": b,
                                  "arg2": np.zeros((16, 16), np.uint16)})["arg2"]
    bits = (out.view(np.uint32) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(bits, np.tile(expected, (16, 1)))


def test_tstore_atomic_add_adds_into_gm() -> None:
    lhs, rhs, acc = _types()
    text = _cube(f"    pto.tmatmul ins(%al, %br : {lhs}, {rhs}) outs(%c : {acc})")
    text = text.replace("!pto.partition_tensor_view<16x16xf32>)\n    return",
                        "!pto.partition_tensor_view<16x16xf32>) {atomic = #pto.atomic<add>}\n    return")
    assert "atomic" in text
    a = RNG.standard_normal((16, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 16)).astype(np.float32)
    before = RNG.standard_normal((16, 16)).astype(np.float32)
    out = simulate(text, "main", {"arg0": a, "arg1": b, "arg2": before,
                                  "arg3": np.zeros(1, np.float32)})
    np.testing.assert_allclose(out["arg2"], before + a @ b, rtol=1e-5, atol=1e-5)


def _vector(op_line: str, dtype: str = "f32", out_dtype: str | None = None,
            consts: str = "", out_loc: str = "vec") -> str:
    out_dtype = out_dtype or dtype
    return module(
        f"%arg0: !pto.ptr<{dtype}>, %arg1: !pto.ptr<{dtype}>, %arg2: !pto.ptr<{out_dtype}>",
        "\n".join([consts, view("x", "arg0", 4, 8, dtype), load("x", "xv", "vec", dtype, 4, 8),
                   view("y", "arg1", 4, 8, dtype), load("y", "yv", "vec", dtype, 4, 8, "%a1024"),
                   alloc("z", out_loc, out_dtype, 4, 8, "%a4096"), op_line,
                   view("out", "arg2", 4, 8, out_dtype), store("z", out_loc, out_dtype, 4, 8, "out")]))


VEC = tile("vec", "f32", 4, 8)
BINARY_CASES = {
    "pto.tadd": np.add, "pto.tsub": np.subtract, "pto.tmul": np.multiply,
    "pto.tdiv": np.divide, "pto.tmax": np.maximum, "pto.tmin": np.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_binary_vector_op_is_elementwise_in_f32(name: str) -> None:
    text = _vector(f"    {name} ins(%xv, %yv : {VEC}, {VEC}) outs(%z : {VEC})")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    y = RNG.standard_normal((4, 8)).astype(np.float32) + 3
    out = simulate(text, "main", {"arg0": x, "arg1": y, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg2"], BINARY_CASES[name](x, y))


def test_tadd_on_bf16_rounds_the_f32_sum_half_to_even() -> None:
    vec = tile("vec", "bf16", 4, 8)
    text = _vector(f"    pto.tadd ins(%xv, %yv : {vec}, {vec}) outs(%z : {vec})", dtype="bf16")
    x = bf16(RNG.standard_normal((4, 8)))
    y = bf16(RNG.standard_normal((4, 8)))
    out = simulate(text, "main", {"arg0": x, "arg1": y, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg2"], bf16(x + y))


@pytest.mark.parametrize("name, reference", [("pto.texp", np.exp),
                                             ("pto.trelu", lambda v: np.maximum(v, 0))])
def test_unary_vector_op(name: str, reference) -> None:
    text = _vector(f"    {name} ins(%xv : {VEC}) outs(%z : {VEC})")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": x, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_allclose(out["arg2"], reference(x), rtol=1e-6)


@pytest.mark.parametrize("name, reference", [("pto.tmuls", np.multiply), ("pto.tadds", np.add)])
def test_scalar_vector_op_uses_an_f32_constant(name: str, reference) -> None:
    text = _vector(f"    {name} ins(%xv, %s : {VEC}, f32) outs(%z : {VEC})",
                   consts="    %s = arith.constant 2.5 : f32")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": x, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg2"], reference(x, np.float32(2.5)))


def test_tcvt_f32_to_i32_rounds_half_to_even_and_saturates() -> None:
    text = _vector(f"    pto.tcvt ins(%xv : {VEC}) outs(%z : {tile('vec', 'i32', 4, 8)})",
                   out_dtype="i32")
    x = np.array([0.5, 1.5, 2.5, -2.5, 3.49, -0.5, 3e9, -3e9] * 4, np.float32).reshape(4, 8)
    out = simulate(text, "main", {"arg0": x, "arg1": x, "arg2": np.zeros((4, 8), np.int32)})
    expected = np.array([0, 2, 2, -2, 3, 0, 2**31 - 1, -(2**31)] * 4).reshape(4, 8)
    np.testing.assert_array_equal(out["arg2"], expected)


def test_tcvt_f32_to_bf16_rounds_half_to_even() -> None:
    text = _vector(f"    pto.tcvt ins(%xv : {VEC}) outs(%z : {tile('vec', 'bf16', 4, 8)})",
                   out_dtype="bf16")
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(text, "main", {"arg0": x, "arg1": x, "arg2": np.zeros((4, 8), np.float32)})
    np.testing.assert_array_equal(out["arg2"], bf16(x))


def test_vector_op_on_a_cube_tile_is_rejected() -> None:
    mat = tile("mat", "f32", 4, 8)
    text = _vector(f"    pto.tadd ins(%xv, %yv : {VEC}, {VEC}) outs(%z : {mat})", out_loc="mat")
    with pytest.raises(SimError) as error:
        simulate(text, "main", {})
    assert error.value.rule == "PV202" and "destination %z is in mat, expected vec" in error.value.message


def test_addptr_views_a_pointer_from_an_element_on_and_a_store_through_it_reaches_the_argument() -> None:
    # docs/pto-subset.md "Tensors in GM": a GM slice is a view of the same storage at an offset
    tt = tile("vec", "f32", 2, 4)
    body = f"""
    %p = pto.addptr %arg0, %c5 : !pto.ptr<f32> -> !pto.ptr<f32>
    %w = pto.make_tensor_view %p, shape = [%c2, %c4], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %wp = pto.partition_view %w, offsets = [%c0, %c0], sizes = [%c2, %c4] : !pto.tensor_view<?x?xf32> -> {pview(2, 4, 'f32')}
    %t = pto.alloc_tile addr = %a0 valid_row = %c2 valid_col = %c4 : {tt}
    pto.tload ins(%wp : {pview(2, 4, 'f32')}) outs(%t : {tt})
    %q = pto.addptr %p, %c16 : !pto.ptr<f32> -> !pto.ptr<f32>
    %o = pto.make_tensor_view %q, shape = [%c2, %c4], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %op = pto.partition_view %o, offsets = [%c0, %c0], sizes = [%c2, %c4] : !pto.tensor_view<?x?xf32> -> {pview(2, 4, 'f32')}
{store("t", "vec", "f32", 2, 4, "op")}"""
    flat = np.arange(48, dtype=np.float32)
    out = simulate(module("%arg0: !pto.ptr<f32>", body), "main", {"arg0": flat.reshape(6, 8)})["arg0"]
    # read: two rows of four from element 5 at a row pitch of 8; written from element 5 + 16 on
    want = flat.copy()
    want[21:25], want[29:33] = flat[5:9], flat[13:17]
    np.testing.assert_array_equal(out.reshape(-1), want)


def test_addptr_past_the_end_of_its_pointer_is_rejected() -> None:
    body = "    %p = pto.addptr %arg0, %c64 : !pto.ptr<f32> -> !pto.ptr<f32>"
    with pytest.raises(SimError) as error:
        simulate(module("%arg0: !pto.ptr<f32>", body), "main", {"arg0": np.zeros(32, np.float32)})
    assert error.value.rule == "PV202" and "offset 64 is outside %arg0 (32 elements)" in error.value.message


def test_a_view_past_the_end_of_an_addptr_is_rejected() -> None:
    body = ("    %p = pto.addptr %arg0, %c16 : !pto.ptr<f32> -> !pto.ptr<f32>\n"
            "    %w = pto.make_tensor_view %p, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>")
    with pytest.raises(SimError) as error:
        simulate(module("%arg0: !pto.ptr<f32>", body), "main", {"arg0": np.zeros(32, np.float32)})
    assert error.value.rule == "PV202" and "view of 32 elements exceeds %p (16 elements)" in error.value.message


def test_addptr_of_another_pointer_type_is_a_parse_error() -> None:
    body = "    %p = pto.addptr %arg0, %c4 : !pto.ptr<f32> -> !pto.ptr<bf16>"
    with pytest.raises(SimError) as error:
        simulate(module("%arg0: !pto.ptr<f32>", body), "main", {"arg0": np.zeros(32, np.float32)})
    assert error.value.rule == "" and "takes and returns one !pto.ptr type" in error.value.message


def test_tmov_copies_a_vec_tile_into_another_vec_tile() -> None:
    body = "\n".join([
        view("x", "arg0", 4, 8, "f32"), load("x", "t", "vec", "f32", 4, 8),
        alloc("u", "vec", "f32", 4, 8, "%a256"),
        f"    pto.tmov ins(%t : {tile('vec', 'f32', 4, 8)}) outs(%u : {tile('vec', 'f32', 4, 8)})",
        view("out", "arg1", 4, 8, "f32"), store("u", "vec", "f32", 4, 8, "out")])
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    out = simulate(module("%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>", body), "main",
                   {"arg0": x, "arg1": np.zeros((4, 8), np.float32)})["arg1"]
    np.testing.assert_array_equal(out, x)


def test_tmov_between_overlapping_vec_tiles_is_rejected() -> None:
    body = "\n".join([
        view("x", "arg0", 4, 8, "f32"), load("x", "t", "vec", "f32", 4, 8),
        alloc("u", "vec", "f32", 4, 8, "%a64"),
        f"    pto.tmov ins(%t : {tile('vec', 'f32', 4, 8)}) outs(%u : {tile('vec', 'f32', 4, 8)})"])
    with pytest.raises(SimError) as error:
        simulate(module("%arg0: !pto.ptr<f32>", body), "main", {"arg0": np.zeros((4, 8), np.float32)})
    assert error.value.rule == "PV202" and "vec -> vec between overlapping tiles" in error.value.message


def test_a_local_array_keeps_what_is_set_in_it_wrapped_to_its_element_type() -> None:
    ops = """
    %arr = pto.declare_local_array -> !pto.local_array<4xi32>
    %seven = arith.index_cast %c7 : index to i32
    pto.local_array_set %arr[%c2], %seven : !pto.local_array<4xi32>, i32
    %five = arith.index_cast %n : index to i32
    pto.local_array_set %arr[%c3], %five : !pto.local_array<4xi32>, i32
    pto.local_array_set %arr[%c2], %five : !pto.local_array<4xi32>, i32
    pto.local_array_set %arr[%c2], %seven : !pto.local_array<4xi32>, i32
    %g2 = pto.local_array_get %arr[%c2] : !pto.local_array<4xi32> -> i32
    %g3 = pto.local_array_get %arr[%c3] : !pto.local_array<4xi32> -> i32
    %v2 = arith.index_cast %g2 : i32 to index
    %v3 = arith.index_cast %g3 : i32 to index"""
    assert _run_probes(ops, ["v2", "v3"], {"n": 5}) == [7, 5]


def test_a_local_array_index_outside_it_is_rejected() -> None:
    ops = """
    %arr = pto.declare_local_array -> !pto.local_array<4xi32>
    %one = arith.index_cast %c1 : index to i32
    pto.local_array_set %arr[%c4], %one : !pto.local_array<4xi32>, i32"""
    with pytest.raises(SimError) as error:
        _run_probes(ops, [], {})
    assert error.value.rule == "PV202" and "index 4 is outside %arr (4 elements)" in error.value.message


def test_a_local_array_element_read_before_it_is_set_is_over_the_limit() -> None:
    ops = """
    %arr = pto.declare_local_array -> !pto.local_array<4xi64>
    %g = pto.local_array_get %arr[%c1] : !pto.local_array<4xi64> -> i64"""
    with pytest.raises(SimError) as error:
        _run_probes(ops, [], {})
    assert error.value.rule == "limit" and "element 1 of %arr is read before any pto.local_array_set wrote it" \
        in error.value.message


def test_a_local_array_element_of_another_type_is_rejected() -> None:
    ops = """
    %arr = pto.declare_local_array -> !pto.local_array<4xi32>
    %g = pto.local_array_get %arr[%c1] : !pto.local_array<4xi32> -> i64"""
    with pytest.raises(SimError) as error:
        _run_probes(ops, [], {})
    assert error.value.rule == "PV202" and "a i64 element of a !pto.local_array<4xi32>" in error.value.message
