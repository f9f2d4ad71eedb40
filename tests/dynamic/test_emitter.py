"""The PTO emitter on IR built in Python: each test names a convention of emit/pto.py."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import builders as b
from pypto_verify.ir import Compare, Const, Var
from pypto_verify.emit import EmitError, emit, emit_function
from pypto_verify.sim import parse_pto


def _lines(text: str, needle: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if needle in line]


def _with_init_cond(init) -> b.Function:
    fn = b.gemm_predicated(True)
    loop = fn.body[3]
    body = list(loop.body)
    call = body[2].value
    body[2] = replace(body[2], value=call.with_kwarg("init_cond", init))
    return replace(fn, body=(*fn.body[:3], replace(loop, body=tuple(body)), *fn.body[4:]))


def test_emitted_text_parses_in_the_simulator_subset() -> None:
    for build in (b.gemm_predicated, b.transposed_rhs, b.int8_padded, b.drain_variants, b.vector_chain):
        parse_pto(emit(build(True)))


def test_runtime_init_cond_emits_scf_if_of_tmatmul_and_tmatmul_acc() -> None:
    text = emit(b.gemm_predicated(True))
    assert re.search(r"scf\.if %\w+ \{\n\s+pto\.tmatmul ins\(%sa, %sb .*\n\s+\} else \{\n\s+pto\.tmatmul\.acc "
                     r"ins\(%c_new, %sa, %sb", text)


@pytest.mark.parametrize("literal, instruction", [(True, "pto.tmatmul ins"), (False, "pto.tmatmul.acc ins")])
def test_literal_init_cond_emits_one_form(literal: bool, instruction: str) -> None:
    text = emit(_with_init_cond(Const(literal)))
    assert "scf.if" not in text
    assert len(_lines(text, instruction)) == 1


def test_foldable_literal_condition_counts_as_literal() -> None:
    text = emit(_with_init_cond(Compare("==", Const(128), Const(0))))
    assert "scf.if" not in text and _lines(text, "pto.tmatmul.acc ins")


def test_matmul_acc_binds_the_results_buffer_not_the_acc_operand() -> None:
    fn = b.gemm_predicated(True)
    loop = fn.body[3]
    body = list(loop.body)
    # The result on another Acc window than the iter_arg: the emitted MAD must use the result's.
    body[2] = replace(body[2], type=b.tile([64, 64], b.FP32, b.Acc, 16384))
    text = emit(replace(fn, body=(*fn.body[:3], replace(loop, body=tuple(body)), *fn.body[4:])))
    (acc_line,) = _lines(text, "pto.tmatmul.acc")
    assert acc_line.startswith("pto.tmatmul.acc ins(%c_new,") and "outs(%c_new :" in acc_line
    assert "%c_new = pto.alloc_tile addr = %c16384_i64" in text


def test_loop_return_var_is_the_init_buffer() -> None:
    text = emit(b.gemm_predicated(True))
    assert "pto.tstore ins(%c_init :" in text


def test_if_phi_gets_its_own_alloc_before_the_if() -> None:
    text = emit(b.post_if_read(True))
    lines = [line.strip() for line in text.splitlines()]
    phi = next(i for i, line in enumerate(lines) if line.startswith("%ph = pto.alloc_tile addr = %c2048_i64"))
    assert lines[phi + 2].startswith("scf.if") or lines[phi + 1].startswith("scf.if")
    assert "pto.tstore ins(%ph :" in text


@pytest.mark.parametrize("style", ["view", "flag"])
def test_transposed_operand_extracts_with_transpose(style: str) -> None:
    text = emit(b.transposed_rhs(True, style))
    (extract,) = [line for line in _lines(text, "pto.textract") if "loc=right" in line.split("outs(")[1]]
    assert extract.endswith("{transpose = true}")
    assert extract.startswith("pto.textract ins(%wm, %c0_index, %c0_index")
    assert "rows=128, cols=64" in extract.split("outs(")[1]


def test_int32_acc_rows_pad_to_32_on_a2a3_and_16_on_a5() -> None:
    a2 = emit(b.int8_padded(True), "a2a3")
    a5 = emit(b.int8_padded(True), "a5")
    assert "loc=acc, dtype=i32, rows=32, cols=32" in a2 and "valid_row = %c16_index" in _lines(a2, "loc=acc")[0]
    assert "loc=acc, dtype=i32, rows=16, cols=32" in a5
    assert 'pto.target_arch = "a5"' in a5


def test_store_narrows_and_atomic_add_is_an_attribute() -> None:
    text = emit(b.drain_variants(True))
    stores = _lines(text, "pto.tstore")
    assert stores[0].endswith("!pto.partition_tensor_view<16x32xbf16>)")
    assert stores[1].endswith("{atomic = #pto.atomic<add>}")


def test_two_tiles_on_one_window_share_an_address() -> None:
    text = emit(b.post_if_read(True, coalesced=True))
    addrs = {m.group(1): m.group(2) for m in re.finditer(r"%(\w+) = pto.alloc_tile addr = %(\w+) .*loc=acc", text)}
    assert addrs["acc"] == addrs["seed"] == addrs["prev"] == "c0_i64"


def test_vector_ops_of_the_subset_emit_their_instructions() -> None:
    text = emit(b.vector_chain(True))
    for op in ("pto.tadd ins", "pto.trelu ins", "pto.tmuls ins", "pto.texp ins", "pto.tadds ins", "pto.tcvt ins"):
        assert _lines(text, op), op
    assert _lines(text, "arith.constant 0.5 : f32")


def test_op_outside_the_subset_is_an_emit_error_naming_it() -> None:
    fn = b.vector_chain(True)
    body = list(fn.body)
    body[3] = replace(body[3], value=b.call("tile.mrgsort", "s"))
    with pytest.raises(EmitError, match="tile.mrgsort"):
        emit_function(replace(fn, body=tuple(body)))


def test_vector_op_on_an_acc_tile_is_an_emit_error() -> None:
    fn = b.drain_variants(True)
    body = list(fn.body)
    body[5] = b.assign("e", b.call("tile.exp", "c"), b.tile([16, 32], b.FP32, b.Vec, 0))
    with pytest.raises(EmitError, match="Acc tile"):
        emit_function(replace(fn, body=tuple(body)))


def test_unlowered_tile_is_an_emit_error() -> None:
    with pytest.raises(EmitError, match="MemRef"):
        emit_function(b.gemm_predicated(False))


def test_scalar_arithmetic_maps_to_arith() -> None:
    fn = b.function("k", [b.param("a", b.tensor([64, 64], b.FP32)), b.scalar_param("n")], [
        b.assign("q", b.BinOp("//", b.e("n"), b.e(16))),
        b.assign("r", b.BinOp("%", b.e("n"), b.e(16))),
        b.assign("s", b.BinOp("max", b.add("q", "r"), b.mul("q", 2))),
        b.assign("t", b.BinOp("-", b.e("s"), b.e(-3))),
        b.branch(b.BoolOp("and", (Compare("<", Var("t"), Const(5)), b.UnaryOp("not", Compare("!=", Var("q"), Const(0))))),
                 [b.ev(b.call("tile.alloc", b.sym("Mem.Acc"), 16))]),
    ])
    text = emit(fn)
    for op in ("arith.divsi", "arith.remsi", "arith.maxsi", "arith.addi", "arith.muli", "arith.subi",
               "arith.cmpi slt", "arith.cmpi ne", "arith.xori", "arith.andi", "%cn3_index = arith.constant -3"):
        assert op in text, op
    assert "%arg1: index" in text
    parse_pto(text)


def test_tensor_read_becomes_a_trailing_index_argument() -> None:
    fn = b.function("k", [b.param("lens", b.tensor([4], b.INT32)), b.param("a", b.tensor([64, 64], b.FP32))], [
        b.assign("n", b.call("tensor.read", "lens", [2])),
        b.assign("m", b.call("tensor.read", "lens", [3])),
        b.assign("z", b.add("n", "m")),
    ])
    emitted = emit_function(fn)
    assert [(a.name, a.kind, a.param) for a in emitted.args] == [
        ("arg0", "tensor", "lens"), ("arg1", "tensor", "a"), ("arg2", "read", "lens")]
    assert "%z = arith.addi %arg2, %arg2 : index" in emitted.text


def test_scalar_phi_of_arms_that_cannot_fault_is_a_select() -> None:
    fn = b.function("k", [b.scalar_param("n")], [
        b.branch(b.eq("n", 0), [b.yield_(1)], [b.yield_(2)], returns=["p"],
                 return_types=[b.ScalarType(b.INDEX)]),
    ])
    assert "%p = arith.select %0, %c1_index, %c2_index : index" in emit_function(fn).text


def test_scalar_phi_without_an_else_arm_is_an_emit_error() -> None:
    fn = b.function("k", [b.scalar_param("n")], [
        b.branch(b.eq("n", 0), [b.yield_(1)], [], returns=["p"], return_types=[b.ScalarType(b.INDEX)]),
    ])
    with pytest.raises(EmitError, match="scalar phi"):
        emit_function(fn)


def test_emission_is_deterministic_across_processes_and_hash_seeds() -> None:
    """Two processes with different `PYTHONHASHSEED`s (set and dict order of str keys differ) emit the same
    text, for IR built in Python and for a corpus kernel read and lowered."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    kernel = here.parents[1] / "corpus" / "attn_decode_gqa.py"
    probe = ("import sys; sys.path.insert(0, sys.argv[1])\n"
             "import builders as b\n"
             "from pypto_verify.emit import emit\n"
             "from pypto_verify.cli import main\n"
             "print(emit(b.post_if_read(True)) + emit(b.biased(True)))\n"
             "main(['emit', sys.argv[2]])\n")
    texts = []
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", probe, str(here), str(kernel)], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=300)
        assert done.returncode == 0, done.stderr
        texts.append(done.stdout)
    assert "pto." in texts[0] and texts[0] == texts[1]


