"""Forms 2 and 3: explicit SSA, MemRefs, allocs and the compiler's own printed IR."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pypto_verify import ir, ops
from pypto_verify.frontend import is_lowered, kernels, read_file, read_source

REAL_IR = next((p for p in (Path(__file__).resolve().parents[2].parent / "shared" / "real-ir", Path("/work/shared/real-ir")) if p.is_dir()), Path("/work/shared/real-ir"))
FORM3 = Path(__file__).parents[1] / "fixtures" / "form3"

FORM2 = textwrap.dedent("""
    import pypto.language as pl

    @pl.program
    class Gemm:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[128, 512], pl.BF16], b: pl.Tensor[[512, 64], pl.BF16],
                 out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
            a_mat: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
            b_mat: pl.Tile[[512, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 64], target_memory=pl.Mem.Mat)
            c_init: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([128, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
            for ko, (c_iter,) in pl.pipeline(0, 512, 128, init_values=(c_init,), stage=2):
                sa: pl.Tile[[128, 128], pl.BF16, pl.Mem.Left] = pl.tile.extract(a_mat, 0, ko, [128, 128], target_memory=pl.Mem.Left)
                sb: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(b_mat, ko, 0, [128, 64], target_memory=pl.Mem.Right)
                c_new: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_iter, sa, sb, init_cond=(ko == 0))
                c: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new)
            out = pl.tile.store(c, [0, 0], out)
            return out
""")


def read_ok(text: str, path: str = "k.py") -> ir.Module:
    result = read_source(text, path)
    assert result.errors == (), [str(e) for e in result.errors]
    return result.module


def test_form2_explicit_ssa_loop():
    module = read_ok(FORM2)
    (program,) = module.programs
    assert program.name == "Gemm"
    fn = program.functions[0]
    assert fn.kind is ir.FunctionKind.INCORE and fn.has_self
    assert fn.return_types == (ir.TensorType((ir.Const(128), ir.Const(64)), ir.DType.FP32),)
    loop = fn.body[3]
    assert isinstance(loop, ir.For) and loop.kind is ir.LoopKind.PIPELINE and loop.stage == 2
    assert (loop.start, loop.stop, loop.step) == (ir.Const(0), ir.Const(512), ir.Const(128))
    assert loop.iter_args == (ir.IterArg("c_iter"),) and loop.inits == (ir.Var("c_init"),)
    assert loop.return_vars == (ir.Var("c"),)
    assert loop.return_types == (ir.TileType((ir.Const(128), ir.Const(64)), ir.DType.FP32, ir.MemSpace.Acc),)
    mad = loop.body[2].value
    parts = ops.matmul_parts(mad)
    assert parts.acc == ir.IterArg("c_iter") and parts.init_cond == ir.Compare("==", ir.Var("ko"), ir.Const(0))
    assert loop.body[-1] == ir.Yield((ir.Var("c_new"),))
    assert fn.body[4] == ir.Assign(ir.Var("out"), ir.Call("tile.store", (ir.Var("c"), ir.ListExpr(ops.consts(0, 0)),
                                                                        ir.Var("out"))))
    assert not is_lowered(fn)
    assert kernels(module) == [(program, fn)]


def test_form2_if_yields_become_phis():
    module = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], k: pl.Scalar[pl.INDEX],
                     out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
                ta: pl.Tile[[32, 64], pl.FP32, pl.Mem.Left] = pl.tile.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Left)
                tb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Right] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Right)
                c0: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                if k == 0:
                    f: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
                    ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(f)
                else:
                    x: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, ta, tb)
                    ph: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(x)
                out = pl.tile.store(ph, [0, 0], out)
                return out
    """))
    branch = module.programs[0].functions[0].body[3]
    assert isinstance(branch, ir.If)
    assert branch.return_vars == (ir.Var("ph"),)
    assert branch.then_body[-1] == ir.Yield((ir.Var("f"),)) and branch.else_body[-1] == ir.Yield((ir.Var("x"),))
    assert branch.return_types[0].space is ir.MemSpace.Acc


def test_else_arm_yielding_other_names_is_an_error():
    text = FORM2.replace("c: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new)\n",
                         "c: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(c_new)\n            pl.yield_(c)\n")
    result = read_source(text, "k.py")
    assert len(result.errors) == 1
    assert result.errors[0].message == "`pl.yield_`; it must be the last statement of a loop body or an `if` arm"


