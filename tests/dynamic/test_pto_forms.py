"""PTO forms of the ops and views pypto-lib kernels use (issue 14 item 3): each simulates and matches
on a kernel of ours, and a mutated twin of its lowering (a wrong reshape extent, a wrong window)
mismatches."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stages import KERNELS, lowered_kernels, rewrite_call

from pypto_verify.ir import Assign, Call, Const, ListExpr, map_stmts

VIEWS = KERNELS / "gm_views.py"


def _kernel(path, name: str):
    return lowered_kernels(path)[name]


_rewrite = rewrite_call


def _emitted(kernel) -> str:
    from pypto_verify.emit import emit
    from pypto_verify.sizes import bind_sizes

    return emit(bind_sizes(kernel.lowered, {"TOKENS": 32}))


def test_gm_reshapes_and_rank_1_windows_simulate_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(VIEWS, "head_scale")
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert (outcome.status, outcome.message) == ("match", "match at TOKENS=32")


def test_a_gm_reshape_is_a_second_view_of_the_same_pointer() -> None:
    text = _emitted(_kernel(VIEWS, "head_scale"))
    views = [line.strip() for line in text.splitlines() if "pto.make_tensor_view" in line]
    # x (4-D), scale and bias (1-D), y (3-D), then the reshapes x_flat, y_flat, bias_row, y
    assert [v.split(" = ")[1].split(",")[0] for v in views] == [
        "pto.make_tensor_view %arg0", "pto.make_tensor_view %arg1", "pto.make_tensor_view %arg2",
        "pto.make_tensor_view %arg3", "pto.make_tensor_view %arg0", "pto.make_tensor_view %arg3",
        "pto.make_tensor_view %arg2", "pto.make_tensor_view %arg3"]
    assert views[0].endswith("!pto.tensor_view<?x?x?x?xf32>") and views[1].endswith("!pto.tensor_view<?xf32>")
    assert "!pto.partition_tensor_view<32xf32>" in text  # the rank-1 window of `scale`


def test_a_wrong_reshape_extent_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(VIEWS, "head_scale")
    # x_flat as [tokens / 2, 2 * FLAT]: the same elements, but the row tiles cover the whole view, so
    # the second one reads past its rows: an illegal window (the value-level twin is the next test's)
    wrong = _rewrite(kernel.lowered, "tensor.reshape", "x_flat",
                     lambda call: replace(call, args=(call.args[0], ListExpr((Const(16), Const(256))))))
    outcome = simulate_kernel(kernel.source, wrong, sizes={"TOKENS": 32})
    assert outcome.status == "mismatch" and outcome.rule == "PV202", outcome.message
    assert "exceed the view's shape [16, 256]" in outcome.message


def test_a_wrong_rank_1_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(VIEWS, "head_scale")
    # every head reads the first head's scale
    wrong = _rewrite(kernel.lowered, "tile.load", "scale__slice_v1",
                     lambda call: replace(call, args=(call.args[0], ListExpr((Const(0),)), *call.args[2:])))
    outcome = simulate_kernel(kernel.source, wrong, sizes={"TOKENS": 32})
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"][1] == 1


CASTS = KERNELS / "scalar_casts.py"


def test_scalar_casts_simulate_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(CASTS, "counted_rows")
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match" and outcome.scalars == {"num_rows": 256}, outcome.message


def test_a_scalar_cast_to_a_narrower_type_wraps_and_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Sym

    kernel = _kernel(CASTS, "counted_rows")
    # num_rows (256) cast to INT8 wraps to 0: no row is written
    wrong = _rewrite(kernel.lowered, "tensor.cast", "requested_rows",
                     lambda call: replace(call, args=(call.args[0], Sym("INT8"))))
    assert "arith.remsi" in _emitted_plain(wrong)
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [0, 0]


def test_a_scalar_clamp_by_max_for_min_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(CASTS, "counted_rows")
    assert "arith.minsi" in _emitted_plain(kernel.lowered)
    # max(256, 240): the last row tile, which the kernel leaves alone, is written
    wrong = _rewrite(kernel.lowered, "tensor.min", "active_rows", lambda call: replace(call, op="tensor.max"))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [240, 0], outcome.message


def _emitted_plain(fn) -> str:
    from pypto_verify.emit import emit

    return emit(fn)


def test_scalar_cast_values() -> None:
    from pypto_verify.ir import DType
    from pypto_verify.scalar import cast_value

    assert cast_value(256, DType.INT8) == 0 and cast_value(-1, DType.UINT8) == 255
    assert cast_value(2**31, DType.INT32) == -(2**31) and cast_value(7, DType.INDEX) == 7
    assert cast_value(3, DType.BOOL) is True and cast_value(2, DType.FP32) == 2.0
    assert cast_value(4.0, DType.INT32) == 4
    # PyPTO's `arith.fptosi`: toward zero; a value the type does not hold is poison, never guessed
    assert cast_value(2.75, DType.INT32) == 2 and cast_value(-2.75, DType.INT32) == -2
    for undefined in (3e9, float("nan")):
        with pytest.raises(ValueError, match="undefined"):
            cast_value(undefined, DType.INT32)
    with pytest.raises(ValueError, match="INDEX"):
        cast_value(2.5, DType.INDEX)


CODES = KERNELS / "unsigned_codes.py"


def test_uint8_codes_simulate_exactly_and_match() -> None:
    from pypto_verify.dynamic import make_inputs, simulate_kernel

    kernel = _kernel(CODES, "dequant_codes")
    codes = make_inputs(kernel.source)["codes"]
    assert codes.dtype.name == "uint8" and codes.max() >= 128  # the high bit is exercised
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
    assert "!pto.ptr<ui8>" in _emitted_plain(kernel.lowered)


def test_a_wrong_uint8_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(CODES, "dequant_codes")
    # every row tile reads the first tile's codes
    wrong = _rewrite(kernel.lowered, "tile.load", "codes__slice_v1",
                     lambda call: replace(call, args=(call.args[0], ListExpr((Const(0), Const(0))), *call.args[2:])))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "out" and outcome.first_difference["index"][0] == 16


BROADCASTS = KERNELS / "broadcasts.py"


def test_row_and_col_expand_simulate_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(BROADCASTS, "spread_scales")
    text = _emitted_plain(kernel.lowered)
    assert "pto.trowexpand ins(%factors" in text and "pto.tcolexpand ins(%offsets" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_broadcast_of_the_wrong_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(BROADCASTS, "spread_scales")
    # the column offsets from row 1 of the table instead of row 0
    wrong = _rewrite(kernel.lowered, "tile.load", "offsets",
                     lambda call: replace(call, args=(call.args[0], ListExpr((Const(1), Const(0))), *call.args[2:])))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [0, 0]


ROUNDING = KERNELS / "rounding_modes.py"


def _with_mode(mode: str):
    return lambda call: call.with_kwarg("mode", Const(mode))


def test_rounding_modes_simulate_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(ROUNDING, "requantise")
    text = _emitted_plain(kernel.lowered)
    assert "{rmode = #pto<round_mode CAST_ROUND>}" in text and "{rmode = #pto<round_mode CAST_TRUNC>}" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_ties_to_even_for_ties_away_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(ROUNDING, "requantise")
    wrong = _rewrite(kernel.lowered, "tile.cast", "wide_half", _with_mode("rint"))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    diff = outcome.first_difference
    # the other neighbour of a tie: one FP16 step (2 in [2048, 4096), 4 in [4096, 8192), ...)
    step = 2 ** (len(bin(int(abs(diff["reference"])))) - 2 - 11)
    assert diff["tensor"] == "rounded" and abs(diff["reference"]) > 2048 and abs(diff["sim"] - diff["reference"]) == step


def test_floor_for_trunc_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(ROUNDING, "requantise")
    wrong = _rewrite(kernel.lowered, "tile.cast", "codes__cast", _with_mode("floor"))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "codes", outcome.message
    assert outcome.first_difference["reference"] < 0  # floor and trunc part on negative values


def test_directed_float_rounding_of_the_reference_and_the_simulator_agree() -> None:
    """Two implementations (the reference's by exponent arithmetic, the simulator's by stepping bit
    patterns) of every mode into every float dtype, on integers, fractions, ties and subnormals."""
    import numpy as np

    from pypto_verify.ir import DType
    from pypto_verify.reference import to_dtype
    from pypto_verify.sim.dtypes import narrow_rounded, widen

    rng = np.random.default_rng(1)
    x = np.concatenate([rng.integers(-70000, 70000, 500), rng.standard_normal(500) * 1000,
                        [2049, 2051, -2049, 2050.5, 0.0, 1e-8, -1e-8, 65519, 65520, 1e6]]).astype(np.float32)
    for name, dtype in (("f16", DType.FP16), ("bf16", DType.BF16), ("f32", DType.FP32)):
        for mode in ("round", "floor", "ceil", "trunc", "rint"):
            with np.errstate(over="ignore"):  # 1e6 overflows FP16 (to infinity on both sides)
                sim = widen(narrow_rounded(x, name, mode), name)
                ref = to_dtype(x, dtype, mode)
            assert np.array_equal(sim, ref, equal_nan=True), (name, mode)
    assert list(to_dtype(np.array([2049.0, 2051.0, -2049.0]), DType.FP16, "round")) == [2050, 2052, -2050]
    assert list(to_dtype(np.array([2049.0, -2049.0]), DType.FP16, "trunc")) == [2048, -2048]


TRANSPOSE = KERNELS / "vec_transpose.py"


def test_a_vector_transpose_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(TRANSPOSE, "expert_major")
    assert "pto.ttrans ins(%token_major" in _emitted_plain(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_reshape_for_a_transpose_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(TRANSPOSE, "expert_major")
    # the same [16, 8] shape, the row-major bytes reinterpreted instead of moved
    wrong = _rewrite(kernel.lowered, "tile.transpose", "by_expert",
                     lambda call: Call("tile.reshape", (call.args[0], ListExpr((Const(16), Const(8)))), span=call.span))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "scores" and outcome.first_difference["index"] == [0, 1]


FLOAT_READ = KERNELS / "float_read.py"


def test_a_float_scalar_read_is_an_f32_argument_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(FLOAT_READ, "scaled_rows")
    text = _emitted_plain(kernel.lowered)
    assert "%arg3: f32" in text and "pto.tmuls ins(%rows, %arg3" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
    assert outcome.scalars == {"gains": 64}  # every element of `gains` (the sample value) is read as 64.0


def test_a_float_read_dropped_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(FLOAT_READ, "scaled_rows")
    wrong = _rewrite(kernel.lowered, "tile.mul", "y__mul",
                     lambda call: replace(call, args=(call.args[0], Const(1.0))))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


RESHAPED = KERNELS / "reshaped_scale.py"


def test_a_tile_reshape_is_a_view_at_its_sources_address_and_matches() -> None:
    """`scale_col` is an alloc_tile at `scale_row`'s address (no copy), and the loop's chunks stay off
    that buffer while the column is read: when the lowering copied the reshape and reused the row's
    buffer for the chunks, an in-place emission read the chunks instead (a false PV201, found on
    pypto-lib's mtp_projection)."""
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(RESHAPED, "reshaped_scale")
    text = _emitted_plain(kernel.lowered)
    assert "pto.textract" not in text
    addrs = {line.split(" = ")[0].strip(): line.split("addr = ")[1].split()[0]
             for line in text.splitlines() if "pto.alloc_tile" in line and "addr = " in line}
    assert addrs["%scale_col"] == addrs["%scale_row"], addrs
    assert all(addr != addrs["%scale_row"] for name, addr in addrs.items() if name.startswith("%chunk")), addrs
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_reshape_of_the_wrong_tile_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Var

    kernel = _kernel(RESHAPED, "reshaped_scale")
    wrong = _rewrite(kernel.lowered, "tile.reshape", "scale_col",
                     lambda call: replace(call, args=(Var("scale_row__full"), *call.args[1:])))  # the numerators
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


ARANGE = KERNELS / "column_index.py"


def test_an_index_row_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(ARANGE, "position_bias")
    assert "pto.tci ins(%c3_index : index) outs(%positions" in _emitted_plain(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_an_index_row_from_the_wrong_start_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(ARANGE, "position_bias")
    wrong = _rewrite(kernel.lowered, "tile.arange", "positions",
                     lambda call: replace(call, args=(Const(0), *call.args[1:])))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [0, 0], outcome.message


CLAMPED = KERNELS / "clamped_count.py"


def test_a_scalar_phi_is_a_select_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(CLAMPED, "clamped_rows")
    assert "= arith.select %1, %c240_index, %active_rows__phi_v2 : index" in _emitted_plain(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match" and outcome.scalars == {"num_rows": 256}, outcome.message


def test_a_clamp_on_the_wrong_side_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Compare, If

    kernel = _kernel(CLAMPED, "clamped_rows")

    def flip(stmt):
        if isinstance(stmt, If) and isinstance(stmt.cond, Compare) and stmt.cond.op == ">":
            return (replace(stmt, cond=replace(stmt.cond, op="<")),)
        return None

    wrong = replace(kernel.lowered, body=map_stmts(kernel.lowered.body, flip))
    outcome = simulate_kernel(kernel.source, wrong)  # 256 is never clamped: the last tile is written
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [240, 0], outcome.message


def test_an_if_whose_arm_could_fault_is_not_a_select() -> None:
    """An arm dividing by a run-time value would run on the path not taken: not a select but an `scf.if` with a
    result, the division inside its arm."""
    from pypto_verify.emit import emit
    from pypto_verify.ir import BinOp, If, Var

    kernel = _kernel(CLAMPED, "clamped_rows")

    def divide(stmt):
        if isinstance(stmt, If):
            first = stmt.then_body[0]
            return (replace(stmt, then_body=(replace(first, value=BinOp("//", Const(4096), Var("active_rows"))),
                                             *stmt.then_body[1:])),)
        return None

    text = emit(replace(kernel.lowered, body=map_stmts(kernel.lowered.body, divide)))
    assert "arith.select" not in text
    arm = text.split(" = scf.if %")[1].split("} else {")[0]
    assert arm.splitlines()[0].endswith(" -> (index) {") and "arith.divsi" in arm and "scf.yield" in arm


NIBBLES = KERNELS / "code_split.py"


def _divisor(value: float):
    return lambda call: replace(call, args=(call.args[0], Const(value), *call.args[2:]))


def test_a_remainder_by_a_scalar_is_tfmods_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(NIBBLES, "nibble_split")
    assert "pto.tfmods ins(%wide, %cst_f32 : " in _emitted_plain(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_remainder_by_the_wrong_divisor_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(NIBBLES, "nibble_split")
    wrong = _rewrite(kernel.lowered, "tile.fmods", "low", _divisor(32.0))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "lo", outcome.message


def test_a_remainder_by_zero_is_rejected_by_the_simulator() -> None:
    """C's fmod by zero is target-defined on the vector unit: the simulator refuses the PTO (as it
    refuses an integer division by zero), never a value of its own choosing."""
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(NIBBLES, "nibble_split")
    wrong = _rewrite(kernel.lowered, "tile.fmods", "low", _divisor(0.0))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and "pto.tfmods: remainder by zero" in outcome.message, outcome


PHASES = KERNELS / "phase_wrap.py"


def test_a_remainder_of_a_rounded_value_has_no_reference_deviation() -> None:
    """A matmul's scores are known only within their deviation, and fmod jumps by its divisor where a
    score crosses a multiple of it: the reference refuses to bound that (never a guessed deviation)."""
    import numpy as np

    from pypto_verify.reference import ReferenceError, run_reference

    kernel = _kernel(PHASES, "phase_wrap")
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((16, 64), dtype=np.float32),
              "w": rng.standard_normal((64, 64), dtype=np.float32),
              "y": np.zeros((16, 64), np.float32)}
    exact = run_reference(kernel.source, inputs, deviations=False)
    assert exact.outputs["y"].shape == (16, 64)
    with pytest.raises(ReferenceError, match="fmods` of a value with a rounding deviation"):
        run_reference(kernel.source, inputs, deviations=True)


def test_a_remainder_of_matmul_scores_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(PHASES, "phase_wrap")
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_difference_in_a_remainder_of_rounded_scores_is_neither_match_nor_mismatch() -> None:
    """The simulation of a wrong period differs from the exact reference; the reference with deviations
    cannot judge a remainder of rounded scores, so the outcome says so instead of refuting."""
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(PHASES, "phase_wrap")
    wrong = _rewrite(kernel.lowered, "tile.fmods", "y__fmods", _divisor(0.5))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "skipped", outcome
    assert "rounding deviation" in outcome.message and "differs from its exact values" in outcome.message


PICKED = KERNELS / "picked_gain.py"


def _at(row: int, col: int):
    return lambda call: replace(call, args=(call.args[0], ListExpr((Const(row), Const(col)))))


def test_a_tile_element_read_is_tgetval_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import ScalarType, walk_stmts

    kernel = _kernel(PICKED, "picked_gain")
    read = next(s for s in walk_stmts(kernel.lowered.body) if isinstance(s, Assign) and s.target.name == "gain")
    assert read.type is None or isinstance(read.type, ScalarType)  # a scalar, not a tile with a buffer
    text = _emitted_plain(kernel.lowered)
    assert "arith.muli %c1_index, %c64_index : index" in text
    assert "%gain = pto.tgetval ins(%gains, %1 : " in text and "index) outs : f32" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_tile_element_read_from_the_wrong_row_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(PICKED, "picked_gain")
    wrong = _rewrite(kernel.lowered, "tile.read", "gain", _at(0, 5))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_tile_element_read_outside_the_tile_is_rejected() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(PICKED, "picked_gain")
    wrong = _rewrite(kernel.lowered, "tile.read", "gain", _at(2, 5))  # the gains tile has 2 rows
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and "pto.tgetval: offset 133 ([2, 5]) is outside" in outcome.message, \
        outcome.message


def test_an_element_of_a_rank_1_tile_is_read_at_its_index_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(PICKED, "picked_bias")
    assert "%bias = pto.tgetval ins(%biases, %c5_index : " in _emitted_plain(kernel.lowered)
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
    wrong = _rewrite(kernel.lowered, "tile.read", "bias",
                     lambda call: replace(call, args=(call.args[0], ListExpr((Const(6),)))))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_read_of_a_rounded_element_has_no_reference_deviation() -> None:
    """A scalar carries no deviation: the reference refuses to read a matmul's element as exact."""
    import numpy as np

    from pypto_verify.reference import ReferenceError, run_reference

    kernel = _kernel(PHASES, "first_score_shift")
    rng = np.random.default_rng(0)
    inputs = {"x": rng.standard_normal((16, 64), dtype=np.float32),
              "w": rng.standard_normal((64, 64), dtype=np.float32),
              "y": np.zeros((16, 64), np.float32)}
    assert run_reference(kernel.source, inputs, deviations=False).outputs["y"].shape == (16, 64)
    with pytest.raises(ReferenceError, match="tile.read` of an element with a rounding deviation"):
        run_reference(kernel.source, inputs, deviations=True)


MARKERS = KERNELS / "row_markers.py"


def _rewrite_write(fn, tensor: str, change):
    """*fn* with the indices of its one `tensor.write` into *tensor* replaced by `change(indices)`."""
    from pypto_verify.ir import Eval

    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Eval) and isinstance(stmt.value, Call) and stmt.value.op == "tensor.write" \
                and stmt.value.args[0].name == tensor:
            hits.append(stmt)
            args = stmt.value.args
            return (replace(stmt, value=replace(stmt.value, args=(args[0], change(args[1].items), args[2]))),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


def test_a_tensor_element_write_is_store_scalar_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(MARKERS, "row_markers")
    text = _emitted_plain(kernel.lowered)
    assert "pto.store_scalar %cst_f32_1, %arg1[%1] : !pto.ptr<f32>, f32" in text
    assert "arith.index_cast %value__cast_1 : index to i32" in text
    assert "%10 = arith.muli %r, %c4_index : index" in text and "pto.store_scalar %9, %arg2[%11] : !pto.ptr<i32>, i32" \
        in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_tensor_element_write_at_swapped_indices_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(MARKERS, "row_markers")
    wrong = _rewrite_write(kernel.lowered, "tags", lambda items: ListExpr((items[1], items[0])))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "tags", outcome.message


def test_a_tensor_element_write_past_the_tensor_is_rejected() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(MARKERS, "row_markers")
    wrong = _rewrite_write(kernel.lowered, "tags", lambda items: ListExpr((Const(8), items[1])))  # 8 rows
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV202", outcome.message
    assert "pto.store_scalar: offset 32 is outside %arg2 (32 elements)" in outcome.message, outcome.message


LOOKUP = KERNELS / "level_lookup.py"


def test_a_last_axis_gather_is_one_tgather_per_row_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(LOOKUP, "level_lookup")
    text = _emitted_plain(kernel.lowered)
    gathers = [line.strip() for line in text.splitlines() if "pto.tgather" in line]
    assert len(gathers) == 8 and all(g.startswith("pto.tgather ins(%levels_row") for g in gathers), gathers
    assert "%values_tmp = pto.alloc_tile addr = %c1536_i64 valid_row = %c1_index valid_col = %c16_index" in text
    assert "%values_row_7 = pto.alloc_tile addr = %c704_i64" in text  # 256 + 7 rows of 16 f32
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_gather_of_row_indices_without_their_row_base_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import Var

    kernel = _kernel(LOOKUP, "level_lookup")
    # the instruction's flat form on the per-row indices: every row reads row 0's levels
    wrong = _rewrite(kernel.lowered, "tile.gather", "values",
                     lambda call: replace(call, args=(call.args[0], Var("picks"), Var("picks")), kwargs=()))
    text = _emitted_plain(wrong)
    assert text.count("pto.tgather") == 1
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_gather_index_past_its_row_is_rejected() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(LOOKUP, "level_lookup")
    wrong = _rewrite(kernel.lowered, "tile.fmods", "picks__fmods",
                     lambda call: replace(call, args=(call.args[0], Const(16.0))))  # codes 8..15 leave the row
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV202", outcome.message
    assert "pto.tgather: index" in outcome.message and "outside the source's valid 1x8" in outcome.message, \
        outcome.message


def test_a_matmul_operand_computed_in_vec_reaches_left_through_mat_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(KERNELS / "halved_projection.py", "halved_projection")
    text = _emitted_plain(kernel.lowered)
    assert "pto.tmov ins(%halved : !pto.tile_buf<loc=vec" in text and "outs(%halved_Left_mat : !pto.tile_buf<loc=mat" \
        in text
    assert "pto.tmov ins(%halved_Left_mat : !pto.tile_buf<loc=mat" in text
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_gather_of_indices_in_gm_loads_each_row_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(LOOKUP, "reversed_levels")
    text = _emitted_plain(kernel.lowered)
    assert text.count("partition_tensor_view<1x8xi32>) outs(%order_rows_row") == 8 and text.count("pto.tgather") == 8
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_gather_of_indices_in_gm_written_at_the_wrong_column_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import BinOp

    kernel = _kernel(LOOKUP, "reversed_levels")
    # order[r, 7 - k] = 7 - k: the identity order, so the levels are not reversed
    wrong = _rewrite_write(kernel.lowered, "order", lambda items: ListExpr((items[0], BinOp("-", Const(7), items[1]))))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_gather_wider_than_its_source_written_over_it_goes_last_row_first_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel(LOOKUP, "tagged_levels")
    text = _emitted_plain(kernel.lowered)
    # `values` ([8, 16] f32) is planned over `halved` ([8, 8] f32, from byte 512): its row r covers source rows
    # 2r and 2r + 1, so the rows go last to first (source row 7 at byte 512 + 7 * 32 first)
    assert text.index("addr = %c736_i64 valid_row = %c1_index") < text.index("addr = %c512_i64 valid_row = %c1_index")
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message
