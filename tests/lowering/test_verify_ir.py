"""verify_ir: the SSA well-formedness oracle every pass test runs."""

import lowering_builders as b

from pypto_verify.lowering.verify_ir import verify_ir

A = b.param("a", b.tensor([16, 16], b.FP32))
OUT = b.param("out", b.tensor([16, 16], b.FP32))
T = b.tile([16, 16], b.FP32, b.Vec)


def _load(name="x"):
    return b.assign(name, b.call("tile.load", b.v("a"), [0, 0], [16, 16], target_memory=b.mem(b.Vec)), T)


def test_well_formed_kernel_has_no_problems():
    m = b.kernel([A, OUT], [
        _load(),
        b.for_("i", 0, 4, 1, [b.assign("y", b.call("tile.add", b.it("x_it"), b.it("x_it")), T), b.yield_(b.v("y"))],
               iter_args=["x_it"], inits=[b.v("x")], rvs=["x_rv"]),
        b.if_(b.eq(b.v("x_rv"), 0), [b.yield_(b.v("x_rv"))], [b.yield_(b.v("x"))], rvs=["p"]),
        b.assign("out", b.call("tile.store", b.v("p"), [0, 0], b.v("out"))),
        b.assign("out", b.call("tile.store", b.v("p"), [0, 0], b.v("out"))),
        b.ret(b.v("out")),
    ])
    assert verify_ir(m) == []


def test_use_before_definition_is_reported():
    m = b.kernel([A], [b.assign("y", b.call("tile.add", b.v("x"), b.v("x")), T), _load()])
    problems = verify_ir(m)
    assert len(problems) == 1 and "`x` is used but not defined" in problems[0]


def test_tile_defined_twice_is_reported_but_tensor_rebinding_is_not():
    m = b.kernel([A, OUT], [_load(), _load(), b.assign("out", b.call("tile.store", b.v("x"), [0, 0], b.v("out")))])
    problems = verify_ir(m)
    assert len(problems) == 1 and "`x` is defined more than once" in problems[0]


def test_body_names_are_not_visible_after_the_loop():
    m = b.kernel([A], [b.for_("i", 0, 4, 1, [_load("inner")]), b.assign("y", b.call("tile.add", b.v("inner"), b.v("i")), T)])
    problems = verify_ir(m)
    assert any("`inner` is used" in p for p in problems) and any("`i` is used" in p for p in problems)


def test_scope_is_transparent():
    m = b.kernel([A], [b.scope([_load()]), b.assign("y", b.call("tile.add", b.v("x"), b.v("x")), T)])
    assert verify_ir(m) == []


def test_yield_count_must_match_the_carries_and_phis():
    m = b.kernel([A], [
        _load(),
        b.for_("i", 0, 4, 1, [b.yield_(b.v("x"), b.v("x"))], iter_args=["c"], inits=[b.v("x")], rvs=["r"]),
        b.if_(b.eq(1, 0), [b.yield_(b.v("x"))], [], rvs=["p"]),
    ])
    problems = verify_ir(m)
    assert any("yields 2 values for 1 iter_args" in p for p in problems)
    assert any("else arm of an if with 1 return vars does not end in a yield" in p for p in problems)


def test_yield_in_the_middle_of_a_body_is_reported():
    m = b.kernel([A], [_load(), b.yield_(b.v("x")), b.ret()])
    assert any("a yield must be the last statement" in p for p in verify_ir(m))
