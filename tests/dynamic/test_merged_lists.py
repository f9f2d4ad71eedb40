"""`pl.mrgsort(a, b[, c, d])` (TMRGSORT format 2, 2-4 sorted lists merged into one, with its workspace tile): top-k
ids of a kernel of ours simulate and match, a twin that merges one list twice (a wrong slice offset) mismatches, and
the simulator refuses what it does not model (a merge that stops when a list runs out, a list that is not
sorted)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, Const, ListExpr

MERGED = KERNELS / "merged_lists.py"


def _kernels():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    return {k.name: k for k in lower_stage(read_stage(str(MERGED)), Options()).kernels}


@pytest.mark.parametrize(("name", "lists"), [("top_of_512", 4), ("top_of_256", 2)])
def test_a_merge_of_sorted_lists_emits_tmrgsort_format_2_and_matches(name: str, lists: int) -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernels()[name]
    merges = [line for line in emit(kernel.lowered).splitlines() if "{exhausted = false}" in line]
    assert len(merges) == 1 and merges[0].count("%") == lists + 2  # the lists, the workspace, the destination
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_a_list_merged_twice_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.ir import map_stmts

    kernel = _kernels()["top_of_512"]

    def edit(stmt):
        # the third list read at the second's offset: 256 lanes merged twice, 256 never
        value = stmt.value if isinstance(stmt, Assign) else None
        if isinstance(value, Call) and value.op == "tile.slice" and isinstance(value.args[2], ListExpr) \
                and value.args[2].items[1] == Const(512):
            return (replace(stmt, value=replace(value, args=(*value.args[:2], ListExpr((Const(0), Const(256)))))),)
        return None

    twin = replace(kernel.lowered, body=map_stmts(kernel.lowered.body, edit))
    assert twin != kernel.lowered
    outcome = simulate_kernel(kernel.source, twin)
    assert outcome.status == "mismatch", outcome.message


_MERGE = """module {{
  func.func @merge(%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<f32>) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %a0 = arith.constant 0 : i64
    %a1 = arith.constant 512 : i64
    %a2 = arith.constant 1024 : i64
    %a3 = arith.constant 2048 : i64
    %src = pto.make_tensor_view %arg0, shape = [%c1, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
    %out = pto.make_tensor_view %arg1, shape = [%c1, %c16], strides = [%c16, %c1] {{layout = #pto.layout<nd>}} : !pto.tensor_view<?x?xf32>
    %x = pto.alloc_tile addr = %a0 valid_row = %c1 valid_col = %c8 : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %y = pto.alloc_tile addr = %a1 valid_row = %c1 valid_col = %c8 : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %t = pto.alloc_tile addr = %a2 valid_row = %c1 valid_col = %c16 : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %d = pto.alloc_tile addr = %a3 valid_row = %c1 valid_col = %c16 : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %xs = pto.partition_view %src, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    pto.tload ins(%xs : !pto.partition_tensor_view<1x8xf32>) outs(%x : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %ys = pto.partition_view %src, offsets = [%c0, %c8], sizes = [%c1, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x8xf32>
    pto.tload ins(%ys : !pto.partition_tensor_view<1x8xf32>) outs(%y : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tmrgsort ins(%x, %y, %t : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%d : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) {{exhausted = {exhausted}}}
    %ds = pto.partition_view %out, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    pto.tstore ins(%d : !pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%ds : !pto.partition_tensor_view<1x16xf32>)
    return
  }}
}}
"""


def _pairs(values: list[float], first: int) -> list[float]:
    index_bits = np.arange(first, first + len(values), dtype=np.uint32).view(np.float32)
    return [x for pair in zip(values, index_bits) for x in pair]


def test_the_simulator_merges_two_lists_an_equal_value_from_the_earlier_list_first() -> None:
    from pypto_verify.sim import simulate

    lists = np.array([_pairs([9.0, 5.0, 5.0, 1.0], 0) + _pairs([7.0, 5.0, 2.0, 0.5], 4)], dtype=np.float32)
    out = simulate(_MERGE.format(exhausted="false"), "merge", {"arg0": lists, "arg1": np.zeros((1, 16), np.float32)})
    merged = out["arg1"].reshape(8, 2)
    assert list(merged[:, 0]) == [9.0, 7.0, 5.0, 5.0, 5.0, 2.0, 1.0, 0.5]
    assert list(merged[:, 1].view(np.uint32)) == [0, 4, 1, 2, 5, 6, 3, 7]


def test_the_simulator_refuses_what_format_2_does_not_model() -> None:
    from pypto_verify.sim import SimError, simulate

    sorted_lists = np.array([_pairs([9.0, 5.0, 5.0, 1.0], 0) + _pairs([7.0, 5.0, 2.0, 0.5], 4)], dtype=np.float32)
    with pytest.raises(SimError, match="exhausted"):
        simulate(_MERGE.format(exhausted="true"), "merge", {"arg0": sorted_lists, "arg1": np.zeros((1, 16), np.float32)})
    unsorted = np.array([_pairs([1.0, 5.0, 5.0, 9.0], 0) + _pairs([7.0, 5.0, 2.0, 0.5], 4)], dtype=np.float32)
    with pytest.raises(SimError, match="not sorted"):
        simulate(_MERGE.format(exhausted="false"), "merge", {"arg0": unsorted, "arg1": np.zeros((1, 16), np.float32)})
