"""Form 1 (tensor level): rebinding → SSA, constants, slices, helpers, op names (docs/ir-conventions.md)."""

from __future__ import annotations

import textwrap

import pytest

from pypto_verify import ir, ops
from pypto_verify.frontend import kernels, read_source

HEADER = "import pypto.language as pl\n\nM, N, K = 128, 256, 1024\nTM, TN, TK = 16, 256, 256\n\n"

PROJ = HEADER + textwrap.dedent("""
    @pl.jit
    def proj(x: pl.Tensor[[M, K], pl.BF16],
             w: pl.Tensor[[N, K], pl.BF16],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        for mb in pl.parallel(0, M, TM):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
                acc = pl.create_tensor([TM, TN], dtype=pl.FP32)
                for kb in pl.pipeline(K // TK, stage=2):
                    k0 = kb * TK
                    xa = x[mb : mb + TM, k0 : k0 + TK]
                    wb = w[0 : TN, k0 : k0 + TK]
                    if k0 == 0:
                        acc = pl.matmul(xa, wb, b_trans=True, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, xa, wb, b_trans=True)
                y[mb : mb + TM, 0 : TN] = acc
        return y
""")


def read_ok(text: str) -> ir.Module:
    result = read_source(text, "kernel.py")
    assert result.errors == (), [str(e) for e in result.errors]
    return result.module


def only_function(module: ir.Module) -> ir.Function:
    functions = [fn for _, fn in module.functions()]
    assert len(functions) == 1
    return functions[0]


def find(body: tuple[ir.Stmt, ...], kind: type) -> list:
    return [s for s in ir.walk_stmts(body) if isinstance(s, kind)]


def test_spec_example_becomes_ssa_with_iter_arg_and_phi():
    fn = only_function(read_ok(PROJ))
    assert fn.kind is ir.FunctionKind.OPAQUE and fn.decorator == "jit" and not fn.has_self
    k_loop = [f for f in find(fn.body, ir.For) if f.kind is ir.LoopKind.PIPELINE][0]
    assert (k_loop.start, k_loop.stop, k_loop.step, k_loop.stage) == (ir.Const(0), ir.Const(4), ir.Const(1), 2)
    assert k_loop.iter_args == (ir.IterArg("acc__iter_v1"),)
    assert k_loop.inits == (ir.Var("acc"),)
    branch = find(k_loop.body, ir.If)[0]
    assert branch.return_vars == (ir.Var("acc__phi_v4"),)
    then_mm, else_mm = branch.then_body[0], branch.else_body[0]
    assert then_mm.target == ir.Var("acc__ssa_v2") and then_mm.value.op == "tensor.matmul"
    assert else_mm.value.op == "tensor.matmul_acc"
    assert else_mm.value.args[0] == ir.IterArg("acc__iter_v1")
    assert isinstance(else_mm.value.args[0], ir.IterArg)
    assert branch.then_body[-1] == ir.Yield((ir.Var("acc__ssa_v2"),))
    assert branch.else_body[-1] == ir.Yield((ir.Var("acc__ssa_v3"),))
    assert k_loop.body[-1] == ir.Yield((ir.Var("acc__phi_v4"),))
    assert k_loop.return_vars == (ir.Var("acc__rv_v5"),) and k_loop.return_types == (None,)


def test_slices_become_tensor_slice_with_constant_shape_and_symbolic_offsets():
    fn = only_function(read_ok(PROJ))
    slices = {s.target.name: s.value for s in find(fn.body, ir.Assign) if s.value.op == "tensor.slice"}
    xa = slices["xa"]
    assert xa.args[1] == ir.ListExpr((ir.Const(16), ir.Const(256)))
    assert xa.args[2] == ir.ListExpr((ir.Var("mb"), ir.Var("k0")))


