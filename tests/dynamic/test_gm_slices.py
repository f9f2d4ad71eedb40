"""GM slices that stay GM tensors (issue 14 item 3): PyPTO's orchestration `tensor.slice` is a view of the same
storage at the slice's offsets with its source's strides, in PTO a `pto.addptr` and a `make_tensor_view`
(docs/pto-subset.md "Tensors in GM"). Each kernel of ours simulates and matches; a wrong offset mismatches; a
slice read after a store into its tensor (where the view and the reference's copy would differ) is skipped with
its reason."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, check_text, lowered_kernels, rewrite_call

from pypto_verify.ir import Assign, Call, Const, ListExpr

SLICES = KERNELS / "gm_slices.py"
LOOKUP = KERNELS / "row_lookup.py"


def _kernel(path, name: str):
    return lowered_kernels(path)[name]


_rewrite = rewrite_call


def _simulate(kernel, lowered=None):
    from pypto_verify.dynamic import simulate_kernel

    return simulate_kernel(kernel.source, kernel.lowered if lowered is None else lowered)


def _offsets(*values: int):
    return lambda call: replace(call, args=(*call.args[:2], ListExpr(tuple(Const(v) for v in values)), *call.args[3:]))


def test_gm_slices_simulate_and_match() -> None:
    for name, at in (("row_gain", "TOKENS=2"), ("band_mean", "TOKENS=16"), ("stacked_rows", "TOKENS=16")):
        outcome = _simulate(_kernel(SLICES, name))
        assert (outcome.status, outcome.message) == ("match", f"match at {at}"), (name, outcome.message)


def test_a_gm_slice_is_an_addptr_of_its_sources_pointer_viewed_with_its_sources_strides() -> None:
    from pypto_verify.emit import emit
    from pypto_verify.sizes import bind_sizes

    text = emit(bind_sizes(_kernel(SLICES, "band_mean").lowered, {"TOKENS": 16}))
    lines = [line.strip() for line in text.splitlines() if "pto.addptr" in line or "_view = pto.make" in line]
    assert lines[-4:] == [
        "%band_ptr = pto.addptr %arg2, %c0_index : !pto.ptr<f32> -> !pto.ptr<f32>",
        "%band_view = pto.make_tensor_view %band_ptr, shape = [%c8_index, %c64_index], strides = [%c64_index, "
        "%c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>",
        "%right_ptr = pto.addptr %band_ptr, %c32_index : !pto.ptr<f32> -> !pto.ptr<f32>",
        "%right_view = pto.make_tensor_view %right_ptr, shape = [%c8_index, %c32_index], strides = [%c64_index, "
        "%c1_index] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xf32>"]


def test_a_gm_slice_at_the_wrong_offset_mismatches() -> None:
    kernel = _kernel(SLICES, "row_gain")
    # both halves of the row scaled by the gains of the upper half
    wrong = _rewrite(kernel.lowered, "tensor.slice", "gain_lo", lambda call: replace(call, args=(
        call.args[0], call.args[1], ListExpr((call.args[2].items[0], Const(32))))))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message
    assert outcome.first_difference["index"][1] >= 32


def test_a_window_of_a_gm_slice_at_the_wrong_offset_mismatches() -> None:
    kernel = _kernel(SLICES, "band_mean")
    wrong = _rewrite(kernel.lowered, "tensor.slice", "right", _offsets(0, 0))  # the left half of the band
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [0, 0], outcome.message


def test_a_gm_slice_of_the_wrong_plane_mismatches() -> None:
    kernel = _kernel(SLICES, "stacked_rows")
    wrong = _rewrite(kernel.lowered, "tensor.slice", "picked_3d", _offsets(2, 0, 0))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


STALE = '''
import pypto.language as pl

ROWS = 16
COLS = 32


@pl.jit
def stale_band(
    x: pl.Tensor[[ROWS, COLS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
):
    scratch = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        scratch = pl.assemble(scratch, pl.tile.load(x, [0, 0], [ROWS, COLS]), [0, 0])
    band = scratch[0:8, :]
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        scratch = pl.assemble(scratch, pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="third"):
        y[0:8, :] = pl.tile.load(band, [0, 0], [8, COLS])
    return y
'''
"""`band` is sliced from `scratch`, which is stored into again before the band is loaded: a view sees the
second store, the reference's copy of the slice does not."""


def test_a_gm_slice_read_after_a_store_into_its_tensor_is_skipped_with_its_reason(tmp_path) -> None:
    file, errors = check_text(tmp_path, STALE, sim=True)
    (kernel,) = file.kernels
    assert not errors and kernel.sim == "skipped", kernel.sim_reason
    assert "a GM slice of `scratch` is read after a store into `scratch`" in kernel.sim_reason


