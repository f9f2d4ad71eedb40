"""simplify (early UnrollLoops + Simplify): unrolled chains become straight chains."""

import lowering_builders as b

from pypto_verify.ir import LoopKind
from pypto_verify.lowering.simplify import PASS

X = b.param("x", b.tensor([16, 512], b.BF16))
W = b.param("w", b.tensor([512, 64], b.BF16))
Y = b.param("y", b.tensor([16, 64], b.FP32), )


def _unrolled_chain(kind=LoopKind.UNROLL, derived=True):
    """`for kb in pl.unroll(4): k0 = kb * 128; if k0 == 0: acc = matmul else: acc = matmul_acc(acc)`."""
    cond_var = "k0" if derived else "kb"
    return b.kernel([X, W, Y], [
        b.assign("acc", b.call("tensor.create", [16, 64], dtype=b.dt(b.FP32))),
        b.for_("kb", 0, 4, 1, [
            b.assign("k0", b.mul(b.v("kb"), 128)),
            b.assign("xa", b.call("tensor.slice", b.v("x"), [16, 128], [0, b.v("k0")])),
            b.assign("wb", b.call("tensor.slice", b.v("w"), [128, 64], [b.v("k0"), 0])),
            b.if_(b.eq(b.v(cond_var), 0),
                  [b.assign("acc__ssa_v2", b.call("tensor.matmul", b.v("xa"), b.v("wb"), out_dtype=b.dt(b.FP32))),
                   b.yield_(b.v("acc__ssa_v2"))],
                  [b.assign("acc__ssa_v3", b.call("tensor.matmul_acc", b.it("acc__iter_v1"), b.v("xa"), b.v("wb"))),
                   b.yield_(b.v("acc__ssa_v3"))], rvs=["acc__phi_v4"]),
            b.yield_(b.v("acc__phi_v4"))],
            iter_args=["acc__iter_v1"], inits=[b.v("acc")], rvs=["acc__rv_v5"], kind=kind),
        b.assign("y", b.call("tensor.assemble", b.v("y"), b.v("acc__rv_v5"), [0, 0])),
        b.ret(b.v("y")),
    ], kind=b.FunctionKind.OPAQUE)


def test_unrolled_if_chain_becomes_a_straight_chain():
    out = b.run_pass(PASS, _unrolled_chain())
    text = b.render(out)
    assert "for " not in text and "if " not in text
    assert text == (
        "acc = tensor.create([16, 64], dtype=FP32)\n"
        "k0__u0 = 0\n"
        "xa__u0 = tensor.slice(x, [16, 128], [0, 0])\n"
        "wb__u0 = tensor.slice(w, [128, 64], [0, 0])\n"
        "acc__ssa_v2__u0 = tensor.matmul(xa__u0, wb__u0, out_dtype=FP32)\n"
        "k0__u1 = 128\n"
        "xa__u1 = tensor.slice(x, [16, 128], [0, 128])\n"
        "wb__u1 = tensor.slice(w, [128, 64], [128, 0])\n"
        "acc__ssa_v3__u1 = tensor.matmul_acc(acc__ssa_v2__u0, xa__u1, wb__u1)\n"
        "k0__u2 = 256\n"
        "xa__u2 = tensor.slice(x, [16, 128], [0, 256])\n"
        "wb__u2 = tensor.slice(w, [128, 64], [256, 0])\n"
        "acc__ssa_v3__u2 = tensor.matmul_acc(acc__ssa_v3__u1, xa__u2, wb__u2)\n"
        "k0__u3 = 384\n"
        "xa__u3 = tensor.slice(x, [16, 128], [0, 384])\n"
        "wb__u3 = tensor.slice(w, [128, 64], [384, 0])\n"
        "acc__ssa_v3__u3 = tensor.matmul_acc(acc__ssa_v3__u2, xa__u3, wb__u3)\n"
        "y = tensor.assemble(y, acc__ssa_v3__u3, [0, 0])\n"
        "return y\n")


def test_loop_index_condition_folds_like_a_derived_offset():
    text = b.render(b.run_pass(PASS, _unrolled_chain(derived=False)))
    assert "if " not in text and text.count("tensor.matmul(") == 1 and text.count("tensor.matmul_acc(") == 3


def test_pipeline_loops_are_kept():
    out = b.run_pass(PASS, _unrolled_chain(kind=LoopKind.PIPELINE))
    assert b.render(out) == b.render(_unrolled_chain(kind=LoopKind.PIPELINE))


def test_symbolic_unroll_bounds_are_kept():
    m = b.kernel([X, b.param("n", b.ScalarType(b.DType.INDEX))], [
        b.for_("i", 0, b.v("n"), 1, [b.assign("t", b.add(b.v("i"), 1))], kind=LoopKind.UNROLL), b.ret()])
    assert b.render(b.run_pass(PASS, m)) == b.render(m)


def test_zero_trip_unroll_binds_its_return_vars_to_the_inits():
    m = b.kernel([X, Y], [
        b.assign("t0", b.call("tensor.create", [16, 64], dtype=b.dt(b.FP32))),
        b.for_("i", 0, 0, 1, [b.assign("t1", b.call("tensor.exp", b.it("t"))), b.yield_(b.v("t1"))],
               iter_args=["t"], inits=[b.v("t0")], rvs=["t_rv"], kind=LoopKind.UNROLL),
        b.assign("y", b.call("tensor.assemble", b.v("y"), b.v("t_rv"), [0, 0])), b.ret(b.v("y"))])
    assert b.render(b.run_pass(PASS, m)) == (
        "t0 = tensor.create([16, 64], dtype=FP32)\n"
        "y = tensor.assemble(y, t0, [0, 0])\n"
        "return y\n")


def test_tensor_rebinding_in_an_unrolled_body_keeps_its_name():
    m = b.kernel([X, Y], [
        b.for_("i", 0, 2, 1, [
            b.assign("s", b.call("tensor.slice", b.v("x"), [16, 64], [0, b.mul(b.v("i"), 64)])),
            b.assign("y", b.call("tensor.assemble", b.v("y"), b.v("s"), [0, b.mul(b.v("i"), 64)]))],
            kind=LoopKind.UNROLL),
        b.ret(b.v("y"))])
    assert b.render(b.run_pass(PASS, m)) == (
        "s__u0 = tensor.slice(x, [16, 64], [0, 0])\n"
        "y = tensor.assemble(y, s__u0, [0, 0])\n"
        "s__u1 = tensor.slice(x, [16, 64], [0, 64])\n"
        "y = tensor.assemble(y, s__u1, [0, 64])\n"
        "return y\n")


def test_nested_unrolls_and_partly_literal_conditions_fold():
    m = b.kernel([X, b.param("n", b.ScalarType(b.DType.INDEX))], [
        b.for_("i", 0, 2, 1, [
            b.for_("j", 0, 2, 1, [
                b.if_(b.BoolOp("and", (b.eq(b.v("i"), 0), b.Compare("<", b.v("j"), b.v("n")))),
                      [b.eval_(b.call("tensor.print", b.v("j")))], [])], kind=LoopKind.UNROLL)],
            kind=LoopKind.UNROLL),
        b.ret()])
    assert b.render(b.run_pass(PASS, m)) == (
        "if 0 < n:\n"
        "    tensor.print(0)\n"
        "if 1 < n:\n"
        "    tensor.print(1)\n"
        "return \n")