def test_a_bare_colon_slice_of_a_computed_local_takes_its_static_extent():
    """a8w8_qk_rope: `qf = pl.mul(pl.cast(acc, ...), s)` has a known shape, so `qf[:, 64:]` is a
    constant-shape slice, not one sized by `tensor.dim(qf, 0)`."""
    source = HEADER + textwrap.dedent("""
        @pl.jit
        def rope(x: pl.Tensor[[TM, TK], pl.BF16],
                 w: pl.Tensor[[TK, 128], pl.BF16],
                 y: pl.Out[pl.Tensor[[TM, 64], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="rope"):
                acc = pl.matmul(x, w, out_dtype=pl.FP32)
                qf = pl.mul(pl.cast(acc, target_type=pl.FP32), 0.5)
                lo = qf[:, 0:64]
                hi = qf[:, 64:]
                y[:, :] = pl.add(lo, hi)
            return y
    """)
    fn = only_function(read_ok(source))
    slices = {s.target.name: s.value for s in find(fn.body, ir.Assign) if s.value.op == "tensor.slice"}
    assert slices["lo"].args[1] == ir.ListExpr((ir.Const(16), ir.Const(64)))
    assert slices["hi"].args[1] == ir.ListExpr((ir.Const(16), ir.Const(64)))
    assert slices["hi"].args[2] == ir.ListExpr((ir.Const(0), ir.Const(64)))
    assert not any(isinstance(e, ir.Call) and e.op == "tensor.dim"
                   for s in find(fn.body, ir.Assign) for e in ir.walk_exprs(s.value))


def test_store_into_output_keeps_tensor_name():
    fn = only_function(read_ok(PROJ))
    stores = [s for s in find(fn.body, ir.Assign) if s.value.op == "tensor.assemble"]
    assert len(stores) == 1
    store = stores[0]
    assert store.target == ir.Var("y")
    assert store.value.args == (ir.Var("y"), ir.Var("acc__rv_v5"), ir.ListExpr((ir.Var("mb"), ir.Const(0))))
    assert fn.body[-1] == ir.Return((ir.Var("y"),))


def test_module_constants_fold_into_types():
    fn = only_function(read_ok(PROJ))
    assert fn.params[0].type == ir.TensorType((ir.Const(128), ir.Const(1024)), ir.DType.BF16)
    assert fn.params[2].direction is ir.Direction.OUT


def test_matmul_inline_slice_operand_is_hoisted():
    module = read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.BF16], w: pl.Tensor[[K, TN], pl.BF16], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
                y[:, :] = acc
            return y
    """))
    body = only_function(module).body[0].body
    assert [s.target.name for s in body[:3]] == ["x__slice_v1", "w__slice_v1", "acc"]
    assert body[0].value == ir.Call("tensor.slice", (ir.Var("x"), ir.ListExpr((ir.Const(16), ir.Const(256))),
                                                      ir.ListExpr((ir.Const(0), ir.Const(0)))))
    assert body[2].value.args[:2] == (ir.Var("x__slice_v1"), ir.Var("w__slice_v1"))
    assert ir.display_name("x__slice_v1") == "x"


def test_names_assigned_in_both_arms_become_phis_and_elif_nests():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            if n == 0:
                t = pl.exp(x)
            elif n == 1:
                t = pl.add(x, x)
            else:
                t = x
            y[:, :] = t
            return y
    """)))
    outer = fn.body[0]
    assert isinstance(outer, ir.If) and len(outer.else_body) == 2
    inner = outer.else_body[0]
    assert isinstance(inner, ir.If)
    assert inner.then_body[-1] == ir.Yield((ir.Var("t__ssa_v1"),))
    assert inner.else_body == (ir.Assign(ir.Var("t__ssa_v2"), ir.Var("x")), ir.Yield((ir.Var("t__ssa_v2"),)))
    assert outer.else_body[-1] == ir.Yield(inner.return_vars)
    assert outer.return_vars[0].name.startswith("t__phi_v")