def test_bias_load_is_staged_through_mat_then_moved() -> None:
    text = emit(b.biased(True))
    staging = _lines(text, "%bt_mat = pto.alloc_tile")
    assert staging and "loc=mat" in staging[0] and "%c12288_i64" in staging[0]  # after both Mat tiles
    assert _lines(text, "pto.tmov ins(%bt_mat") and _lines(text, "pto.tmatmul.bias ins(%xl, %wr, %bt")


def test_offsets_that_are_not_addresses_are_laid_out_per_base() -> None:
    text = emit(b.unaddressed(True))
    assert "%b_mat = pto.alloc_tile addr = %c65536_i64" in text  # after a_mat's 65536 bytes
    assert "%a_mat = pto.alloc_tile addr = %c0_i64" in text


def test_gm_scratch_tensor_becomes_a_workspace_argument() -> None:
    fn = b.function("k", [b.param("x", b.tensor([16, 32], b.FP32)), b.out("y", b.tensor([16, 32], b.FP32))], [
        b.assign("scratch", b.call("tensor.create", [16, 32], dtype=b.sym("FP32")), b.tensor([16, 32], b.FP32)),
        b.assign("t", b.call("tile.load", "x", [0, 0], [16, 32], target_memory=b.mem(b.Vec)), b.tile([16, 32], b.FP32, b.Vec, 0)),
        b.assign("scratch", b.call("tile.store", "t", [0, 0], "scratch")),
        b.assign("u", b.call("tile.load", "scratch", [0, 0], [16, 32], target_memory=b.mem(b.Vec)), b.tile([16, 32], b.FP32, b.Vec, 2048)),
        b.assign("y", b.call("tile.store", "u", [0, 0], "y")),
    ])
    emitted = emit_function(fn)
    assert [(a.kind, a.param, a.shape) for a in emitted.args][-1] == ("workspace", "scratch", (16, 32))
    assert "%scratch_view = pto.make_tensor_view %arg2" in emitted.text


