"""Bare `pl.Tensor` parameters of `pl.jit.inline` functions take the type of the argument each call passes
(PyPTO splices the function into its callers); where no type can be known the reason names the cause."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pypto_verify.frontend import read_source
from pypto_verify.ir import TensorType
from pypto_verify.run import Options, run

HEADER = "import pypto.language as pl\n\n"

PROJ = """
@pl.jit.inline
def project(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]):
    for n0 in pl.range(0, 128, 64):
        part = pl.matmul(x[0:16, 0:64], w[0:64, n0 : n0 + 64], out_dtype=pl.FP32)
        for k0 in pl.range(64, 256, 64):
            part = pl.matmul_acc(part, x[0:16, k0 : k0 + 64], w[k0 : k0 + 64, n0 : n0 + 64])
        y = pl.assemble(y, part, [0, n0])
    return y
"""

ENTRY = """
@pl.jit
def layer(x: {X}, w: pl.Tensor[[256, 128], pl.BF16], y: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
    y = project(x, w, y)
    return y
"""


def params(text: str, fn: str) -> dict[str, object]:
    parsed = read_source(HEADER + textwrap.dedent(text), "kernel.py")
    (found,) = [f for _, f in parsed.module.functions() if f.name == fn]
    return {p.name: p for p in found.params}


def check(tmp_path: Path, text: str):
    path = tmp_path / "kernel.py"
    path.write_text(HEADER + textwrap.dedent(text))
    (result,) = run([str(path)], Options(sim=False, cache=False, jobs=1)).files
    return result


def test_a_bare_inline_parameter_takes_the_type_its_call_passes(tmp_path):
    text = PROJ + ENTRY.format(X="pl.Tensor[[16, 256], pl.BF16]")
    got = params(text, "project")
    assert got["x"].type == params(text, "layer")["x"].type
    assert isinstance(got["y"].type, TensorType) and got["y"].untyped == ""
    result = check(tmp_path, text)
    assert [k.verdict for k in result.kernels] == ["verified"]


def test_an_inline_called_from_an_inline_is_typed_one_call_level_deeper():
    text = PROJ.replace("def project(", "def inner(") + """
@pl.jit.inline
def project(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]):
    y = inner(x, w, y)
    return y
""" + ENTRY.format(X="pl.Tensor[[16, 256], pl.BF16]")
    assert params(text, "inner")["w"].type == params(text, "layer")["w"].type


def test_calls_that_pass_different_types_leave_the_parameter_untyped_and_say_so():
    text = PROJ + ENTRY.format(X="pl.Tensor[[16, 256], pl.BF16]") + """
@pl.jit
def wide(x: pl.Tensor[[16, 512], pl.BF16], w: pl.Tensor[[256, 128], pl.BF16], y: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
    y = project(x, w, y)
    return y
"""
    got = params(text, "project")
    assert got["x"].type is None and "its calls pass different types" in got["x"].untyped
    assert got["w"].type is not None


def test_a_bare_entry_tensor_sliced_as_a_matmul_operand_takes_the_other_operands_dtype(tmp_path):
    # pypto's tile.matmul requires identical lhs and rhs dtypes: `x`'s windows are BF16 like `w`'s; their
    # bounds are conditions on the extents of the tensor passed
    result = check(tmp_path, PROJ + ENTRY.format(X="pl.Tensor"))
    assert not result.findings
    assert [k.verdict for k in result.kernels] == ["conditional"]


def test_an_untyped_argument_names_the_entry_whose_bare_tensor_it_is(tmp_path):
    # neither operand states a dtype: nothing pins it
    entry = ENTRY.format(X="pl.Tensor").replace("w: pl.Tensor[[256, 128], pl.BF16]", "w: pl.Tensor")
    result = check(tmp_path, PROJ + entry)
    (finding,) = result.findings
    assert (finding.rule.id, finding.span.line) == ("PV000", 7)
    assert "the call at line 15 (in `layer`) passes `x`, which is a bare `pl.Tensor` of the `pl.jit` entry " \
        "`layer`: its shape and dtype are those of the tensor passed at run time" in finding.message
    assert "not inlined" not in finding.message


SIBLING = """
import pypto.language as pl


@pl.jit.inline
def _stage(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16],
           x_out: pl.Out[pl.Tensor[[16, 256], pl.BF16]], w_out: pl.Out[pl.Tensor[[256, 64], pl.BF16]]):
    for c in pl.range(0, 256, 64):
        x_out = pl.assemble(x_out, x[:, c : c + 64], [0, c])
    return x_out, w_out


@pl.jit.inline
def stage(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16],
          x_out: pl.Out[pl.Tensor[[16, 256], pl.BF16]], w_out: pl.Out[pl.Tensor[[256, 64], pl.BF16]]):
    staged_x, staged_w = _stage(x, w, x_out, w_out)
    return staged_x, staged_w
"""

CALLER = """
import pypto.language as pl

from sibling import stage


@pl.jit
def proj(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16],
         x_buf: pl.Tensor[[16, 256], pl.BF16], w_buf: pl.Tensor[[256, 64], pl.BF16],
         y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    xs, ws = stage(x, w, x_buf, w_buf)
    for n0 in pl.parallel(0, 64, 64):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.matmul(xs[:, 0:64], ws[0:64, n0 : n0 + 64], out_dtype=pl.FP32)
            for k0 in pl.range(64, 256, 64):
                acc = pl.matmul_acc(acc, xs[:, k0 : k0 + 64], ws[k0 : k0 + 64, n0 : n0 + 64])
            y[:, n0 : n0 + 64] = acc
    return y
"""


def test_the_results_of_an_imported_inline_callee_have_the_types_of_the_arguments_it_returns(tmp_path):
    # the sibling module is parsed, never imported: `stage` returns what `_stage` returns for its
    # out-parameters, which are the tensors this call passes
    (tmp_path / "sibling.py").write_text(SIBLING)
    path = tmp_path / "kernel.py"
    path.write_text(CALLER)
    (result,) = run([str(path)], Options(sim=False, cache=False, jobs=1)).files
    assert [(f.rule.id, f.message) for f in result.findings] == []
    assert [k.verdict for k in result.kernels] == ["verified"]


def test_a_full_slice_of_a_bare_tensor_matmul_operand_says_why_its_extent_is_unknown(tmp_path):
    text = PROJ.replace("x[0:16, 0:64]", "x[:, 0:64]") + ENTRY.format(X="pl.Tensor")
    (finding,) = check(tmp_path, text).findings
    assert (finding.rule.id, finding.span.line) == ("PV000", 7)
    assert finding.message.endswith("a matmul operand needs a constant shape; the parameter `x` is a bare "
                                    "`pl.Tensor` of the `pl.jit.inline` `project`, which takes the type of the argument "
                                    "each call passes; the call at line 15 (in `layer`) passes `x`, which is a bare "
                                    "`pl.Tensor` of the `pl.jit` entry `layer`: its shape and dtype are those of the "
                                    "tensor passed at run time, which the source does not state")