def test_multi_value_yield_and_untyped_return_vars():
    fn = read_file(REAL_IR / "two_accumulators" / "34_after_MemoryReuse.py").module.programs[0].functions[0]
    loop = [s for s in fn.body if isinstance(s, ir.For)][0]
    assert [a.name for a in loop.iter_args] == ["k_it", "v_it"]
    assert [v.name for v in loop.return_vars] == ["k_acc", "v_acc"]
    assert loop.return_types == (None, None)
    env = ir.type_env(fn)
    assert env["k_acc"].memref.window == ir.Window("mem_acc_5", 0, 4096)
    assert env["k_it"].memref.window == ir.Window("mem_acc_5", 0, 4096)


TWO_ACC = REAL_IR / "two_accumulators" / "32_after_InitMemRef.py"
K_ACC_ON_ITS_OWN = "pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_acc_6, pl.const(0, pl.INT64), 4096), pl.Mem.Acc]"
MULTI_YIELD = "            k_acc, v_acc = pl.yield_(k_new__ssa_v0_1, v_new__ssa_v0_1)\n"


def test_a_bare_annotation_above_a_multi_value_yield_declares_its_target():
    # the printed `a, b = pl.yield_(x, y)` gives a and b the yielded values' types; a return var on
    # another window (a dump before MemoryReuse's yield fixup) is declared on the line above
    text = TWO_ACC.read_text().replace(MULTI_YIELD, f"            k_acc: {K_ACC_ON_ITS_OWN}\n" + MULTI_YIELD)
    fn = kernels(read_ok(text))[0][1]
    loop = [s for s in fn.body if isinstance(s, ir.For)][0]
    assert loop.return_types[1] is None
    assert loop.return_types[0].memref.window == ir.Window("mem_acc_6", 0, 4096)
    env = ir.type_env(fn)
    assert env["k_acc"].memref.window == ir.Window("mem_acc_6", 0, 4096)
    assert env["v_acc"].memref.window == ir.Window("mem_acc_6", 0, 4096)   # its yield's, undeclared
    assert env["k_new__ssa_v0_1"].memref.window == ir.Window("mem_acc_5", 0, 4096)


def test_the_printer_declares_exactly_the_targets_a_multi_value_yield_would_lose():
    from pypto_verify.printer import print_module

    text = TWO_ACC.read_text().replace(MULTI_YIELD, f"            k_acc: {K_ACC_ON_ITS_OWN}\n" + MULTI_YIELD)
    module = read_ok(text)
    printed = print_module(module)
    assert f"            k_acc: {K_ACC_ON_ITS_OWN}\n" + MULTI_YIELD in printed
    assert "v_acc: pl.Tile" not in printed
    again = read_ok(printed)
    assert again.programs == module.programs and print_module(again) == printed
    # a declaration that agrees with the yielded value is not printed
    plain = read_ok(TWO_ACC.read_text())
    assert "k_acc: pl.Tile" not in print_module(plain)


def test_a_bare_annotation_of_a_name_the_yield_does_not_define_is_an_error():
    text = TWO_ACC.read_text().replace(MULTI_YIELD, f"            w_acc: {K_ACC_ON_ITS_OWN}\n" + MULTI_YIELD)
    result = read_source(text, "k.py")
    assert [str(e) for e in result.errors] == [
        f"k.py:41:13: PV000 input-error: declaration `w_acc: {K_ACC_ON_ITS_OWN}`; a bare annotation above a "
        "`pl.yield_` declares one of its tuple targets"]


def test_form3_memrefs_allocs_and_printed_details():
    module = read_file(REAL_IR / "auto_tiled" / "34_after_MemoryReuse.py").module
    (program, fn), = kernels(module)
    assert not fn.has_self and fn.kind is ir.FunctionKind.AIC
    assert fn.attrs == (("level", ir.Sym("Level.AIC")), ("role", ir.Sym("Role.SubWorker")))
    assert fn.params[0].type.memref == ir.MemRef("mem_ddr_0", 0, 131072, quoted=True)
    alloc = fn.body[0]
    assert alloc == ir.Assign(ir.Var("mem_mat_3"), ir.Call("tile.alloc", (ir.Sym("Mem.Mat"), ir.Const(131072))),
                              ir.PtrType())
    load = fn.body[7]
    assert load.type.memref == ir.MemRef("mem_mat_3", 0, 131072)
    assert len(load.value.args) == 4  # the valid-shape operand is kept
    loop = fn.body[10]
    assert loop.kind is ir.LoopKind.RANGE and loop.step == ir.Const(256)
    view_tile = loop.body[0].type
    assert view_tile.view == ir.Call("TileView", (), (("blayout", ir.Sym("TileLayout.row_major")),))
    assert is_lowered(fn)