def test_if_without_else_phis_with_the_old_version():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            t = pl.exp(x)
            if n > 2:
                t = pl.add(t, x)
            y[:, :] = t
            return y
    """)))
    branch = fn.body[1]
    assert branch.else_body == (ir.Yield((ir.Var("t"),)),)
    assert branch.then_body[-1] == ir.Yield((ir.Var("t__ssa_v1"),))
    assert fn.body[2].value.args[1] == branch.return_vars[0]


def test_tensor_names_updated_in_loops_are_not_carried():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.FP32], y: pl.Out[pl.Tensor[[TM, K], pl.FP32]]):
            buf = pl.create_tensor([TM, K], dtype=pl.FP32)
            for kb in pl.range(K // TK):
                buf = pl.assemble(buf, pl.exp(x[:, kb * TK : kb * TK + TK]), [0, kb * TK])
                y[:, kb * TK : kb * TK + TK] = buf[:, kb * TK : kb * TK + TK]
            return y
    """)))
    loop = fn.body[1]
    assert loop.iter_args == () and loop.return_vars == ()
    assigns = [s.target.name for s in find(loop.body, ir.Assign)]
    assert "buf" in assigns and "y" in assigns


def test_loop_variable_reuse_gets_a_fresh_name():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            for i in pl.range(4):
                y[:, :] = x
            for i in pl.unroll(2):
                y[:, :] = x
            return y
    """)))
    assert [s.loop_var.name for s in fn.body[:2]] == ["i", "i__ssa_v1"]
    assert fn.body[1].kind is ir.LoopKind.UNROLL


def test_peeled_seed_then_loop_from_one_carries_accumulator():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.BF16], w: pl.Tensor[[K, TN], pl.BF16], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
                for kb in pl.pipeline(1, K // TK, stage=2):
                    acc = pl.matmul_acc(acc, x[:, kb * TK : kb * TK + TK], w[kb * TK : kb * TK + TK, :])
                y[:, :] = acc
            return y
    """)))
    loop = find(fn.body, ir.For)[0]
    assert loop.start == ir.Const(1) and loop.inits == (ir.Var("acc"),)
    mad = [s for s in loop.body if isinstance(s, ir.Assign) and s.value.op == "tensor.matmul_acc"][0]
    assert mad.value.args[0] == loop.iter_args[0]
    assert loop.body[-1] == ir.Yield((mad.target,))


def test_two_accumulators_in_one_if():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.BF16], wk: pl.Tensor[[K, TN], pl.BF16], wv: pl.Tensor[[K, TN], pl.BF16],
              ko: pl.Out[pl.Tensor[[TM, TN], pl.FP32]], vo: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                k_acc = pl.create_tensor([TM, TN], dtype=pl.FP32)
                v_acc = pl.create_tensor([TM, TN], dtype=pl.FP32)
                for kb in pl.range(K // TK):
                    xa = x[:, kb * TK : kb * TK + TK]
                    if kb == 0:
                        k_acc = pl.matmul(xa, wk[kb * TK : kb * TK + TK, :], out_dtype=pl.FP32)
                        v_acc = pl.matmul(xa, wv[kb * TK : kb * TK + TK, :], out_dtype=pl.FP32)
                    else:
                        k_acc = pl.matmul_acc(k_acc, xa, wk[kb * TK : kb * TK + TK, :])
                        v_acc = pl.matmul_acc(v_acc, xa, wv[kb * TK : kb * TK + TK, :])
                ko[:, :] = k_acc
                vo[:, :] = v_acc
            return ko, vo
    """)))
    loop = find(fn.body, ir.For)[0]
    assert loop.iter_args == (ir.IterArg("k_acc__iter_v1"), ir.IterArg("v_acc__iter_v1"))
    branch = find(loop.body, ir.If)[0]
    assert [v.name for v in branch.return_vars] == ["k_acc__phi_v4", "v_acc__phi_v4"]
    assert loop.body[-1] == ir.Yield(branch.return_vars)
    assert [v.name for v in loop.return_vars] == ["k_acc__rv_v5", "v_acc__rv_v5"]
    assert fn.body[-1] == ir.Return((ir.Var("ko"), ir.Var("vo")))


def test_value_defined_only_in_the_loop_is_reported_at_its_read():
    result = read_source(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.BF16], w: pl.Tensor[[K, TN], pl.BF16], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            for kb in pl.range(K // TK):
                if kb == 0:
                    part = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
                else:
                    part = pl.matmul(x[:, kb * TK : kb * TK + TK], w[kb * TK : kb * TK + TK, :], out_dtype=pl.FP32)
            y[:, :] = part
            return y
    """), "k.py")
    assert [str(e) for e in result.errors] == [
        "k.py:14:15: PV000 input-error: read of `part`; it is defined only inside the loop at line 9"]