def test_a_gm_slice_made_before_a_loop_that_stores_into_its_tensor_is_skipped_with_its_reason(tmp_path) -> None:
    looped = STALE.replace('''    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        scratch = pl.assemble(scratch, pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="third"):
        y[0:8, :] = pl.tile.load(band, [0, 0], [8, COLS])
''', '''    for i in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="third"):
            y[0:8, :] = pl.tile.load(band, [0, 0], [8, COLS])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
            scratch = pl.assemble(scratch, pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0), [0, 0])
''')
    assert looped != STALE
    file, errors = check_text(tmp_path, looped, sim=True)
    (kernel,) = file.kernels
    assert not errors and kernel.sim == "skipped", kernel.sim_reason
    assert "a GM slice of `scratch` made before a loop is read in it, and the loop stores into `scratch`" \
        in kernel.sim_reason


def test_a_gm_slice_read_before_the_store_into_its_tensor_matches(tmp_path) -> None:
    fresh = STALE.replace('''    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        scratch = pl.assemble(scratch, pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0), [0, 0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="third"):
        y[0:8, :] = pl.tile.load(band, [0, 0], [8, COLS])
''', '''    with pl.at(level=pl.Level.CORE_GROUP, name_hint="third"):
        y[0:8, :] = pl.tile.load(band, [0, 0], [8, COLS])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
        scratch = pl.assemble(scratch, pl.muls(pl.tile.load(x, [0, 0], [ROWS, COLS]), 2.0), [0, 0])
''')
    assert fresh != STALE
    file, errors = check_text(tmp_path, fresh, sim=True)
    (kernel,) = file.kernels
    assert not errors and kernel.sim == "match", kernel.sim_reason


def test_a_one_row_slice_at_a_run_time_offset_is_gathered_at_its_own_address_and_matches() -> None:
    outcome = _simulate(_kernel(LOOKUP, "row_lookup"))
    assert outcome.status == "match", outcome.message


def test_a_row_gathered_from_the_first_row_mismatches() -> None:
    kernel = _kernel(LOOKUP, "row_lookup")
    wrong = _rewrite(kernel.lowered, "tile.slice", "level_row", _offsets(0, 0))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"][0] == 1, outcome.message


def test_a_slice_of_a_computed_value_sliced_again_is_a_tile_slice_and_matches() -> None:
    from pypto_verify.ir import walk_stmts

    kernel = _kernel(SLICES, "swapped_halves")
    ops = {s.target.name: s.value.op for s in walk_stmts(kernel.lowered.body)
           if isinstance(s, Assign) and isinstance(s.value, Call)}
    assert (ops["scaled"], ops["lo"], ops["hi"]) == ("tile.slice", "tile.slice", "tile.slice")
    outcome = _simulate(kernel)
    assert outcome.status == "match", outcome.message


def test_a_window_of_a_computed_slice_at_the_wrong_offset_mismatches() -> None:
    kernel = _kernel(SLICES, "swapped_halves")
    wrong = _rewrite(kernel.lowered, "tile.slice", "hi", _offsets(0, 0))
    outcome = _simulate(kernel, wrong)
    assert outcome.status == "mismatch" and outcome.first_difference["index"] == [0, 0], outcome.message


STALE_INDICES = '''
import pypto.language as pl

ROWS = 8
LEVELS = 8


@pl.jit
def stale_order(
    table: pl.Tensor[[ROWS, LEVELS], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, LEVELS], pl.FP32]],
):
    order = pl.create_tensor([ROWS, LEVELS], dtype=pl.INT32)
    picked = order[0:ROWS, :]
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stale_order"):
        levels = pl.tile.load(table, [0, 0], [ROWS, LEVELS])
        for r in pl.range(ROWS):
            for k in pl.range(LEVELS):
                pl.write(order, [r, k], pl.cast(LEVELS - 1 - k, pl.INT32))
        y[:, :] = pl.gather(levels, dim=-1, index=picked)
    return y
'''
"""The gather's indices are a GM slice of `order` made before the `pl.write`s into `order`."""


def test_gather_indices_in_a_gm_slice_read_after_a_store_into_its_tensor_are_skipped_with_their_reason(tmp_path) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    path = tmp_path / "stale_order.py"
    path.write_text(STALE_INDICES)
    (kernel,) = lower_stage(read_stage(str(path)), Options()).kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "skipped", outcome.message
    assert "a GM slice of `order` is read after a store into `order`" in outcome.reason
