"""The pipeline runner and the shapes every engine test covers, end to end up to the memory passes."""

import pytest

import lowering_builders as b

from pypto_verify.ir import FunctionKind, LoopKind, Module, Program, walk_stmts
from pypto_verify.lowering.pipeline import FIXED, LEGACY, lower

from test_auto_tile_matmul_l0 import _matmul
from test_convert_tensor_to_tile_ops import tensor_proj
from test_lower_pipeline_loops import k_loop


def _mads(fn):
    return [s.value for s in walk_stmts(fn.body) if isinstance(s, b.Assign) and isinstance(s.value, b.Call) and s.value.op.startswith("tile.matmul")]


def test_pass_lists_differ_only_by_the_literal_folding():
    names = [p.name for p in FIXED]
    assert names == ["simplify", "convert-tensor-to-tile-ops", "auto-tile-matmul-l0", "infer-tile-memory-space",
                     "lower-pipeline-loops", "simplify-literal-conditions", "init-memref",
                     "materialize-semantic-aliases", "memory-reuse", "allocate-memory-addr"]
    assert [p.name for p in LEGACY] == [n for n in names if n != "simplify-literal-conditions"]
    assert all(p.mirrors.startswith("PyPTO ") for p in FIXED)


def test_dumps_are_numbered_by_pass_and_verify_after_every_pass():
    result = b.lower_checked(tensor_proj(), "fixed", stop_after="simplify-literal-conditions")
    assert [name for name, _ in result.dumps] == [
        "00_frontend", "01_after_Simplify", "02_after_ConvertTensorToTileOps", "03_after_AutoTileMatmulL0",
        "04_after_InferTileMemorySpace", "05_after_LowerPipelineLoops", "06_after_SimplifyLiteralConditions"]
    assert result.errors == ()


def test_unknown_stop_after_is_rejected():
    with pytest.raises(ValueError):
        lower(tensor_proj(), b.options("legacy"), stop_after="simplify-literal-conditions")


def test_a_lowering_error_drops_only_its_kernel():
    bad = b.function(_matmul(256, 512, 256))                      # accumulator larger than L0C
    good = b.replace(b.function(_matmul(128, 512, 128)), name="good")
    glue = b.Function("glue", FunctionKind.ORCHESTRATION, (), (), (b.ret(),))
    module = Module("t.py", (Program("P", (bad, glue, good)),))
    result = lower(module, b.options(), stop_after="simplify-literal-conditions")
    assert [e.rule for e in result.errors] == ["PV008"]
    (program,) = result.module.programs
    assert [f.name for f in program.functions] == ["glue", "good"]
    assert program.functions[0] == glue


def test_form3_functions_pass_through_untouched():
    fn = b.function(b.kernel([], [b.assign("mem_acc_0", b.call("tile.alloc", b.mem(b.Acc), 16384), b.PtrType()),
                                  b.ret()]))
    module = Module("t.py", (Program("P", (fn,)),))
    assert lower(module, b.options()).module == module


def test_shape_e_biased_odd_block_split_is_single_buffer_in_fixed_mode():
    fn = b.function(b.lower_checked(_matmul(128, 384, 128, op="tile.matmul_bias", bias=True), "fixed",
                                    stop_after="simplify-literal-conditions").module)
    assert [m.op for m in _mads(fn)] == ["tile.matmul_bias", "tile.matmul_acc", "tile.matmul_acc"]
    assert not any(isinstance(s, b.If) for s in walk_stmts(fn.body))
    assert all(m.kwarg("init_cond") is None for m in _mads(fn))


def test_shape_e_biased_odd_block_split_leaves_a_divergent_literal_tail_in_legacy_mode():
    fn = b.function(b.lower_checked(_matmul(128, 384, 128, op="tile.matmul_bias", bias=True), "legacy",
                                    stop_after="lower-pipeline-loops").module)
    ifs = [s for s in walk_stmts(fn.body) if isinstance(s, b.If)]
    assert [b.render_expr(i.cond) for i in ifs] == ["c__l0_ko == 0", "(c__l0_ko + 128) == 0", "256 == 0"]


def test_shape_c_legacy_three_literal_clones_and_fixed_straight_chain():
    legacy = b.function(b.lower_checked(k_loop(0, 192, 64, 4), "legacy", stop_after="lower-pipeline-loops").module)
    assert not any(isinstance(s, b.For) for s in walk_stmts(legacy.body))
    assert [b.render_expr(s.cond) for s in walk_stmts(legacy.body) if isinstance(s, b.If)] == [
        "0 == 0", "64 == 0", "128 == 0"]
    fixed = b.function(b.lower_checked(k_loop(0, 192, 64, 4), "fixed",
                                       stop_after="simplify-literal-conditions").module)
    assert [m.op for m in _mads(fixed)] == ["tile.matmul", "tile.matmul_acc", "tile.matmul_acc"]


def test_shape_f_predicated_auto_tile_verifies_through_the_pipeline():
    fn = b.function(b.lower_checked(_matmul(128, 384, 128), "fixed", stop_after="simplify-literal-conditions").module)
    conds = [b.render_expr(m.kwarg("init_cond")) if m.kwarg("init_cond") is not None else None for m in _mads(fn)]
    assert conds == ["c__l0_ko == 0", "(c__l0_ko + 128) == 0", None]
    loops = [s for s in walk_stmts(fn.body) if isinstance(s, b.For)]
    assert [(l.kind, b.render_expr(l.start), b.render_expr(l.stop), b.render_expr(l.step)) for l in loops] == [
        (LoopKind.RANGE, "0", "256", "256")]


def test_legacy_is_fixed_without_literal_folding():
    assert LEGACY == tuple(p for p in FIXED if p.name != "simplify-literal-conditions")


def test_legacy_keeps_every_named_behaviour_and_fixed_none():
    from dataclasses import astuple

    from pypto_verify.lowering.pass_base import FIXED_BEHAVIOURS, LEGACY_BEHAVIOURS, LowerOptions

    assert not any(astuple(FIXED_BEHAVIOURS)) and all(astuple(LEGACY_BEHAVIOURS))
    assert LowerOptions(mode="fixed").behaviours is FIXED_BEHAVIOURS
    assert LowerOptions(mode="legacy").behaviours is LEGACY_BEHAVIOURS
