"""Tiles of rank 3 and 4 (issue 14 item 3, loads and stores of any rank the library uses): a Vec tile of rank > 2
is the 2-D tile of its rows (PyPTO's FlattenTileNdTo2D), loaded from and stored into a `partition_view` of the
tensor's own rank whose leading axes are the rows in row-major order (docs/pto-subset.md). Each kernel of ours
simulates and matches; a window at the wrong index on a leading axis, or stored at the wrong offset, mismatches;
any other op on such a tile is skipped with its reason."""

from __future__ import annotations

from dataclasses import replace

from stages import KERNELS, check_text, lowered_kernels, rewrite_call

from pypto_verify.ir import Const, ListExpr

RANKED = KERNELS / "ranked_tiles.py"


def _simulate(name: str, change=None):
    from pypto_verify.dynamic import simulate_kernel

    kernel = lowered_kernels(RANKED)[name]
    lowered = kernel.lowered if change is None else change(kernel.lowered)
    return simulate_kernel(kernel.source, lowered)


def _offset(axis: int, value: int):
    """A `tile.load` (offsets its second operand) or `tile.store` (its second too) with offset *axis* made *value*."""
    def change(call):
        items = list(call.args[1].items)
        items[axis] = Const(value)
        return replace(call, args=(call.args[0], ListExpr(tuple(items)), *call.args[2:]))
    return change


def test_tiles_of_rank_3_and_4_simulate_and_match() -> None:
    for name in ("lane_copy", "block_swap", "stacked_lanes", "lane_scale", "head_rows"):
        outcome = _simulate(name)
        assert outcome.status == "match", (name, outcome.message)


def test_a_rank_3_tile_is_the_2d_tile_of_its_rows_moved_through_windows_of_the_tensors_rank() -> None:
    from pypto_verify.emit import emit

    text = emit(lowered_kernels(RANKED)["lane_copy"].lowered)
    assert "rows=4, cols=64" in text
    assert text.count("sizes = [%c4_index, %c1_index, %c64_index] : !pto.tensor_view<?x?x?xf32> -> "
                      "!pto.partition_tensor_view<4x1x64xf32>") == 2  # the load's window and the store's


def test_a_band_loaded_at_the_wrong_index_of_the_leading_axis_mismatches() -> None:
    outcome = _simulate("lane_copy", lambda fn: rewrite_call(fn, "tile.load", "y__slice", _offset(0, 0)))
    assert outcome.status == "mismatch" and outcome.first_difference["index"][0] == 4, outcome.message


def test_a_band_stored_into_the_wrong_lane_mismatches() -> None:
    outcome = _simulate("lane_copy", lambda fn: rewrite_call(fn, "tile.store", "y", _offset(1, 0)))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_block_whose_rows_are_not_evenly_spaced_loaded_from_the_wrong_plane_mismatches() -> None:
    outcome = _simulate("block_swap", lambda fn: rewrite_call(fn, "tile.load", "y__slice", _offset(0, 0)))
    assert outcome.status == "mismatch" and outcome.first_difference["index"][0] == 2, outcome.message


def test_a_block_whose_rows_are_not_evenly_spaced_stored_at_the_wrong_row_mismatches() -> None:
    outcome = _simulate("block_swap", lambda fn: rewrite_call(fn, "tile.store", "y", _offset(1, 1)))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "y", outcome.message


def test_a_rank_4_window_of_the_wrong_lane_mismatches() -> None:
    outcome = _simulate("stacked_lanes", lambda fn: rewrite_call(fn, "tile.load", "y__slice", _offset(2, 0)))
    assert outcome.status == "mismatch", outcome.message


def test_a_rank_3_band_of_the_wrong_lane_reshaped_to_2d_mismatches() -> None:
    outcome = _simulate("lane_scale", lambda fn: rewrite_call(fn, "tile.load", "band", _offset(1, 0)))
    assert outcome.status == "mismatch" and outcome.first_difference["index"][0] == 8, outcome.message


def test_a_run_time_valid_row_count_of_a_rank_3_tile_is_the_windows_leading_extent() -> None:
    from pypto_verify.emit import emit

    text = emit(lowered_kernels(RANKED)["head_rows"].lowered)
    assert text.count("sizes = [%arg3, %c1_index, %c64_index] : !pto.tensor_view<?x?x?xf32> -> "
                      "!pto.partition_tensor_view<?x1x64xf32>") == 2, text


def test_rank_3_head_rows_stored_one_lane_over_mismatch() -> None:
    outcome = _simulate("head_rows", lambda fn: rewrite_call(fn, "tile.store", "y", _offset(1, 0)))
    assert outcome.status == "mismatch", outcome.message


SUMMED = '''
import pypto.language as pl

TOKENS = 8
LANES = 4
WIDTH = 64


@pl.jit
def lane_sum(
    x: pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32],
    y: pl.Out[pl.Tensor[[TOKENS, LANES, WIDTH], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_sum"):
        band = pl.tile.load(x, [0, 0, 0], [4, 2, WIDTH])
        y[0:4, 0:2, :] = pl.add(band, band)
    return y
'''
"""A vector op on a rank-3 tile: merged into rows it would be right, but the subset gives a form only to loads
and stores of such a tile."""


def test_a_vector_op_on_a_rank_3_tile_is_skipped_with_its_reason(tmp_path) -> None:
    file, errors = check_text(tmp_path, SUMMED, sim=True)
    (kernel,) = file.kernels
    assert not errors and kernel.sim == "skipped", kernel.sim_reason
    assert "of a tile of rank 3: only loads, stores and reshapes of a tile of rank > 2 have a PTO form" in kernel.sim_reason