def test_accumulator_read_before_its_first_assignment_is_reported():
    result = read_source(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.BF16], w: pl.Tensor[[K, TN], pl.BF16], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            for kb in pl.range(K // TK):
                if kb == 0:
                    acc = pl.matmul(x[:, 0:TK], w[0:TK, :], out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, x[:, kb * TK : kb * TK + TK], w[kb * TK : kb * TK + TK, :])
            y[:, :] = acc
            return y
    """), "k.py")
    assert [str(e) for e in result.errors] == [
        "k.py:13:33: PV000 input-error: read of `acc`; no assignment reaches it here (a value a loop carries, "
        "or an `if` arm reads, is defined before the loop or the `if`)"]


def test_helpers_without_decorator_are_inlined():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        def scaled(t, factor=2.0):
            u = pl.mul(t, factor)
            return pl.add(u, t)


        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            u = pl.exp(x)
            v = scaled(u)
            y[:, :] = v
            return y
    """)))
    names = [s.target.name for s in fn.body if isinstance(s, ir.Assign)]
    assert names[:3] == ["u", "u__ssa_v1", "v"]
    assert fn.body[1].value == ir.Call("tensor.mul", (ir.Var("u"), ir.Const(2.0)))
    assert fn.body[2].value == ir.Call("tensor.add", (ir.Var("u__ssa_v1"), ir.Var("u")))


def test_recursive_helper_is_an_input_error():
    result = read_source(HEADER + textwrap.dedent("""
        def again(t):
            return again(t)


        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            y[:, :] = again(x)
            return y
    """), "k.py")
    assert len(result.errors) == 1
    assert "helper `again`; it is recursive" in str(result.errors[0])


def test_static_helper_with_constant_arguments_is_evaluated():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        def ceil_div(a, b):
            return (a + b - 1) // b


        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            for i in pl.range(ceil_div(TN, 100)):
                y[:, :] = x
            return y
    """)))
    assert fn.body[0].stop == ir.Const(3)


def test_float_and_min_max_constants():
    fn = only_function(read_ok(textwrap.dedent("""
        import pypto.language as pl
        HEAD_DIM = 128
        SCALE = 1.0 / (HEAD_DIM ** 0.5)
        TILE = min(64, HEAD_DIM) + max(1, 2) - 2

        @pl.jit
        def k(x: pl.Tensor[[16, HEAD_DIM], pl.FP32], y: pl.Out[pl.Tensor[[16, HEAD_DIM], pl.FP32]]):
            y[:, 0:TILE] = pl.mul(x[:, 0:TILE], SCALE)
            return y
    """)))
    mul = [s for s in fn.body if isinstance(s, ir.Assign) and s.value.op == "tensor.mul"]
    assert not mul
    store = fn.body[-2]
    assert store.value.args[1].args[1] == ir.Const(1.0 / (128 ** 0.5))
    assert fn.body[0].value.args[1] == ir.ListExpr((ir.Const(16), ir.Const(64)))


def test_runtime_scalars_are_symbolic_with_a_warning():
    result = read_source(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, K], pl.FP32], lens: pl.Tensor[[4], pl.INT32], y: pl.Out[pl.Tensor[[TM, K], pl.FP32]]):
            n = pl.read(lens, [0])
            blocks = (n + TK - 1) // TK
            for kb in pl.range(blocks):
                y[:, kb * TK : kb * TK + TK] = x[:, kb * TK : kb * TK + TK]
            return y
    """), "k.py")
    assert result.errors == ()
    fn = only_function(result.module)
    assert fn.body[0].value == ir.Call("tensor.read", (ir.Var("lens"), ir.ListExpr((ir.Const(0),))))
    assert fn.body[2].stop == ir.Var("blocks")


