"""Form 1 in the wild (KERNEL_LANGUAGE.md): one seed kernel per construct, each read cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify import ir
from pypto_verify.frontend import kernels, read_file

WILD = Path(__file__).parent / "wild"
KERNEL_FILES = sorted(p for p in WILD.rglob("w*.py"))


def calls(fn: ir.Function) -> list[ir.Call]:
    out = []
    for stmt in ir.walk_stmts(fn.body):
        for expr in ir.stmt_exprs(stmt):
            out.extend(e for e in ir.walk_exprs(expr) if isinstance(e, ir.Call))
    return out


def kernel(name: str, function: str | None = None) -> ir.Function:
    result = read_file(WILD / name)
    assert result.errors == (), [str(e) for e in result.errors]
    found = {fn.name: fn for _, fn in result.module.functions()}
    return found[function] if function else next(iter(found.values()))


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: p.stem)
def test_wild_kernel_reads_cleanly_with_a_matmul_site(path):
    result = read_file(path)
    assert result.errors == (), [str(e) for e in result.errors]
    ops = {c.op for _, fn in kernels(result.module) for c in calls(fn)}
    assert ops & {"tensor.matmul", "tensor.matmul_acc"}


def test_program_methods_of_every_function_type():
    module = read_file(WILD / "w01_program_methods.py").module
    kinds = {fn.name: fn.kind for _, fn in module.functions()}
    assert kinds == {"scale": ir.FunctionKind.INCORE, "project": ir.FunctionKind.OPAQUE,
                     "run": ir.FunctionKind.ORCHESTRATION}
    assert [fn.name for _, fn in kernels(module)] == ["scale", "project"]
    run = [fn for _, fn in module.functions() if fn.name == "run"][0]
    assert [c.op for c in calls(run) if c.op.startswith("self.")] == ["self.scale", "self.project"]


def test_jit_inline_kernel_called_from_another_kernel_is_an_opaque_call():
    fn = kernel("w02_several_jit_kernels.py", "proj_twice")
    assert [c.op for c in calls(fn)] == ["call.proj_rows", "call.proj_rows"]


def test_scopes_spmd_and_parallel():
    fn = kernel("w03_scopes_spmd_parallel.py")
    loops = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.For)]
    assert [loop.kind for loop in loops] == [ir.LoopKind.SPMD, ir.LoopKind.PIPELINE, ir.LoopKind.SPMD,
                                           ir.LoopKind.PARALLEL]
    assert loops[0].loop_var == ir.Var("proj_tid")
    scope = fn.body[0]
    assert isinstance(scope, ir.Scope) and scope.body[0].target == ir.Var("zero_tid")
    assert loops[2].kwargs[1] == ("deps", ir.ListExpr((ir.Var("proj_tid"),)))
    atomic = [c for c in calls(fn) if c.op == "tensor.assemble" and c.kwarg("atomic") is not None]
    assert atomic[0].kwarg("atomic") == ir.Sym("AtomicType.Add")


def test_runtime_scalars_are_symbolic():
    result = read_file(WILD / "w04_runtime_scalars.py")
    assert [w.message for w in result.warnings] == [
        "runtime scalar `ctx_blocks`; used as a loop bound; treated as a symbolic value"]
    fn = next(fn for _, fn in result.module.functions())
    loop = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.For)][1]
    assert loop.stop == ir.Var("ctx_blocks")
    kt = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.Assign) and s.target.name == "kt"][0]
    assert kt.value.args[1] == ir.ListExpr((ir.Const(64), ir.Const(128)))


def test_float_constant_and_vector_ops():
    fn = kernel("w05_float_consts_vector_ops.py")
    ops = [c.op for c in calls(fn)]
    for op in ("tensor.full", "tensor.exp", "tensor.row_max", "tensor.recip", "tensor.col_expand_mul",
               "tensor.reshape", "tensor.cast"):
        assert op in ops
    scaled = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.Assign) and s.target.name == "scaled"][0]
    assert scaled.value.args[1] == ir.Const(1.0 / (128 ** 0.5))


@pytest.mark.parametrize("name", ["sibling/w06_from_config.py", "package/w06_relative_import.py"])
def test_constants_from_sibling_modules(name):
    fn = kernel(name)
    assert all(isinstance(d, ir.Const) for p in fn.params for d in p.type.shape)


def test_code_outside_kernels_is_ignored():
    module = read_file(WILD / "w07_code_outside_kernels.py").module
    assert [fn.name for _, fn in module.functions()] == ["gemm"]


def test_helpers_are_inlined():
    fn = kernel("w08_helper_inlined.py")
    loop = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.For)][0]
    assert loop.stop == ir.Const(4)
    assert not [c for c in calls(fn) if c.op.startswith(("call.", "extern."))]
    branch = [s for s in loop.body if isinstance(s, ir.If)][0]
    assert loop.body[-1] == ir.Yield(branch.return_vars)


def test_dataclass_config_and_dynamic_dims():
    fn = kernel("w09_dataclass_config.py")
    assert fn.params[0].type.shape == (ir.Call("dynamic", (ir.Const("TOKENS"),)), ir.Const(1024))
    assert fn.params[2].type.shape[1] == ir.Const(256)


def test_unroll_range_and_elif():
    fn = kernel("w10_unroll_range_elif.py")
    loops = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.For)]
    assert [loop.kind for loop in loops] == [ir.LoopKind.UNROLL, ir.LoopKind.UNROLL]
    outer_if = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.If)][0]
    assert isinstance(outer_if.else_body[0], ir.If)
    assert isinstance(outer_if.else_body[0].cond, ir.BoolOp)


def test_int8_batched_operand():
    fn = kernel("w11_int8_batched.py")
    wb = [s for s in ir.walk_stmts(fn.body) if isinstance(s, ir.Assign) and s.target.name == "wb"][0]
    assert wb.value.args[1] == ir.ListExpr((ir.Const(1), ir.Const(128), ir.Const(128)))


def test_program_built_by_a_factory():
    fn = kernel("w12_program_factory.py")
    assert fn.params[0].type.shape == (ir.Const(16), ir.Const(256))
    assert fn.params[1].type.shape == (ir.Const(256), ir.Const(128))
