"""The result type of each data op pypto-lib uses whose shape or dtype is not its first operand's: one
claim per rule, the facts from PyPTO's own type deduction (`src/ir/op/{tensor,tile}_ops/*.cpp`)."""

from __future__ import annotations

import pytest

from pypto_verify import ops
from pypto_verify.ir import Call, Const, DType, ListExpr, MemSpace, Sym, TensorType, TileType, Var

C = Const
ENV = {
    "x": TensorType((C(16), C(64)), DType.FP32),
    "h": TensorType((C(16), C(64)), DType.FP16),
    "y": TensorType((C(16), C(32)), DType.FP32),
    "t": TileType((C(16), C(64)), DType.FP32, MemSpace.Vec),
    "i": TensorType((C(16), C(64)), DType.UINT32),
    "l1": TensorType((C(32), C(64)), DType.BF16),
    "pool": TensorType((C(256), C(64)), DType.BF16),
}


def typed(op: str, *args, **kwargs):
    return ops.infer_call_type(Call(op, tuple(args), tuple(kwargs.items())), ENV)


def test_row_argmax_is_an_int32_column():
    assert typed("tensor.row_argmax", Var("x")) == TensorType((C(16), C(1)), DType.INT32)
    assert typed("tile.row_argmin", Var("t"), Var("t")) == TileType((C(16), C(1)), DType.INT32, MemSpace.Vec)


def test_col_argmax_is_an_int32_row():
    assert typed("tensor.col_argmax", Var("x")) == TensorType((C(1), C(64)), DType.INT32)


def test_arange_has_its_shape_argument_and_int32_by_default():
    assert typed("tensor.arange", C(0), ListExpr((C(1), C(64)))) == TensorType((C(1), C(64)), DType.INT32)
    assert typed("tile.arange", C(0), ListExpr((C(1), C(64))), dtype=Sym("UINT32")) == \
        TileType((C(1), C(64)), DType.UINT32, MemSpace.Vec)


def test_sort32_doubles_the_last_dimension():
    assert typed("tensor.sort32", Var("x"), Var("i")) == TensorType((C(16), C(128)), DType.FP32)


def test_mrgsort_keeps_one_run_and_joins_several():
    assert typed("tensor.mrgsort", Var("x"), block_len=C(64)) == TensorType((C(16), C(64)), DType.FP32)
    assert typed("tensor.mrgsort", Var("x"), Var("y"), Var("y")) == TensorType((C(16), C(128)), DType.FP32)
    # the tile form's workspace is its `tmp=` keyword (PyPTO's `pl.tile.mrgsort(src0, src1, ..., tmp=...)`), never a list
    joined = typed("tile.mrgsort", Var("x"), Var("y"), tmp=Var("y"))
    assert joined is not None and joined.shape == (C(16), C(96))


def test_gather_by_mask_keeps_the_marked_columns_in_the_output_dtype():
    pattern = Sym("tile.MaskPattern.P1010")
    assert typed("tensor.gather", Var("x"), mask_pattern=pattern, output_dtype=Sym("INT32")) == \
        TensorType((C(16), C(32)), DType.INT32)
    assert typed("tensor.gather", Var("x"), mask_pattern=C(3)) == TensorType((C(16), C(16)), DType.FP32)


def test_scatter_has_the_input_type_or_the_mask_destination_type():
    assert typed("tensor.scatter", Var("x"), C(-1), Var("i"), Var("x")) == ENV["x"]
    assert typed("tensor.scatter", Var("x"), mask_pattern=C(1), dst=Var("y")) == ENV["y"]


def test_tensor_cmp_is_element_wise():
    assert typed("tensor.cmp", Var("x"), Var("x"), cmp_type=C(2)) == ENV["x"]
    assert typed("tensor.cmp", Var("x"), C(0.0)) == ENV["x"]
    assert typed("tensor.cmp", Var("x"), Var("y")) is None   # no broadcasting rule modelled


def test_create_l1_is_a_tensor_and_gather_row_returns_its_accumulator():
    assert typed("tensor.create_l1", ListExpr((C(32), C(64))), Sym("BF16")) == ENV["l1"]
    assert typed("tensor.gather_row", Var("l1"), Var("pool"), ListExpr((C(0), C(0))), ListExpr((C(5), C(0))),
                 ListExpr((C(1), C(64)))) == ENV["l1"]


def test_an_operand_computed_inline_is_typed():
    inner = Call("tensor.cast", (Var("x"),), (("target_type", Sym("BF16")),))
    assert typed("tensor.cast", inner, target_type=Sym("FP16")) == TensorType((C(16), C(64)), DType.FP16)


@pytest.mark.parametrize("dtype, size", [("UINT8", 1), ("INT16", 2), ("UINT16", 2), ("UINT32", 4), ("UINT64", 8),
                                         ("FP8E4M3FN", 1), ("HF8", 1), ("TASK_ID", 8)])
def test_dtype_sizes_are_pyptos(dtype, size):
    assert DType[dtype].bytes == size


def test_an_integer_input_accumulates_in_int32():
    assert ops.acc_dtype(DType.UINT8) is DType.INT32 and ops.acc_dtype(DType.FP8E5M2) is DType.FP32