def test_comparisons_of_literals_are_not_folded():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            if TK == 0:
                y[:, :] = x
            return y
    """)))
    assert fn.body[0].cond == ir.Compare("==", ir.Const(256), ir.Const(0))


def test_code_outside_kernels_is_ignored():
    module = read_ok(HEADER + textwrap.dedent("""
        import argparse
        import torch

        def golden(t):
            t["y"][:] = torch.exp(t["x"])

        def build_tensor_specs():
            while True:
                pass

        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            y[:, :] = pl.exp(x)
            return y

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.parse_args()
    """))
    assert [fn.name for _, fn in module.functions()] == ["k"]


def test_unknown_op_is_opaque_with_a_warning():
    result = read_source(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            y[:, :] = pl.frobnicate(x, level=3)
            return y
    """), "k.py")
    assert result.errors == ()
    assert [w.message for w in result.warnings] == ["unknown op `pl.frobnicate`; read as an opaque op"]
    call = only_function(result.module).body[0].value.args[1]
    assert call == ir.Call("tensor.frobnicate", (ir.Var("x"),), (("level", ir.Const(3)),))


def test_kernels_and_orchestration():
    module = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def tile_kernel(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
                t = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
                out = pl.tile.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def glue(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
                out = self.tile_kernel(a, out)
                return out
    """))
    assert [fn.name for _, fn in kernels(module)] == ["tile_kernel"]
    glue = module.programs[0].functions[1]
    assert glue.kind is ir.FunctionKind.ORCHESTRATION and glue.has_self
    assert glue.body[0].value.op == "self.tile_kernel"
    # a kernel called with `out` and rebinding `out` updates that tensor: the name is kept
    assert glue.body[0].target == ir.Var("out")
    assert glue.body[1] == ir.Return((ir.Var("out"),))


def test_unified_names_in_a_tile_function_are_tile_ops():
    module = read_ok(textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16],
                     out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
                ta = pl.load(a, [0, 0], [16, 64], target_memory=pl.MemorySpace.Left)
                tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.MemorySpace.Right)
                c = pl.matmul(ta, tb)
                out = pl.store(c, [0, 0], out)
                return out
    """))
    fn = module.programs[0].functions[0]
    assert fn.kind is ir.FunctionKind.INCORE
    assert [s.value.op for s in fn.body[:4]] == ["tile.load", "tile.load", "tile.matmul", "tile.store"]
    assert fn.body[0].value.kwarg("target_memory") == ir.Sym("Mem.Left")


@pytest.mark.parametrize("spelling", ["import pypto.language as pl", "from pypto import language as pl"])
def test_pl_alias_spellings(spelling):
    module = read_ok(spelling + "\n\n@pl.jit\ndef k(x: pl.Tensor[[4, 4], pl.FP32]):\n    return x\n")
    assert only_function(module).params[0].type.dtype is ir.DType.FP32


def test_with_spmd_as_is_a_loop_and_pl_at_as_binds_a_task_id():
    fn = only_function(read_ok(HEADER + textwrap.dedent("""
        @pl.jit
        def k(x: pl.Tensor[[TM, TN], pl.FP32], y: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]):
            with pl.spmd(4, name_hint="blocks") as tid:
                y[:, :] = x
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as done:
                y[:, :] = pl.exp(y)
            return y
    """)))
    loop, scope = fn.body[0], fn.body[1]
    assert isinstance(loop, ir.For) and loop.kind is ir.LoopKind.SPMD and loop.loop_var == ir.Var("tid")
    assert loop.kwargs == (("name_hint", ir.Const("blocks")),)
    assert isinstance(scope, ir.Scope) and scope.call.op == "at"
    assert scope.call.kwarg("deps") == ir.ListExpr((ir.Var("tid"),))
    assert scope.body[0] == ir.Assign(ir.Var("done"), ir.Call("scope.task_id"))


