"""infer-tile-memory-space: spaces and moves, where real-ir/hand_peel/29 and two_accumulators/29 put them."""

import lowering_builders as b

from pypto_verify.ir import LoopKind
from pypto_verify.lowering.infer_tile_memory_space import PASS

ACC = b.tile([32, 64], b.FP32, b.Acc)


def hand_peel():
    """real-ir/hand_peel/source.py."""
    return b.kernel(
        [b.param("a", b.tensor([32, 256], b.FP32)), b.param("b", b.tensor([256, 64], b.FP32)),
         b.param("out", b.tensor([32, 64], b.FP32))],
        [b.assign("c_init", b.call("tile.create", [32, 64], dtype=b.dt(b.FP32), target_memory=b.mem(b.Acc)), ACC),
         b.for_("kb", 0, 4, 1, [
             b.assign("ta", b.call("tile.load", b.v("a"), [0, b.mul(b.v("kb"), 64)], [32, 64],
                                   target_memory=b.mem(b.Mat)), b.tile([32, 64], b.FP32, b.Mat)),
             b.assign("tb", b.call("tile.load", b.v("b"), [b.mul(b.v("kb"), 64), 0], [64, 64],
                                   target_memory=b.mem(b.Mat)), b.tile([64, 64], b.FP32, b.Mat)),
             b.if_(b.eq(b.v("kb"), 0),
                   [b.assign("f", b.call("tile.matmul", b.v("ta"), b.v("tb")), ACC), b.yield_(b.v("f"))],
                   [b.assign("x", b.call("tile.matmul_acc", b.it("c_iter"), b.v("ta"), b.v("tb")), ACC),
                    b.yield_(b.v("x"))], rvs=["ph"], rtypes=[ACC]),
             b.yield_(b.v("ph"))], iter_args=["c_iter"], inits=[b.v("c_init")], rvs=["c"], rtypes=[ACC]),
         b.assign("out", b.call("tile.store", b.v("c"), [0, 0], b.v("out"))), b.ret(b.v("out"))])


def test_moves_go_right_before_each_mad_inside_each_arm():
    text = b.render(b.run_pass(PASS, hand_peel()))
    assert text.split("\n")[4:16] == [
        "    if kb == 0 -> ph:",
        "        ta_Left: Tile[[32, 64], FP32, Left] = tile.move(ta, target_memory=Mem.Left)",
        "        tb_Right: Tile[[64, 64], FP32, Right] = tile.move(tb, target_memory=Mem.Right)",
        "        f: Tile[[32, 64], FP32, Acc] = tile.matmul(ta_Left, tb_Right)",
        "        yield f",
        "    else:",
        "        ta_Left_1: Tile[[32, 64], FP32, Left] = tile.move(ta, target_memory=Mem.Left)",
        "        tb_Right_1: Tile[[64, 64], FP32, Right] = tile.move(tb, target_memory=Mem.Right)",
        "        x: Tile[[32, 64], FP32, Acc] = tile.matmul_acc(c_iter, ta_Left_1, tb_Right_1)",
        "        yield x",
        "    yield ph",
        "out = tile.store(c, [0, 0], out)",
    ]


def test_a_move_is_shared_by_later_consumers_in_the_same_body():
    acc = b.tile([16, 64], b.FP32, b.Acc)
    m = b.kernel(
        [b.param("x", b.tensor([16, 512], b.BF16)), b.param("wk", b.tensor([512, 64], b.BF16)),
         b.param("wv", b.tensor([512, 64], b.BF16)), b.param("k_out", b.tensor([16, 64], b.FP32)),
         b.param("v_out", b.tensor([16, 64], b.FP32))],
        [b.assign("k_init", b.call("tile.create", [16, 64], dtype=b.dt(b.FP32), target_memory=b.mem(b.Acc)), acc),
         b.assign("v_init", b.call("tile.create", [16, 64], dtype=b.dt(b.FP32), target_memory=b.mem(b.Acc)), acc),
         b.for_("k0", 0, 512, 128, [
             b.assign("xa", b.call("tile.load", b.v("x"), [0, b.v("k0")], [16, 128], target_memory=b.mem(b.Mat)),
                      b.tile([16, 128], b.BF16, b.Mat)),
             b.assign("kb", b.call("tile.load", b.v("wk"), [b.v("k0"), 0], [128, 64], target_memory=b.mem(b.Mat)),
                      b.tile([128, 64], b.BF16, b.Mat)),
             b.assign("vb", b.call("tile.load", b.v("wv"), [b.v("k0"), 0], [128, 64], target_memory=b.mem(b.Mat)),
                      b.tile([128, 64], b.BF16, b.Mat)),
             b.assign("k_new", b.call("tile.matmul_acc", b.it("k_it"), b.v("xa"), b.v("kb"),
                                      init_cond=b.eq(b.v("k0"), 0)), acc),
             b.assign("v_new", b.call("tile.matmul_acc", b.it("v_it"), b.v("xa"), b.v("vb"),
                                      init_cond=b.eq(b.v("k0"), 0)), acc),
             b.yield_(b.v("k_new"), b.v("v_new"))],
             iter_args=["k_it", "v_it"], inits=[b.v("k_init"), b.v("v_init")], rvs=["k_acc", "v_acc"],
             kind=LoopKind.PIPELINE, stage=2),
         b.assign("k_out", b.call("tile.store", b.v("k_acc"), [0, 0], b.v("k_out"))), b.ret(b.v("k_out"))])
    lines = b.render(b.run_pass(PASS, m)).split("\n")
    assert [line.split(":")[0].strip() for line in lines[3:11]] == [
        "xa", "kb", "vb", "xa_Left", "kb_Right", "k_new", "vb_Right", "v_new"]
    assert "tile.matmul_acc(v_it, xa_Left, vb_Right, init_cond=k0 == 0)" in lines[10]