def test_pl_const_and_one_positional_range():
    module = read_file(REAL_IR / "hand_peel" / "34_after_MemoryReuse.py").module
    fn = module.programs[0].functions[0]
    loop = [s for s in fn.body if isinstance(s, ir.For)][0]
    assert (loop.start, loop.stop, loop.step) == (ir.Const(0), ir.Const(4), ir.Const(1))
    text = (REAL_IR / "hand_peel" / "34_after_MemoryReuse.py").read_text().replace(
        "if kb__idx_v0 == 0:", "if pl.const(128, pl.INDEX) == pl.const(0, pl.INDEX):")
    branch = [s for s in read_ok(text).programs[0].functions[0].body if isinstance(s, ir.For)][0].body[2]
    assert branch.cond == ir.Compare("==", ir.Const(128, ir.DType.INDEX), ir.Const(0, ir.DType.INDEX))


def test_pipeline_with_one_positional_stage_and_init_values():
    module = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[[16, 512], pl.BF16], w: pl.Tensor[[512, 64], pl.BF16],
                     y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
                c0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)
                for kb, (c_it,) in pl.pipeline(4, stage=2, init_values=(c0,), name_hint="k", attrs={"pipeline_membership": "0:1"}):
                    xa = pl.tile.load(x, [0, kb * 128], [16, 128], target_memory=pl.Mem.Left)
                    wb = pl.tile.load(w, [kb * 128, 0], [128, 64], target_memory=pl.Mem.Right)
                    c_next = pl.tile.matmul_acc(c_it, xa, wb, kb == 0)
                    c = pl.yield_(c_next)
                y = pl.tile.store(c, [0, 0], y)
                return y
    """))
    loop = module.programs[0].functions[0].body[1]
    assert (loop.start, loop.stop, loop.step, loop.stage) == (ir.Const(0), ir.Const(4), ir.Const(1), 2)
    assert loop.kwargs == (("name_hint", ir.Const("k")), ("attrs", ir.DictExpr((("pipeline_membership", ir.Const("0:1")),))))
    env = ir.type_env(module.programs[0].functions[0])
    assert env["c_it"].space is ir.MemSpace.Acc


def test_memref_slots_and_selected_slot():
    fn = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 4096)]):
                mem_vec_1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
                t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_1, pl.const(0, pl.INT64), 4096, slots=2)[1], pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
                return x
    """)).programs[0].functions[0]
    memref = fn.body[1].type.memref
    assert memref == ir.MemRef("mem_vec_1", 0, 4096, slots=2, slot=1)
    assert memref.window == ir.Window("mem_vec_1", 4096, 4096)
    assert not fn.has_self and fn.kind is ir.FunctionKind.INCORE


def test_memref_on_something_that_is_not_an_alloc_is_an_error():
    result = read_source(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(x: pl.Tensor[[16, 64], pl.FP32]):
                t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_9, 0, 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
                return x
    """), "m.py")
    assert [str(e) for e in result.errors] == [
        "m.py:8:49: PV000 input-error: MemRef base `mem_vec_9`; it is not a `pl.tile.alloc` defined earlier in the function"]


def test_identity_copy_and_memory_space_spelling():
    fn = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.AIV)
            def main(x: pl.Tensor[[16, 64], pl.FP32]):
                t: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Vec)
                u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = t
                return x
    """)).programs[0].functions[0]
    assert fn.kind is ir.FunctionKind.AIV
    assert fn.body[0].value.kwarg("target_memory") == ir.Sym("Mem.Vec")
    assert fn.body[1] == ir.Assign(ir.Var("u"), ir.Var("t"), fn.body[0].type)


