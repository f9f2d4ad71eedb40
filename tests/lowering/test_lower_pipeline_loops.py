"""lower-pipeline-loops: main loop of F clones, literal tail clones, dynamic remainder cascade."""

import lowering_builders as b

from pypto_verify.ir import LoopKind
from pypto_verify.lowering.lower_pipeline_loops import PASS

ACC = b.tile([64, 64], b.FP32, b.Acc)


def k_loop(start, stop, step, stage, *, predicated=False):
    """A tile-level K loop over Mat operands: `if ko == 0: matmul else: matmul_acc` (or predicated)."""
    extract_a = b.call("tile.extract", b.v("a_mat"), 0, b.v("ko"), [64, 64], target_memory=b.mem(b.Left))
    extract_b = b.call("tile.extract", b.v("b_mat"), b.v("ko"), 0, [64, 64], target_memory=b.mem(b.Right))
    body = [b.assign("sa", extract_a, b.tile([64, 64], b.FP32, b.Left)),
            b.assign("sb", extract_b, b.tile([64, 64], b.FP32, b.Right))]
    if predicated:
        body += [b.assign("c_new", b.call("tile.matmul_acc", b.it("c_iter"), b.v("sa"), b.v("sb"),
                                          init_cond=b.eq(b.v("ko"), 0)), ACC), b.yield_(b.v("c_new"))]
    else:
        body += [b.if_(b.eq(b.v("ko"), 0),
                       [b.assign("f", b.call("tile.matmul", b.v("sa"), b.v("sb")), ACC), b.yield_(b.v("f"))],
                       [b.assign("x", b.call("tile.matmul_acc", b.it("c_iter"), b.v("sa"), b.v("sb")), ACC),
                        b.yield_(b.v("x"))], rvs=["ph"], rtypes=[ACC]),
                 b.yield_(b.v("ph"))]
    return _kernel("ko", start, stop, step, stage, body)


def _kernel(loop_var, start, stop, step, stage, body):
    """Loads of a and b to Mat, an Acc create, then the pipelined loop over *body* carrying c."""
    return b.kernel(
        [b.param("a", b.tensor([64, 1024], b.FP32)), b.param("b", b.tensor([1024, 64], b.FP32)),
         b.param("out", b.tensor([64, 64], b.FP32)), b.param("n", b.ScalarType(b.DType.INDEX))],
        [b.assign("a_mat", b.call("tile.load", b.v("a"), [0, 0], [64, 1024], target_memory=b.mem(b.Mat)),
                  b.tile([64, 1024], b.FP32, b.Mat)),
         b.assign("b_mat", b.call("tile.load", b.v("b"), [0, 0], [1024, 64], target_memory=b.mem(b.Mat)),
                  b.tile([1024, 64], b.FP32, b.Mat)),
         b.assign("c_init", b.call("tile.create", [64, 64], dtype=b.dt(b.FP32), target_memory=b.mem(b.Acc)), ACC),
         b.for_(loop_var, start, stop, step, body, iter_args=["c_iter"], inits=[b.v("c_init")], rvs=["c"],
                rtypes=[ACC], kind=LoopKind.PIPELINE, stage=stage),
         b.assign("out", b.call("tile.store", b.v("c"), [0, 0], b.v("out"))), b.ret(b.v("out"))])


def _lowered(module):
    return b.render(b.run_pass(PASS, module)).split("\n", 3)[3]   # drop the loads and the create


