"""`pl.cmp` (issue 14): PyPTO's tensor.cmp conversion — a `tile.cmps` (`tile.cmp` of two tiles) packed predicate mask
and a `tile.sel` of 1 / 0 tiles — emitted as `pto.tcmps` / `pto.tcmp` and `pto.tsel`, simulated and matched on
kernels of ours (`threshold_counts.py`); a lowering that takes the wrong compare, the wrong threshold or the
selected tiles the other way round mismatches. The reference compares exactly, refuses a NaN, and gives a lane its
deviations could flip a step's deviation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, lowered_kernels, rewrite_call

from pypto_verify.ir import Call, Const

COUNTS = KERNELS / "threshold_counts.py"


def _kernel(name: str):
    return lowered_kernels(COUNTS)[name]


def _simulate(kernel, lowered=None):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, lowered if lowered is not None else kernel.lowered)


def test_the_lowering_is_pyptos_mask_and_select() -> None:
    from pypto_verify.ir import Assign, walk_stmts

    kernel = _kernel("bucket_rows")
    calls = [s for s in walk_stmts(kernel.lowered.body) if isinstance(s, Assign) and isinstance(s.value, Call)]
    mask = next(s for s in calls if s.target.name == "idx__cmp_mask")
    assert mask.value.op == "tile.cmps" and mask.value.kwarg("cmp_type") == Const(5)
    assert [int(d.value) for d in mask.type.shape] == [16, 32] and mask.type.dtype.value == "UINT8"
    assert [int(d.value) for d in mask.type.valid_shape] == [16, 8]
    select = next(s for s in calls if s.value.op == "tile.sel" and s.value.args[0] == mask.target)
    assert [a.name for a in select.value.args[1:]] == ["idx__cmp_one", "idx__cmp_zero", "idx__cmp_tmp"]


def test_threshold_counts_emit_tcmps_and_tsel_and_match() -> None:
    from pypto_verify.emit import emit

    kernel = _kernel("bucket_rows")
    text = emit(kernel.lowered)
    modes = [line.split("#pto<cmp ")[1][:2] for line in text.splitlines() if "pto.tcmps" in line]
    assert modes == ["ge", "gt", "lt", "le"] and text.count("pto.tsel ins(%idx__cmp_mask") == 4
    outcome = _simulate(kernel)
    assert outcome.status == "match", outcome.message


def test_a_compare_of_two_tensors_is_a_tcmp_and_matches() -> None:
    from pypto_verify.emit import emit

    kernel = _kernel("above_rows")
    assert "pto.tcmp ins(%turned_Vec, %bound {cmpMode = #pto<cmp gt>}" in emit(kernel.lowered)
    outcome = _simulate(kernel)
    assert outcome.status == "match", outcome.message


def test_a_wrong_cmp_type_mismatches() -> None:
    kernel = _kernel("bucket_rows")
    wrong = rewrite_call(kernel.lowered, "tile.cmps", "idx__cmp_mask",
                         lambda call: replace(call, kwargs=(("cmp_type", Const(2)),)))  # ge read as lt
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message


def test_an_off_threshold_mismatches() -> None:
    kernel = _kernel("bucket_rows")
    wrong = rewrite_call(kernel.lowered, "tile.cmps", "idx__cmp_mask_1",
                         lambda call: replace(call, args=(call.args[0], Const(0.25))))  # > 0.0 read as > 0.25
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_select_the_other_way_round_mismatches() -> None:
    kernel = _kernel("above_rows")
    wrong = rewrite_call(kernel.lowered, "tile.sel", "above",
                         lambda call: replace(call, args=(call.args[0], call.args[2], call.args[1], call.args[3])))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch", outcome.message


def _compare_source(rhs: float = 0.5, cmp_type: int = 5):
    """`y = tensor.cmp(x, rhs, cmp_type)` of a 2 x 8 FP32 parameter, as a source function."""
    from pypto_verify.ir import Assign, DType, Function, FunctionKind, ListExpr, Param, Return, TensorType, Var

    t = TensorType((Const(2), Const(8)), DType.FP32)
    call = Call("tensor.cmp", (Var("x"), Const(rhs)), (("cmp_type", Const(cmp_type)),))
    store = Call("tensor.assemble", (Var("y"), Var("c"), ListExpr((Const(0), Const(0)))))
    return Function("f", FunctionKind.OPAQUE, (Param("x", t), Param("y", t)), (t,),
                    (Assign(Var("c"), call, t), Assign(Var("y"), store, t), Return((Var("y"),))), has_self=False)


def test_the_reference_compares_exactly_in_the_lhs_dtype() -> None:
    from pypto_verify.reference import run_reference

    x = np.linspace(0, 1, 16, dtype=np.float32).reshape(2, 8)
    for code, holds in enumerate((np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)):
        got = run_reference(_compare_source(float(x[1, 0]), code), {"x": x, "y": np.zeros_like(x)}).outputs["y"]
        np.testing.assert_array_equal(got, holds(x, x[1, 0]).astype(np.float32))


def test_the_reference_refuses_a_nan() -> None:
    from pypto_verify.reference import ReferenceError, run_reference

    x = np.zeros((2, 8), np.float32)
    x[1, 3] = np.nan
    with pytest.raises(ReferenceError, match="of a NaN"):
        run_reference(_compare_source(), {"x": x, "y": np.zeros_like(x)})


def test_a_lane_its_deviation_could_flip_is_undetermined() -> None:
    from pypto_verify.ir import DType
    from pypto_verify.reference import DEVIATIONS, Value, _compare, _Interpreter

    fn = _compare_source()
    it = _Interpreter(fn)
    x = np.array([[0.4, 0.5 - 1e-7, 0.6, 0.5 + 1e-7]], np.float32)
    it.env["x"] = Value(x, DType.FP32, sigma=np.full(x.shape, 1e-7, np.float32))
    got = _compare(it, fn.body[0].value)
    assert got.data.tolist() == [[0.0, 0.0, 1.0, 1.0]]
    assert got.sigma.tolist() == [[0.0, pytest.approx(1 / DEVIATIONS), 0.0, pytest.approx(1 / DEVIATIONS)]]



MASKS = KERNELS / "threshold_masks.py"


def test_a_tile_level_compare_is_tile_cmps_and_a_select_reads_its_mask() -> None:
    from pypto_verify.ir import Assign, walk_stmts

    kernel = lowered_kernels(MASKS)["floored_rows"]
    (mask,) = [s for s in walk_stmts(kernel.source.body) if isinstance(s, Assign) and s.target.name == "above"]
    assert mask.value.op == "tile.cmps"  # PyPTO's unified cmp of a tile and a scalar
    outcome = _simulate(kernel)
    assert outcome.status == "match", outcome.message


def test_a_tile_level_select_the_other_way_round_mismatches() -> None:
    kernel = lowered_kernels(MASKS)["floored_rows"]
    wrong = rewrite_call(kernel.lowered, "tile.sel", "kept",
                         lambda call: replace(call, args=(call.args[0], call.args[2], call.args[1], call.args[3])))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch", outcome.message


def test_the_reference_refuses_a_mask_lane_its_deviation_could_flip() -> None:
    from pypto_verify.ir import DType
    from pypto_verify.reference import ReferenceError, Value, _Interpreter, _mask

    kernel = lowered_kernels(MASKS)["floored_rows"]
    it = _Interpreter(kernel.source)
    x = np.full((16, 64), 0.75, np.float32)
    x[3, 5] = 0.25 + 1e-7
    it.env["rows"] = Value(x, DType.FP32, sigma=np.full(x.shape, 1e-7, np.float32))
    call = next(s.value for s in kernel.source.body[0].body if getattr(s.target, "name", "") == "above")
    with pytest.raises(ReferenceError, match="could flip is not determined"):
        _mask(it, call)
    it.env["rows"] = Value(np.full((16, 64), 0.75, np.float32), DType.FP32, sigma=np.full(x.shape, 1e-7, np.float32))
    assert (_mask(it, call).data == 255).all()
