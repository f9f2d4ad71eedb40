"""infer-tile-memory-space: an accumulator carried through an enclosing loop is Acc everywhere.

corpus/edge_outer_carry.py `chunked_k`: `for kc: for kb: if ...: matmul else: matmul_acc(acc)`. The
outer loop's yield is the inner loop's return var, so the outer loop's visit puts that return var (and,
for a body-level yield, the inner loop's yield value) into the carry class *before* the inner loop's
own visit defines it. Each value must still get the class's space: init, iter_args, yields, phis and
return vars all Acc, no move before the store.
"""

import lowering_builders as b

from pypto_verify.lowering.infer_tile_memory_space import PASS

VEC = b.tile([16, 64], b.FP32, b.Vec)
ACC = b.tile([16, 64], b.FP32, b.Acc)
MAT_A = b.tile([16, 64], b.BF16, b.Mat)
MAT_B = b.tile([64, 64], b.BF16, b.Mat)


def loads(k):
    return [
        b.assign("xa", b.call("tile.load", b.v("x"), [0, k], [16, 64], target_memory=b.mem(b.Mat)), MAT_A),
        b.assign("wb", b.call("tile.load", b.v("w"), [k, 0], [64, 64], target_memory=b.mem(b.Mat)), MAT_B),
    ]


def outer_carry(phi_body: bool):
    """`acc = create(Vec)` (the converter's form); `for kc (acc_o): for kb (acc_i): ...; yield`.
    *phi_body*: the inner body is `if k0 == 0: matmul else: matmul_acc(acc_i)`; otherwise a bare
    `x = matmul_acc(acc_i)` typed Vec, yielded directly."""
    k0 = b.mul(b.add(b.mul(b.v("kc"), 4), b.v("kb")), 64)
    if phi_body:
        inner = [
            *loads(k0),
            b.if_(b.eq(k0, 0),
                  [b.assign("f", b.call("tile.matmul", b.v("xa"), b.v("wb")), ACC), b.yield_(b.v("f"))],
                  [b.assign("g", b.call("tile.matmul_acc", b.it("acc_i"), b.v("xa"), b.v("wb")), ACC),
                   b.yield_(b.v("g"))], rvs=["ph"], rtypes=[ACC]),
            b.yield_(b.v("ph")),
        ]
        last = "ph"
    else:
        inner = [*loads(k0), b.assign("x", b.call("tile.matmul_acc", b.it("acc_i"), b.v("xa"), b.v("wb"),
                                                   b.eq(k0, 0)), VEC), b.yield_(b.v("x"))]
        last = "x"
    return b.kernel(
        [b.param("x", b.tensor([16, 1024], b.BF16)), b.param("w", b.tensor([1024, 64], b.BF16)),
         b.param("y", b.tensor([16, 64], b.FP32))],
        [b.assign("acc", b.call("tile.create", [16, 64], dtype=b.dt(b.FP32), target_memory=b.mem(b.Vec)), VEC),
         b.for_("kc", 0, 4, 1, [
             b.for_("kb", 0, 4, 1, inner, iter_args=["acc_i"], inits=[b.it("acc_o")], rvs=["rv_i"], rtypes=[VEC]),
             b.yield_(b.v("rv_i")),
         ], iter_args=["acc_o"], inits=[b.v("acc")], rvs=["rv_o"], rtypes=[VEC]),
         b.assign("y", b.call("tile.store", b.v("rv_o"), [0, 0], b.v("y"))), b.ret(b.v("y"))]), last


def test_every_value_of_an_outer_carry_is_acc():
    for phi_body in (True, False):
        module, last = outer_carry(phi_body)
        fn = b.function(b.run_pass(PASS, module))
        from pypto_verify.lowering._pass_util import infer_env

        env = infer_env(fn)
        for name in ("acc", "acc_o", "acc_i", last, "rv_i", "rv_o"):
            assert env[name].space is b.Acc, (phi_body, name, env[name])
        text = b.render(fn)
        assert "target_memory=Mem.Acc" in text.split("\n")[0]
        assert "rv_o_Vec" not in text and "tile.store(rv_o, [0, 0], y)" in text