def test_shape_c_fewer_trips_than_stages_gives_literal_tail_clones_and_no_loop():
    text = _lowered(k_loop(0, 192, 64, 4))
    assert "for " not in text
    assert text == (
        "sa: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 0, [64, 64], target_memory=Mem.Left)\n"
        "sb: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 0, 0, [64, 64], target_memory=Mem.Right)\n"
        "if 0 == 0 -> ph:\n"
        "    f: Tile[[64, 64], FP32, Acc] = tile.matmul(sa, sb)\n"
        "    yield f\n"
        "else:\n"
        "    x: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_init, sa, sb)\n"
        "    yield x\n"
        "sa_1: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 64, [64, 64], target_memory=Mem.Left)\n"
        "sb_1: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 64, 0, [64, 64], target_memory=Mem.Right)\n"
        "if 64 == 0 -> ph_1:\n"
        "    f_1: Tile[[64, 64], FP32, Acc] = tile.matmul(sa_1, sb_1)\n"
        "    yield f_1\n"
        "else:\n"
        "    x_1: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(ph, sa_1, sb_1)\n"
        "    yield x_1\n"
        "sa_2: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 128, [64, 64], target_memory=Mem.Left)\n"
        "sb_2: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 128, 0, [64, 64], target_memory=Mem.Right)\n"
        "if 128 == 0 -> ph_2:\n"
        "    f_2: Tile[[64, 64], FP32, Acc] = tile.matmul(sa_2, sb_2)\n"
        "    yield f_2\n"
        "else:\n"
        "    x_2: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(ph_1, sa_2, sb_2)\n"
        "    yield x_2\n"
        "c: Tile[[64, 64], FP32, Acc] = ph_2\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_shape_a_odd_trip_count_leaves_a_literal_tail_if_phi_after_the_main_loop():
    text = _lowered(k_loop(0, 192, 64, 2))
    assert text.startswith("for ko, (c_iter) <- (c_init) in range(0, 128, 128) -> c_main:\n")
    assert "    if (ko + 64) == 0 -> ph_1:\n" in text
    assert "if 128 == 0 -> ph_2:\n    f_2: Tile[[64, 64], FP32, Acc] = tile.matmul(sa_2, sb_2)\n" in text
    assert "    x_2: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_main, sa_2, sb_2)\n" in text
    assert "c: Tile[[64, 64], FP32, Acc] = ph_2\n" in text


def test_divisible_trip_count_has_no_tail_and_keeps_the_return_var():
    text = _lowered(k_loop(0, 256, 64, 2, predicated=True))
    assert text == (
        "for ko, (c_iter) <- (c_init) in range(0, 256, 128) -> c:\n"
        "    sa: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, ko, [64, 64], target_memory=Mem.Left)\n"
        "    sb: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, ko, 0, [64, 64], target_memory=Mem.Right)\n"
        "    c_new: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_iter, sa, sb, init_cond=ko == 0)\n"
        "    sa_1: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, (ko + 64), [64, 64], target_memory=Mem.Left)\n"
        "    sb_1: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, (ko + 64), 0, [64, 64], target_memory=Mem.Right)\n"
        "    c_new_1: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_new, sa_1, sb_1, init_cond=(ko + 64) == 0)\n"
        "    yield c_new_1\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_symbolic_bound_gives_the_remainder_cascade():
    text = _lowered(k_loop(0, b.v("n"), 64, 3, predicated=True))
    assert text.startswith(
        "unroll_main_end: Scalar[INDEX] = ((((n + 63) // 64) // 3) * 192)\n"
        "for ko, (c_iter) <- (c_init) in range(0, unroll_main_end, 192) -> c_main:\n")
    assert ("unroll_rem: Scalar[INDEX] = (((n + 63) // 64) - ((((n + 63) // 64) // 3) * 3))\n"
            "if unroll_rem == 1 -> c:\n") in text
    # the cascade is built innermost first (as the real pass does), so the 2-clone arm is numbered first
    assert "    c_new_5: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_main, sa_5, sb_5, init_cond=unroll_main_end == 0)\n" in text
    assert "    if unroll_rem == 2 -> c_rem2:\n" in text
    assert "        c_new_4: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_new_3, sa_4, sb_4, init_cond=(unroll_main_end + 64) == 0)\n" in text
    assert text.endswith("        yield c_new_4\n    else:\n        yield c_main\n    yield c_rem2\n"
                         "out = tile.store(c, [0, 0], out)\nreturn out\n")


def test_zero_trips_and_stage_one_give_plain_loops():
    for module in (k_loop(0, 0, 64, 2), k_loop(0, 256, 64, 1)):
        fn = b.function(b.run_pass(PASS, module))
        loop = fn.body[3]
        assert loop.kind is LoopKind.RANGE and loop.stage is None and loop.body == b.function(module).body[3].body


def test_clones_are_tagged_with_their_pipeline_membership_except_accumulators():
    fn = b.function(b.run_pass(PASS, k_loop(0, 192, 64, 2, predicated=True)))
    loop, tail_a = fn.body[3], fn.body[4]
    assert loop.body[0].value.kwarg("attrs") == b.DictExpr((("pipeline_membership", b.c("0:0")),))
    assert loop.body[3].value.kwarg("attrs") == b.DictExpr((("pipeline_membership", b.c("0:1")),))
    assert loop.body[2].value.kwarg("attrs") is None
    assert tail_a.value.kwarg("attrs") == b.DictExpr((("pipeline_membership", b.c("1:0")),))


def test_literal_tail_clones_fold_their_arithmetic_and_propagate_literal_scalars():
    # `k0 = kb * 64` in the tail clone at kb = 2 reads as the frontend reads a dump: `k0_1 = 128`, and the
    # uses of k0_1 see the literal (so the printed tail parses back to itself); the condition stays live
    body = [b.assign("k0", b.mul(b.v("kb"), 64), b.ScalarType(b.DType.INDEX)),
            b.assign("sa", b.call("tile.extract", b.v("a_mat"), 0, b.v("k0"), [64, 64], target_memory=b.mem(b.Left)),
                     b.tile([64, 64], b.FP32, b.Left)),
            b.assign("sb", b.call("tile.extract", b.v("b_mat"), b.v("k0"), 0, [64, 64], target_memory=b.mem(b.Right)),
                     b.tile([64, 64], b.FP32, b.Right)),
            b.assign("c_new", b.call("tile.matmul_acc", b.it("c_iter"), b.v("sa"), b.v("sb"),
                                     init_cond=b.eq(b.v("k0"), 0)), ACC),
            b.yield_(b.v("c_new"))]
    module = _kernel("kb", 0, 3, 1, 2, body)
    tail = _lowered(module).split("-> c_main:\n", 1)[1].split("    yield c_new_1\n", 1)[1]
    assert tail == (
        "k0_2: Scalar[INDEX] = 128\n"
        "sa_2: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 128, [64, 64], target_memory=Mem.Left)\n"
        "sb_2: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 128, 0, [64, 64], target_memory=Mem.Right)\n"
        "c_new_2: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(c_main, sa_2, sb_2, init_cond=128 == 0)\n"
        "c: Tile[[64, 64], FP32, Acc] = c_new_2\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")
