"""Padded tiles (issue 14 item 3): a load or slice with `valid_shape=` moves only its valid region, `fillpad`
is `pto.tfillpad` and sets the padding, element-wise ops and reductions keep the valid shape, a matmul of a
padded operand computes its valid rows. Each kernel of ours simulates and matches; a mutated twin (no fill,
the wrong pad value, a load of the whole window) mismatches."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, lowered_kernels

from pypto_verify import ops
from pypto_verify.ir import Assign, Call, Sym, TileType, map_stmts, type_env

LANES = KERNELS / "padded_lanes.py"


def _kernel(name: str):
    return lowered_kernels(LANES)[name]


def _rewrite(fn, op: str, change, target: str | None = None, whole: bool = False):
    """*fn* with its one call of *op* (assigned to *target*, when given) replaced by `change(call)`; under
    *whole* its result type loses its valid shape."""
    hits = []

    def stmt_fn(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call) and stmt.value.op == op \
                and target in (None, stmt.target.name):
            hits.append(stmt)
            retyped = replace(stmt.type, valid_shape=None) if whole else stmt.type
            return (replace(stmt, value=change(stmt.value), type=retyped),)
        return None

    rewritten = replace(fn, body=map_stmts(fn.body, stmt_fn))
    assert len(hits) == 1, hits
    return rewritten


def test_a_filled_padding_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel("lane_softmax")
    text = emit(kernel.lowered)
    # the load moves the 4 real lanes; the fill's destination is whole and carries PadValue::Min (3)
    assert "sizes = [%c16_index, %c4_index]" in text
    fill = next(line for line in text.splitlines() if "pto.tfillpad" in line)
    assert fill.strip().startswith("pto.tfillpad ins(%shifted") and fill.endswith("pad=3>)")
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_element_wise_results_keep_the_valid_shape_and_the_fill_makes_it_whole() -> None:
    env = type_env(_kernel("lane_softmax").lowered)
    assert [ops.const_int(d) for d in env["shifted"].valid_shape] == [16, 4]
    assert env["filled"].valid_shape is None
    assert isinstance(env["peak"], TileType) and env["peak"].valid_shape is None


def test_a_zero_fill_before_the_row_max_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("lane_softmax")
    # the lanes are all below zero: a zero padding wins the row max and adds exp(0) four times to the sum
    wrong = _rewrite(kernel.lowered, "tile.fillpad",
                     lambda call: replace(call, kwargs=(("pad_value", Sym("pl.PadValue.zero")),)))
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y"


def test_reading_padding_nothing_filled_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("bare_lane_softmax")
    # the simulator's padding is poison (never silently zero): NaN reaches `y`
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert "sim nan" in outcome.message


def test_a_padded_window_past_the_tensor_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("short_batch")
    env = type_env(kernel.lowered)
    assert [ops.const_int(d) for d in env["acc"].valid_shape] == [8, 32]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_loading_the_whole_padded_window_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("short_batch")
    # the load without its valid shape reads 16 rows of an 8-row tensor
    wrong = _rewrite(kernel.lowered, "tile.load", lambda call: replace(call, args=(*call.args[:3], call.args[2])),
                     target="rows", whole=True)
    outcome = simulate_kernel(kernel.source, wrong)
    assert outcome.status == "mismatch" and outcome.rule == "PV202", outcome.message
    assert "exceed the view's shape [8, 64]" in outcome.message


def test_a_padded_reshape_keeps_its_valid_prefix_and_simulates_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("block_peaks")
    env = type_env(kernel.lowered)
    (reshaped,) = [t for name, t in env.items() if name.startswith("peaks") and isinstance(t, TileType)
                   and ops.static_shape(t.shape) == (1, 8)]
    assert [ops.const_int(d) for d in reshaped.valid_shape] == [1, 2]
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_an_element_wise_op_reading_unfilled_padding_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel("bare_block_peaks")
    # the maximum runs over the floor's 8 lanes and reads the peaks' 6 padding lanes: poison in `y`
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "mismatch" and outcome.rule == "PV201", outcome.message
    assert outcome.first_difference["tensor"] == "y" and outcome.first_difference["index"] == [0, 2]


FLAT_COPY = '''
import pypto.language as pl


@pl.jit
def flat_copy(
    x: pl.Tensor[[4, 8], pl.FP32],
    y: pl.Out[pl.Tensor[[2, 16], pl.FP32]],
):
    y_rows = pl.reshape(y, [4, 8])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="flat_copy"):
        grown = pl.exp(pl.load(x, [0, 0], [4, 8], target_memory=pl.MemorySpace.Vec))
        y_rows[:, :] = grown
    return y
'''


def test_a_write_through_a_gm_reshape_marks_its_tensor_written() -> None:
    # `Value.frame` sits after the fields a GM tensor's reshape passes on: its `written` cell stays shared
    import numpy as np

    from pypto_verify.frontend import read_source
    from pypto_verify.reference import run_reference

    source = read_source(FLAT_COPY, "flat_copy.py")
    (fn,) = [f for p in source.module.programs for f in p.functions]
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    result = run_reference(fn, {"x": x, "y": np.zeros((2, 16), np.float32)})
    assert "y" in result.written and "x" not in result.written
    np.testing.assert_allclose(result.outputs["y"], np.exp(x).reshape(2, 16), rtol=1e-6)