def test_nested_unconverted_op_is_named_innermost() -> None:
    fn = b.vector_chain(True)
    body = list(fn.body)
    body[3] = replace(body[3], value=b.call("tile.add", b.call("tensor.neg", "s"), "s"))
    with pytest.raises(EmitError, match="`tensor.neg`"):
        emit_function(replace(fn, body=tuple(body)))


def test_neg_and_sub_by_a_constant_are_exact_scalar_forms() -> None:
    fn = b.vector_chain(True)
    body = list(fn.body)
    body[3] = replace(body[3], value=b.call("tile.neg", "s"))
    body[4] = replace(body[4], value=b.call("tile.sub", "r", 0.25))
    text = emit(replace(fn, body=tuple(body)))
    assert "arith.constant -1.0 : f32" in text and "arith.constant -0.25 : f32" in text
    assert len(_lines(text, "pto.tmuls ins(%s,")) == 1 and len(_lines(text, "pto.tadds ins(%r,")) == 1


def test_acc_to_vec_move_on_a2a3_is_a_gm_round_trip_and_a_tmov_on_a5() -> None:
    fn = b.drain_variants(True)
    body = list(fn.body)
    body[5:7] = [
        b.assign("v", b.call("tile.move", "c", target_memory=b.mem(b.Vec)), b.tile([16, 32], b.FP32, b.Vec, 0)),
        b.assign("ya", b.call("tile.store", "v", [0, 0], "ya")),
    ]
    moved = replace(fn, body=tuple(body))
    a2 = emit_function(moved, "a2a3")
    assert a2.args[-1].kind == "workspace" and a2.args[-1].shape == (16, 32)
    assert _lines(a2.text, "pto.tstore ins(%c :") and _lines(a2.text, "pto.tload ins(%v_gm_pview")
    assert "pto.tmov ins(%c" in emit_function(moved, "a5").text


