"""simplify-literal-conditions: the tail clones' literal ifs and init_conds fold (fixed pipeline)."""

import lowering_builders as b

from pypto_verify.lowering.lower_pipeline_loops import PASS as LOWER
from pypto_verify.lowering.simplify_literal_conditions import PASS

from test_lower_pipeline_loops import k_loop


def test_literal_tail_ifs_fold_to_a_straight_chain():
    lowered = b.run_pass(LOWER, k_loop(0, 192, 64, 4))
    text = b.render(b.run_pass(PASS, lowered)).split("\n", 3)[3]
    assert text == (
        "sa: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 0, [64, 64], target_memory=Mem.Left)\n"
        "sb: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 0, 0, [64, 64], target_memory=Mem.Right)\n"
        "f: Tile[[64, 64], FP32, Acc] = tile.matmul(sa, sb)\n"
        "sa_1: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 64, [64, 64], target_memory=Mem.Left)\n"
        "sb_1: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 64, 0, [64, 64], target_memory=Mem.Right)\n"
        "x_1: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(f, sa_1, sb_1)\n"
        "sa_2: Tile[[64, 64], FP32, Left] = tile.extract(a_mat, 0, 128, [64, 64], target_memory=Mem.Left)\n"
        "sb_2: Tile[[64, 64], FP32, Right] = tile.extract(b_mat, 128, 0, [64, 64], target_memory=Mem.Right)\n"
        "x_2: Tile[[64, 64], FP32, Acc] = tile.matmul_acc(x_1, sa_2, sb_2)\n"
        "c: Tile[[64, 64], FP32, Acc] = x_2\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_literal_init_conds_drop_when_false_and_stay_true_when_true():
    lowered = b.run_pass(LOWER, k_loop(0, 192, 64, 4, predicated=True))
    fn = b.function(b.run_pass(PASS, lowered))
    mads = [s.value for s in fn.body if isinstance(s, b.Assign) and isinstance(s.value, b.Call) and s.value.op == "tile.matmul_acc"]
    assert [m.kwarg("init_cond") for m in mads] == [b.c(True), None, None]


def test_non_literal_conditions_are_kept_with_literal_parts_folded():
    acc = b.tile([16, 16], b.FP32, b.Acc)
    m = b.kernel([b.param("p", b.ScalarType(b.DType.BOOL)), b.param("k", b.ScalarType(b.DType.INDEX))], [
        b.assign("c0", b.call("tile.create", [16, 16], dtype=b.dt(b.FP32), target_memory=b.mem(b.Acc)), acc),
        b.assign("c1", b.call("tile.matmul_acc", b.v("c0"), b.v("c0"), b.v("c0"),
                              b.BoolOp("and", (b.v("p"), b.eq(0, 0)))), acc),
        b.assign("c2", b.call("tile.matmul_acc", b.v("c1"), b.v("c0"), b.v("c0"),
                              init_cond=b.BoolOp("and", (b.v("p"), b.eq(b.add(b.v("k"), 64), 0)))), acc),
        b.ret()])
    fn = b.function(PASS.run(m, b.options()))
    assert fn.body[1].value.args[3] == b.v("p")
    assert fn.body[2].value == b.function(m).body[2].value
