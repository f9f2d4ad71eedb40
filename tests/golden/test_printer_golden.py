"""Printer golden tests: exact text for a few small inputs (`tests/golden/printer/<case>/input.py` →
`expected.py`; `--update-golden` rewrites). Each expected file is itself read back to the same IR."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_util import check_golden

from pypto_verify import ir
from pypto_verify.frontend import read_file, read_source
from pypto_verify.printer import print_expr, print_function, print_module, print_type

CASES = Path(__file__).parent / "printer"


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if (p / "input.py").is_file()))
def test_printer_golden(case, update_golden):
    result = read_file(CASES / case / "input.py")
    assert result.errors == (), [str(e) for e in result.errors]
    text = print_module(result.module)
    check_golden(CASES / case / "expected.py", text, update_golden)
    again = read_source(text, str(CASES / case / "expected.py"))
    assert again.errors == () and again.module.programs == result.module.programs


def test_print_expr_parenthesises_by_precedence():
    n, m = ir.Var("n"), ir.Var("m")
    assert print_expr(ir.BinOp("-", n, ir.BinOp("-", m, ir.Const(1)))) == "n - (m - 1)"
    assert print_expr(ir.BinOp("-", ir.BinOp("-", n, m), ir.Const(1))) == "n - m - 1"
    assert print_expr(ir.BinOp("*", ir.BinOp("+", n, m), ir.Const(2))) == "(n + m) * 2"
    assert print_expr(ir.BinOp("**", ir.BinOp("**", n, m), ir.Const(2))) == "(n ** m) ** 2"
    assert print_expr(ir.BinOp("**", ir.Const(-2), n)) == "(-2) ** n"
    assert print_expr(ir.UnaryOp("not", ir.BoolOp("and", (n, m)))) == "not (n and m)"
    assert print_expr(ir.BoolOp("and", (ir.BoolOp("and", (n, m)), n))) == "(n and m) and n"
    assert print_expr(ir.BinOp("min", n, ir.Const(4))) == "min(n, 4)"
    assert print_expr(ir.Const(0, ir.DType.INT64)) == "pl.const(0, pl.INT64)"
    assert print_expr(ir.Const(float("inf"))) == 'float("inf")'
    assert print_expr(ir.Const("a\"b")) == '"a\\"b"'


def test_print_type_and_memref():
    t = ir.TileType((ir.Const(16), ir.Const(64)), ir.DType.FP32, ir.MemSpace.Acc,
                    ir.MemRef("mem_acc_4", 0, 4096, slots=2, slot=1))
    assert print_type(t) == ("pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_4, pl.const(0, pl.INT64), 4096, slots=2)[1], "
                             "pl.Mem.Acc]")
    valid = ir.TileType((ir.Const(16), ir.Const(64)), ir.DType.FP32, ir.MemSpace.Vec, valid_shape=(ir.Const(8), ir.Var("n")))
    assert print_type(valid) == "pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, n])]"
    quoted = ir.TensorType((ir.Const(4),), ir.DType.BF16, ir.MemRef("mem_ddr_0", 0, 8, quoted=True))
    assert print_type(quoted) == 'pl.Tensor[[4], pl.BF16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8)]'
    assert print_type(ir.PtrType()) == "pl.Ptr" and print_type(ir.ScalarType(ir.DType.INDEX)) == "pl.Scalar[pl.INDEX]"


def test_print_function_is_one_decorated_def():
    fn = read_file(CASES / "form2_gemm" / "input.py").module.programs[0].functions[0]
    text = print_function(fn)
    assert text.startswith("@pl.function(type=pl.FunctionType.InCore)\ndef main(self, a: ")
    assert text.endswith("        return out\n") is False and text.endswith("    return out\n")


def test_valid_shape_round_trips_through_the_view():
    text = ("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
            "    def main(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
            "        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, n])] = "
            "pl.tile.load(x, [0, 0], [16, 64], [8, n], target_memory=pl.Mem.Vec)\n        return x\n")
    first = read_source(text, "v.py")
    assert first.errors == ()
    t = first.module.programs[0].functions[0].body[0].type
    assert t.view is None and t.valid_shape == (ir.Const(8), ir.Var("n"))
    assert read_source(print_module(first.module), "v.py").module.programs == first.module.programs