def test_an_index_gather_has_the_index_shape_and_the_input_dtype() -> None:
    # PyPTO's index form: out[b, k] = input[b, index[b, k]] (a codebook lookup widens [32, 16] to [32, 64])
    text = (
        "import pypto.language as pl\n\n\n"
        "@pl.jit\n"
        "def lookup(book: pl.Tensor[[32, 16], pl.FP32], idx: pl.Tensor[[32, 64], pl.INT32],\n"
        "           y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"lookup\"):\n"
        "        g = pl.gather(book, dim=-1, index=idx)\n"
        "        y[:, :] = g\n"
        "    return y\n")
    from pypto_verify import ir as _ir
    from pypto_verify.frontend import read_source as _read
    from pypto_verify.lowering._pass_util import infer_env

    parsed = _read(text, "lookup.py")
    assert not parsed.errors
    (_, fn), = [(p, f) for p in parsed.module.programs for f in p.functions]
    assert infer_env(fn)["g"] == _ir.TensorType((_ir.Const(32), _ir.Const(64)), _ir.DType.FP32)


def test_an_untyped_data_operand_leaves_the_result_untyped():
    """`row_expand_mul(centroids, inv_norm)` where `centroids` derives from a parameter of a type
    pypto-verify does not model (as `pl.UINT8` once was in pypto-lib's `qwen3_14b/turboquant_kv.py`): the result is not given the
    shape of the typed column operand `inv_norm` ([32, 1]), which once made a [32, 64] @ [64, 128] matmul a
    one-column one and PV105 refuted it. The shape stays unknown, so the matmul is a PV000 input error."""
    env = {"inv_norm": ir.TensorType((ir.Const(32), ir.Const(1)), ir.DType.FP32)}
    untyped_first = ir.Call("tensor.row_expand_mul", (ir.Var("centroids"), ir.Var("inv_norm")))
    assert ops.infer_call_type(untyped_first, env) is None
    constant_first = ir.Call("tensor.mul", (ir.Const(2.0), ir.Var("inv_norm")))
    assert ops.infer_call_type(constant_first, env) == env["inv_norm"]


@pytest.mark.parametrize("op", ["tile.cmp", "tensor.aiv_shard", "tile.split"])
def test_an_op_that_changes_shape_is_not_typed_like_its_first_operand(op):
    """PyPTO's compare gives a packed mask, row_argmax an index column, sort32 value-index pairs of twice the
    width, ...: without a rule of their own their result type is unknown, not a copy of the operand's."""
    env = {"x": ir.TensorType((ir.Const(16), ir.Const(64)), ir.DType.FP32)}
    assert ops.infer_call_type(ir.Call(op, (ir.Var("x"), ir.Var("x"))), env) is None


def test_transpose_and_concat_have_their_own_shapes():
    env = {"x": ir.TensorType((ir.Const(16), ir.Const(64)), ir.DType.BF16),
           "y": ir.TensorType((ir.Const(16), ir.Const(32)), ir.DType.BF16)}
    transposed = ops.infer_call_type(ir.Call("tensor.transpose", (ir.Var("x"), ir.Const(0), ir.Const(-1))), env)
    assert transposed == ir.TensorType((ir.Const(64), ir.Const(16)), ir.DType.BF16)
    joined = ops.infer_call_type(ir.Call("tensor.concat", (ir.Var("x"), ir.Var("y"))), env)
    assert joined == ir.TensorType((ir.Const(16), ir.Const(96)), ir.DType.BF16)