def test_an_accumulator_create_in_vec_becomes_acc_through_the_carry():
    from test_convert_tensor_to_tile_ops import tensor_proj
    from pypto_verify.lowering.convert_tensor_to_tile_ops import PASS as CONVERT

    fn = b.function(b.run_pass(PASS, b.run_pass(CONVERT, tensor_proj())))
    create = fn.body[0].body[0]
    loop = fn.body[0].body[1]
    assert create.type == b.tile([16, 256], b.FP32, b.Acc)
    assert create.value.kwarg("target_memory") == b.mem(b.Acc)
    assert loop.return_types == (b.tile([16, 256], b.FP32, b.Acc),)


def _cast_of_acc():
    acc = b.tile([16, 64], b.FP32, b.Acc)
    return b.kernel(
        [b.param("a", b.tensor([16, 64], b.BF16)), b.param("w", b.tensor([64, 64], b.BF16)),
         b.param("y", b.tensor([16, 64], b.BF16))],
        [b.assign("am", b.call("tile.load", b.v("a"), [0, 0], [16, 64], target_memory=b.mem(b.Mat)),
                  b.tile([16, 64], b.BF16, b.Mat)),
         b.assign("wm", b.call("tile.load", b.v("w"), [0, 0], [64, 64], target_memory=b.mem(b.Mat)),
                  b.tile([64, 64], b.BF16, b.Mat)),
         b.assign("c", b.call("tile.matmul", b.v("am"), b.v("wm")), acc),
         b.assign("h", b.call("tile.cast", b.v("c"), target_type=b.dt(b.BF16), mode="rint"),
                  b.tile([16, 64], b.BF16, b.Vec)),
         b.assign("y", b.call("tile.store", b.v("h"), [0, 0], b.v("y"))),
         b.assign("y", b.call("tile.store", b.v("c"), [0, 0], b.v("y"))), b.ret(b.v("y"))])


def test_a_vector_consumer_of_an_accumulator_reads_it_through_gm_on_a2a3():
    assert b.render(b.run_pass(PASS, _cast_of_acc(), target="a2a3")).split("\n")[4:11] == [
        "c: Tile[[16, 64], FP32, Acc] = tile.matmul(am_Left, wm_Right)",
        "c__gm: Tensor[[16, 64], FP32] = tensor.create([16, 64], dtype=FP32)",
        "c__gm: Tensor[[16, 64], FP32] = tile.store(c, [0, 0], c__gm)",
        "c_Vec: Tile[[16, 64], FP32, Vec] = tile.load(c__gm, [0, 0], [16, 64], target_memory=Mem.Vec)",
        "h: Tile[[16, 64], BF16, Vec] = tile.cast(c_Vec, target_type=BF16, mode='rint')",
        "y = tile.store(h, [0, 0], y)",
        "y = tile.store(c, [0, 0], y)",
    ]


def test_a_vector_consumer_of_an_accumulator_reads_it_through_a_move_to_vec_on_a5():
    assert b.render(b.run_pass(PASS, _cast_of_acc(), target="a5")).split("\n")[4:9] == [
        "c: Tile[[16, 64], FP32, Acc] = tile.matmul(am_Left, wm_Right)",
        "c_Vec: Tile[[16, 64], FP32, Vec] = tile.move(c, target_memory=Mem.Vec)",
        "h: Tile[[16, 64], BF16, Vec] = tile.cast(c_Vec, target_type=BF16, mode='rint')",
        "y = tile.store(h, [0, 0], y)",
        "y = tile.store(c, [0, 0], y)",
    ]
