"""The PTO-AS parser: the AST it builds, the real compiler output it accepts, the errors it names."""

from __future__ import annotations

import pytest

from pypto_verify.sim import SimError, parse_pto
from pypto_verify.sim.parser import Op, PtrType, ScalarType, TileType, ViewType, walk
from sim_kernels import REAL_IR

SMALL = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%arg0: !pto.ptr<bf16>, %n: index) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
    %c0 = arith.constant 0 : index loc("k.py":3:4)
    %a0 = arith.constant 0 : i64
    %v = pto.make_tensor_view %arg0, shape = [%n, %n], strides = [%n, %c0] {layout = #pto.layout<nd>} : !pto.tensor_view<?x?xbf16>
    // a comment line
    %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%n, %n] : !pto.tensor_view<?x?xbf16> -> !pto.partition_tensor_view<16x32xbf16>
    %t = pto.alloc_tile addr = %a0 valid_row = %n : !pto.tile_buf<loc=mat, dtype=bf16, rows=16, cols=32, v_row=?, v_col=32, blayout=col_major, slayout=row_major, fractal=512, pad=0>
    scf.for %i = %c0 to %n step %n {
      %e = arith.cmpi eq, %i, %c0 : index
      scf.if %e {
        pto.tload ins(%p : !pto.partition_tensor_view<16x32xbf16>) outs(%t : !pto.tile_buf<loc=mat, dtype=bf16, rows=16, cols=32>) loc("k.py":9:1)
      } else {
        pto.tstore ins(%t : !pto.tile_buf<loc=mat, dtype=bf16, rows=16, cols=32>) outs(%p : !pto.partition_tensor_view<16x32xbf16>) {atomic = #pto.atomic<add>}
      }
    }
    return
  }
}
"""


def test_parse_builds_functions_args_and_ops() -> None:
    module = parse_pto(SMALL)
    assert module.target_arch == "a5"
    func = module.function("k")
    assert [(a.name, a.type) for a in func.args] == [("arg0", PtrType("bf16")),
                                                       ("n", ScalarType("index"))]
    names = [op.name for op in func.body]
    assert names == ["arith.constant", "arith.constant", "pto.make_tensor_view",
                     "pto.partition_view", "pto.alloc_tile", "scf.for"]
    constant = func.body[0]
    assert constant.results == ("c0",) and constant.attr("value") == 0 and constant.line == 3


def test_parse_reads_groups_types_and_attributes() -> None:
    body = parse_pto(SMALL).function("k").body
    view, part, alloc = body[2], body[3], body[4]
    assert view.operands == ("arg0",) and view.group("shape") == ("n", "n")
    assert view.attr("layout") == "#pto.layout<nd>"
    assert view.types == (ViewType((None, None), "bf16", False),)
    assert part.types[1] == ViewType((16, 32), "bf16", True)
    assert alloc.group("addr") == ("a0",) and alloc.group("valid_col") == ()
    tile_type = alloc.types[0]
    assert isinstance(tile_type, TileType)
    assert (tile_type.loc, tile_type.dtype, tile_type.rows, tile_type.cols, tile_type.v_col) == \
        ("mat", "bf16", 16, 32, 32)
    assert ("fractal", "512") in tile_type.extra


def test_parse_nests_regions_and_keeps_ins_outs_apart() -> None:
    loop = parse_pto(SMALL).function("k").body[5]
    assert loop.attr("iv") == "i" and loop.operands == ("c0", "n", "n")
    branch = loop.regions[0][1]
    assert branch.name == "scf.if" and len(branch.regions) == 2
    load, store = branch.regions[0][0], branch.regions[1][0]
    assert load.operands == ("p",) and load.group("outs") == ("t",) and load.line == 12
    assert store.attr("atomic") == "#pto.atomic<add>"
    assert [op.name for op in walk((loop,))][-2:] == ["pto.tload", "pto.tstore"]
    assert isinstance(store, Op)


def test_parse_accepts_a_module_with_several_functions() -> None:
    text = SMALL.replace("    return\n  }\n}", "    return\n  }\n  func.func @g() {\n    return\n  }\n}")
    assert [f.name for f in parse_pto(text).functions] == ["k", "g"]


@pytest.mark.parametrize("mutation, line, fragment", [
    (("pto.tload ins", "pto.tfoo ins"), 12, "unknown instruction pto.tfoo"),
    (("arith.cmpi eq", "arith.cmpi ult"), 10, "unknown cmpi predicate ult"),
    (("dtype=bf16, rows=16, cols=32, v_row", "dtype=q7, rows=16, cols=32, v_row"), 8,
     "unknown element type q7"),
    (("loc=mat, dtype=bf16, rows=16, cols=32, v_row", "loc=l2, dtype=bf16, rows=16, cols=32, v_row"),
     8, "unknown memory space"),
    (("strides = [%n, %c0]", "strides = [%n %c0]"), 5, "expected ']'"),
    (("%e = arith.cmpi", "arith.cmpi"), 10, "arith.cmpi needs a result"),
    (("} else {", "} else"), 14, "expected '{'"),
])
def test_parse_error_names_the_line(mutation: tuple[str, str], line: int, fragment: str) -> None:
    old, new = mutation
    assert old in SMALL
    with pytest.raises(SimError) as error:
        parse_pto(SMALL.replace(old, new, 1))
    assert error.value.line == line and error.value.rule == ""
    assert fragment in str(error.value) and str(error.value).startswith(f"line {line}: ")


def test_parse_error_at_end_of_input() -> None:
    with pytest.raises(SimError) as error:
        parse_pto(SMALL.rstrip().removesuffix("}"))
    assert "end of input" in str(error.value)


def _real_ir_files() -> list:
    if not REAL_IR.is_dir():
        return []
    return sorted(REAL_IR.glob("*/*.pto"))


@pytest.mark.skipif(not REAL_IR.is_dir(), reason="../shared/real-ir is not present")
@pytest.mark.parametrize("path", _real_ir_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_compiler_output_parses(path) -> None:
    module = parse_pto(path.read_text())
    assert module.target_arch == "a2a3"
    ops = [op.name for func in module.functions for op in walk(func.body)]
    assert "pto.tstore" in ops and ("pto.tmatmul.acc" in ops)


def test_parse_reads_integer_bool_and_float_constants() -> None:
    text = """module {
  func.func @f() {
    %n = arith.constant -128 : index
    %t = arith.constant true : i1
    %h = arith.constant 0x3FC00000 : f32
    %d = arith.constant 2.5e-1 : f32
    return
  }
}"""
    values = [op.attr("value") for op in parse_pto(text).function("f").body]
    assert values == [-128, True, 1.5, 0.25]
    assert parse_pto(text).target_arch is None


def test_parse_rejects_a_float_literal_for_an_integer_type() -> None:
    with pytest.raises(SimError, match="line 3: float literal for type index"):
        parse_pto("module {\n  func.func @f() {\n    %x = arith.constant 1.5 : index\n  }\n}")


def _texts_for_the_scanner() -> list[str]:
    texts = [SMALL, SMALL.replace("pto.tload ins", '// a comment line\n    pto.tload ins'),
             SMALL.replace("arith.cmpi eq", 'arith.cmpi eq loc("k.py":3:1)')]
    return texts + [path.read_text() for path in _real_ir_files()]


@pytest.mark.parametrize("index", range(len(_texts_for_the_scanner())))
def test_the_fast_scanner_gives_the_careful_scanners_tokens_and_lines(index: int) -> None:
    from pypto_verify.sim.parser import _tokenize_carefully, tokenize

    text = _texts_for_the_scanner()[index]
    assert tokenize(text) == _tokenize_carefully(text)


def test_the_fast_scanner_agrees_on_every_emitted_corpus_kernel() -> None:
    from pathlib import Path

    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.run.chain import emit_stage
    from pypto_verify.sim.parser import _tokenize_carefully, tokenize

    corpus = Path(__file__).resolve().parents[2] / "corpus"
    for path in sorted(corpus.glob("dense_*.py")) + sorted(corpus.glob("a8w8_*.py")):
        text, _ = emit_stage(run_work([str(path)], Options(), (Stage.READ, Stage.LOWER))[0], Options())
        tokens, lines = tokenize(text)
        assert (tokens, lines) == _tokenize_carefully(text), path.name
        assert len(tokens) > 100 and lines[-1] == text.count("\n") + 1


@pytest.mark.parametrize("bad, line", [("$", 12), ("\\", 12), ("!", 12), ("-", 12)])
def test_a_character_that_starts_no_token_is_an_error_at_its_line(bad: str, line: int) -> None:
    with pytest.raises(SimError) as error:
        parse_pto(SMALL.replace("pto.tload ins", f"pto.tload {bad} ins", 1))
    assert error.value.line == line and error.value.rule == ""