@pytest.mark.skipif(not REAL_IR.is_dir(), reason="needs /work/shared/real-ir")
@pytest.mark.parametrize("path", sorted(REAL_IR.glob("*/*.py")) if REAL_IR.is_dir() else [],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_real_compiler_dump_parses(path):
    result = read_file(path)
    assert result.errors == (), [str(e) for e in result.errors]
    assert kernels(result.module)
    if path.name.startswith(("32_", "34_", "35_")):
        assert all(is_lowered(fn) for _, fn in kernels(result.module))


def test_orchestration_in_real_dump_is_skipped():
    module = read_file(REAL_IR / "tensor_proj" / "34_after_MemoryReuse.py").module
    names = [fn.name for _, fn in module.functions()]
    assert names == ["proj_proj", "proj"]
    assert [fn.name for _, fn in kernels(module)] == ["proj_proj"]
    orchestration = module.programs[0].functions[1]
    assert orchestration.has_self and orchestration.body[0].value.op == "self.proj_proj"


@pytest.mark.parametrize("path", sorted(FORM3.glob("*.py")), ids=lambda p: p.stem)
def test_form3_fixture_parses_lowered(path):
    result = read_file(path)
    assert result.errors == () and result.warnings == ()
    found = kernels(result.module)
    assert found and all(is_lowered(fn) for _, fn in found)
    assert path.read_text().startswith("# Shape ")


def test_form3_fixtures_cover_shapes_a_to_f():
    assert sorted(p.name[6] for p in FORM3.glob("shape_*.py")) == ["a", "b", "c", "d", "e", "f"]


def test_shape_d_iter_args_are_iterarg_nodes_where_the_blind_spot_was():
    module = read_file(FORM3 / "shape_d_iterarg_blind_spot.py").module
    phi_arm, loop_init = module.programs[0].functions
    branch = [s for s in phi_arm.body if isinstance(s, ir.For)][0].body[2]
    assert isinstance(branch.else_body[-1].values[0], ir.IterArg)
    outer = [s for s in loop_init.body if isinstance(s, ir.For)][0]
    inner = [s for s in outer.body if isinstance(s, ir.For)][0]
    assert isinstance(inner.inits[0], ir.IterArg) and inner.inits[0].name == "acc_iter"
    env = ir.type_env(loop_init)
    assert env["c_inner"].memref.window == ir.Window("mem_acc_3", 0, 16384)  # an iter_arg has its init's type
    assert env["c_next"].memref.window == ir.Window("mem_acc_8", 0, 16384)
    assert env["acc_tile"].memref.window == ir.Window("mem_acc_8", 0, 16384)


def test_a_distributed_tensor_is_a_tensor_of_its_rank_slice():
    """`pld.DistributedTensor[[dims], dtype]` (pypto-lib's all-reduce and MoE dispatch kernels) is a
    `pl.Tensor` on the DSL surface; the printer's trailing `"window_buffer=..."` note is informational."""
    module = read_ok('''
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, data: pld.DistributedTensor[[1, 256], pl.FP32],
          sig: pld.DistributedTensor[[8, 8], pl.INT32, "window_buffer=sig_buf"],
          out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        t = pl.tile.load(data, [0, 0], [1, 256], target_memory=pl.Mem.Vec)
        out = pl.tile.store(t, [0, 0], out)
        return out
''')
    fn = next(fn for _, fn in module.functions())
    assert [p.type for p in fn.params] == [
        ir.TensorType((ir.Const(1), ir.Const(256)), ir.DType.FP32),
        ir.TensorType((ir.Const(8), ir.Const(8)), ir.DType.INT32),
        ir.TensorType((ir.Const(1), ir.Const(256)), ir.DType.FP32)]


SEEDED = textwrap.dedent("""
    import pypto.language as pl

    @pl.jit
    def seeded(a: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="seeded"):
            a_mat = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
            w_mat = pl.tile.load(w, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
            acc = pl.tile.matmul(pl.move(a_mat, target_memory=pl.MemorySpace.Left),
                                 pl.move(w_mat, target_memory=pl.MemorySpace.Right))
            for k0, (acc_iter,) in pl.range(64, 256, 64, init_values=(acc,)):
                ak = pl.tile.load(a, [0, k0], [16, 64], target_memory=pl.MemorySpace.Mat)
                wk = pl.tile.load(w, [k0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
                acc_next = pl.tile.matmul_acc(acc_iter, pl.move(ak, target_memory=pl.MemorySpace.Left),
                                              pl.move(wk, target_memory=pl.MemorySpace.Right))
                acc = pl.yield_(acc_next)
            out = pl.tile.store(acc, [0, 0], out)
        return out
""")


def test_a_yield_target_named_like_the_loop_init_is_the_loop_result_not_a_carry():
    fn = read_ok(SEEDED).programs[0].functions[0]
    loop = next(s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.For))
    assert [a.name for a in loop.iter_args] == ["acc_iter"]  # no second, implicit carry of `acc`
    (result,) = loop.return_vars
    store = next(s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.Assign) and isinstance(s.value, ir.Call)
                 and s.value.op == "tile.store")
    assert store.value.args[0] == result  # the store drains the loop's result, not the seed before it
