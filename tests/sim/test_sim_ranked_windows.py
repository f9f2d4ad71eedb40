"""`partition_view` windows of rank 3 (docs/pto-subset.md): the window's leading axes are the tile's rows in row-major
order, whether they collapse into evenly spaced rows (`[4, 1, 4]`) or not (`[2, 3, 4]` of a `[4, 5, 4]` view), for
`pto.tload` and `pto.tstore` alike."""

from __future__ import annotations

import numpy as np

from pypto_verify.sim import parse_pto, simulate

_TILE = "!pto.tile_buf<loc=vec, dtype=f32, rows=6, cols=4, v_row=?, v_col=?, blayout=row_major, slayout=none_box, " \
        "fractal=512, pad=0>"
_VIEW3 = "!pto.tensor_view<?x?x?xf32>"
TEXT = f"""module attributes {{pto.target_arch = "a2a3"}} {{
  func.func @block_rows(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>, %arg2: !pto.ptr<f32>) {{
    %c0_i64 = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c20 = arith.constant 20 : index
    %x = pto.make_tensor_view %arg0, shape = [%c4, %c5, %c4], strides = [%c20, %c4, %c1] {{layout = #pto.layout<nd>}} : {_VIEW3}
    %y = pto.make_tensor_view %arg1, shape = [%c4, %c5, %c4], strides = [%c20, %c4, %c1] {{layout = #pto.layout<nd>}} : {_VIEW3}
    %rows = pto.make_tensor_view %arg2, shape = [%c6, %c4], strides = [%c4, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
    %t = pto.alloc_tile addr = %c0_i64 valid_row = %c6 valid_col = %c4 : {_TILE}
    %xw = pto.partition_view %x, offsets = [%c1, %c2, %c0], sizes = [%c2, %c3, %c4] : {_VIEW3} -> !pto.partition_tensor_view<2x3x4xf32>
    pto.tload ins(%xw : !pto.partition_tensor_view<2x3x4xf32>) outs(%t : {_TILE})
    %rw = pto.partition_view %rows, offsets = [%c0, %c0], sizes = [%c6, %c4] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<6x4xf32>
    pto.tstore ins(%t : {_TILE}) outs(%rw : !pto.partition_tensor_view<6x4xf32>)
    %yw = pto.partition_view %y, offsets = [%c0, %c0, %c0], sizes = [%c2, %c3, %c4] : {_VIEW3} -> !pto.partition_tensor_view<2x3x4xf32>
    pto.tstore ins(%t : {_TILE}) outs(%yw : !pto.partition_tensor_view<2x3x4xf32>)
    return
  }}
}}
"""


def test_a_rank_3_window_is_its_leading_axes_as_rows_in_row_major_order() -> None:
    x = np.arange(4 * 5 * 4, dtype=np.float32).reshape(4, 5, 4)
    out = simulate(parse_pto(TEXT), "block_rows", {"arg0": x, "arg1": np.zeros((4, 5, 4), np.float32),
                                                   "arg2": np.zeros((6, 4), np.float32)})
    np.testing.assert_array_equal(out["arg2"], x[1:3, 2:5, :].reshape(6, 4))
    expected = np.zeros((4, 5, 4), np.float32)
    expected[0:2, 0:3, :] = x[1:3, 2:5, :]
    np.testing.assert_array_equal(out["arg1"], expected)


def test_a_rank_3_window_whose_leading_axes_collapse_is_read_and_written_in_place() -> None:
    collapsing = TEXT.replace("sizes = [%c2, %c3, %c4] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<2x3x4xf32>",
                              "sizes = [%c6, %c1, %c4] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<6x1x4xf32>")
    collapsing = collapsing.replace("offsets = [%c1, %c2, %c0], sizes = [%c6", "offsets = [%c0, %c2, %c0], sizes = [%c6")
    collapsing = collapsing.replace("!pto.partition_tensor_view<2x3x4xf32>", "!pto.partition_tensor_view<6x1x4xf32>")
    collapsing = collapsing.replace("shape = [%c4, %c5, %c4], strides = [%c20", "shape = [%c6, %c5, %c4], strides = [%c20")
    x = np.arange(6 * 5 * 4, dtype=np.float32).reshape(6, 5, 4)
    out = simulate(parse_pto(collapsing), "block_rows", {"arg0": x, "arg1": np.zeros((6, 5, 4), np.float32),
                                                         "arg2": np.zeros((6, 4), np.float32)})
    np.testing.assert_array_equal(out["arg2"], x[:, 2, :])
    expected = np.zeros((6, 5, 4), np.float32)
    expected[:, 0, :] = x[:, 2, :]
    np.testing.assert_array_equal(out["arg1"], expected)
