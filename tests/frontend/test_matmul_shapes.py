"""Matmul operand agreement (`frontend/shapes.py`): a MAD whose operands' shapes are both exact and
disagree on K is a PV000 input error at the MAD; an operand whose shape is a guess is never accused."""

from __future__ import annotations

import textwrap

from pypto_verify.frontend import read_source
from pypto_verify.frontend.shapes import Shapes
from pypto_verify.ir import Var

HEADER = "import pypto.language as pl\n\n"


def errors(body: str) -> list[tuple[int, int, str]]:
    """(line, col, message) of every input error, lines of *body* counted from 1."""
    parsed = read_source(HEADER + textwrap.dedent(body), "kernel.py")
    shift = HEADER.count("\n")
    return [(e.span.line - shift, e.span.col, e.message) for e in parsed.errors]


FORM1 = """
@pl.jit
def proj(x: pl.Tensor[[16, 256], pl.BF16], w: pl.Tensor[[{W}], pl.BF16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    for k0 in pl.range(0, 256, 64):
        acc = pl.matmul(x[:, k0 : k0 + 64], {RHS}, out_dtype=pl.FP32)
        y = pl.assemble(y, acc, [0, 0], atomic=pl.AtomicType.Add)
    return y
"""


def test_operands_that_agree_on_k_read_clean():
    assert errors(FORM1.format(W="256, 64", RHS="w[k0 : k0 + 64, :]")) == []


def test_k_mismatch_is_an_input_error_at_the_mad_with_both_shapes():
    ((line, col, message),) = errors(FORM1.format(W="512, 64", RHS="w[k0 : k0 + 128, :]"))
    assert (line, col) == (5, 15)
    assert message.startswith("matmul operands disagree on K: `x[:, k0 : k0 + 64]` is [16, 64], "
                              "`w[k0 : k0 + 128, :]` is [128, 64]; K is 64 on the left and 128 on the right")


def test_b_trans_reads_k_from_the_right_operands_last_dimension():
    assert errors(FORM1.format(W="64, 256", RHS="w[:, k0 : k0 + 64], b_trans=True")) == []
    ((_, _, message),) = errors(FORM1.format(W="64, 256", RHS="w[:, 0:32], b_trans=True"))
    assert "`w[:, 0:32]` is [64, 32] (b_trans=True)" in message


def test_a_trans_reads_k_from_the_left_operands_first_dimension():
    body = """
    @pl.jit
    def proj(x: pl.Tensor[[256, 16], pl.BF16], w: pl.Tensor[[256, 64], pl.BF16],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc = pl.matmul(x[0:{KA}, :], w[0:64, :], a_trans=True, out_dtype=pl.FP32)
        y = pl.assemble(y, acc, [0, 0])
        return y
    """
    assert errors(body.replace("{KA}", "64")) == []
    assert [line for line, _, _ in errors(body.replace("{KA}", "128"))] == [5]


def test_a_unit_batch_dimension_is_carried_through():
    body = """
    @pl.jit
    def batched(x: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[4, 64, 32], pl.BF16],
                y: pl.Out[pl.Tensor[[1, 16, 32], pl.FP32]]):
        for e in pl.range(4):
            acc = pl.matmul(x, w[e : e + 1, :, 0:32], out_dtype=pl.FP32)
        return y
    """
    assert errors(body) == []


def test_tile_level_and_annotated_operands_are_checked():
    body = """
    @pl.program
    class Gemm:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[64, 256], pl.BF16], b: pl.Tensor[[256, 64], pl.BF16],
                 out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Left)
            tb: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.tile.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Right)
            c = pl.tile.matmul(ta, tb)
            out = pl.tile.store(c, [0, 0], out)
            return out
    """
    ((line, col, message),) = errors(body)
    assert line == 9
    assert "`ta` is [64, 64], `tb` is [128, 64]" in message


def test_an_operand_whose_shape_is_a_guess_is_never_accused():
    # pypto-lib turboquant_kv.py:199 — `row_expand_mul(<inline call>, scales)` is typed by the generic rule
    # as its first *named* operand, the `[M, 1]` scale: a guess, so the matmul is not accused.
    body = """
    @pl.jit
    def unrotate(c: pl.Tensor[[32, 64], pl.FP32], inv: pl.Tensor[[32, 1], pl.FP32],
                 scales: pl.Tensor[[32, 1], pl.FP32], rot: pl.Tensor[[128, 64], pl.BF16],
                 y: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
        lo = pl.row_expand_mul(pl.row_expand_mul(pl.some_op(c), inv), scales)
        out = pl.matmul(pl.cast(lo, target_type=pl.BF16), rot, b_trans=True, out_dtype=pl.FP32)
        return y
    """
    assert errors(body) == []


def test_exact_shapes_follow_element_wise_ops_only_when_the_operands_broadcast():
    body = """
    @pl.jit
    def f(a: pl.Tensor[[32, 64], pl.FP32], r: pl.Tensor[[32, 1], pl.FP32], h: pl.Tensor[[16, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        s = pl.row_expand_mul(pl.exp(a), r)
        t = pl.add(a, s)
        u = pl.add(a, h)
        v = pl.row_sum(t)
        w = pl.div(r, a)
        return y
    """
    parsed = read_source(HEADER + textwrap.dedent(body), "kernel.py")
    (fn,) = [fn for _, fn in parsed.module.functions()]
    shapes = Shapes(fn)
    names = {n.split("__")[0]: n for n in shapes.defs}
    exact = {name: (s := shapes.of(Var(ssa))) is not None and s.exact for name, ssa in names.items()}
    assert exact == {"s": True, "t": True, "u": False, "v": True, "w": True}
    assert [d.value for d in shapes.of(Var(names["w"])).dims] == [32, 64]  # [32, 1] stretched to [32, 64]