def test_row_and_column_vector_ops_emit_their_instructions() -> None:
    text = emit(b.norm_chain(True))
    for op in ("pto.trowsum ins", "pto.trsqrt ins", "pto.trowexpandmul ins", "pto.tcolexpandadd ins",
               "pto.trowmax ins", "pto.tmaxs ins"):
        assert _lines(text, op), op
    (fill,) = _lines(text, "pto.texpands")
    assert fill.startswith("pto.texpands ins(%c3_i32 : i32) outs(%zi")
    assert _lines(text, "%c3_i32 = arith.constant 3 : i32")
    parse_pto(text)


def test_sub_of_a_runtime_f32_scalar_is_tsubs_and_of_a_constant_tadds() -> None:
    fn = b.vector_chain(True)
    body = list(fn.body)
    body[4] = replace(body[4], value=b.call("tile.sub", "r", 2.0))
    text = emit(replace(fn, body=tuple(body)))
    assert _lines(text, "pto.tadds ins(%r, %cst_f32")
    assert _lines(text, "arith.constant -2.0 : f32")


def test_infinite_fill_is_spelled_as_its_bit_pattern() -> None:
    fn = b.norm_chain(True)
    body = list(fn.body)
    body[13] = replace(body[13], value=b.call("tile.full", [8, 64], dtype=b.sym("FP32"), value=float("-inf")),
                       type=b.tile([8, 64], b.FP32, b.Vec, 0))
    fn = replace(fn, body=tuple(body), params=(*fn.params[:4], b.out("z", b.tensor([8, 64], b.FP32))))
    text = emit(fn)
    assert _lines(text, "arith.constant 0xFF800000 : f32")
    parse_pto(text)


def test_slice_of_a_vec_value_is_a_window_of_its_sources_bytes() -> None:
    fn = b.norm_chain(True)
    body = list(fn.body)
    body[13] = b.assign("zs", b.call("tile.slice", "tx", [4, 32], [2, 16]), b.tile([4, 32], b.FP32, b.Vec, 0))
    body[14] = b.assign("z", b.call("tile.store", "zs", [0, 0], "z"))
    fn = replace(fn, body=tuple(body), params=(*fn.params[:4], b.out("z", b.tensor([4, 32], b.FP32))))
    text = emit(fn)
    assert not _lines(text, "pto.textract")
    allocs = {line.split(" = ")[0]: line for line in _lines(text, "%tx = pto.alloc_tile") + _lines(text, "%zs = pto.alloc_tile")}
    addr = {name: int(line.split("addr = %c")[1].split("_")[0]) for name, line in allocs.items()}
    assert addr["%zs"] == addr["%tx"] + (2 * 64 + 16) * 4, allocs  # row 2, column 16 at the row pitch of 64
    assert "rows=4, cols=64" in allocs["%zs"] and "valid_col = %c32_index" in allocs["%zs"], allocs["%zs"]
    parse_pto(text)
