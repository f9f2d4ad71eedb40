"""auto-tile-matmul-l0: the K loop the tiler builds, by mode and op (real-ir/*/16 for legacy)."""

import pytest

import lowering_builders as b

from pypto_verify.lowering.auto_tile_matmul_l0 import PASS, choose_k
from pypto_verify.lowering.pass_base import LoweringError
from pypto_verify.target import TARGETS

A2A3 = TARGETS["a2a3"]


def _matmul(m, k, n, op="tile.matmul", dtype=b.BF16, extra=(), init_cond=None, bias=False):
    acc_dtype = b.INT32 if dtype is b.INT8 else b.FP32
    params = [b.param("a", b.tensor([m, k], dtype)), b.param("b", b.tensor([k, n], dtype)),
              b.param("out", b.tensor([m, n], acc_dtype))]
    body = [b.assign("a_mat", b.call("tile.load", b.v("a"), [0, 0], [m, k], target_memory=b.mem(b.Mat)),
                     b.tile([m, k], dtype, b.Mat)),
            b.assign("b_mat", b.call("tile.load", b.v("b"), [0, 0], [k, n], target_memory=b.mem(b.Mat)),
                     b.tile([k, n], dtype, b.Mat))]
    acc_t = b.tile([m, n], acc_dtype, b.Acc)
    if op == "tile.matmul_acc":
        body.append(b.assign("c0", b.call("tile.create", [m, n], dtype=b.dt(acc_dtype), target_memory=b.mem(b.Acc)),
                             acc_t))
        kwargs = {"init_cond": init_cond} if init_cond is not None else {}
        mad = b.call(op, b.v("c0"), b.v("a_mat"), b.v("b_mat"), **kwargs)
    elif bias:
        params.append(b.param("bias", b.tensor([1, n], acc_dtype)))
        body.append(b.assign("bias_mat", b.call("tile.load", b.v("bias"), [0, 0], [1, n], target_memory=b.mem(b.Mat)),
                             b.tile([1, n], acc_dtype, b.Mat)))
        mad = b.call(op, b.v("a_mat"), b.v("b_mat"), b.v("bias_mat"))
    else:
        mad = b.call(op, b.v("a_mat"), b.v("b_mat"))
    body += [b.assign("c", mad, acc_t), *extra,
             b.assign("out", b.call("tile.store", b.v("c"), [0, 0], b.v("out"))), b.ret(b.v("out"))]
    return b.kernel(params, body)


def _tiled(module, mode):
    text = b.render(b.run_pass(PASS, module, mode=mode))
    return text.split("\n", 2)[2] if text.startswith("a_mat") else text  # drop the two loads


@pytest.mark.parametrize("m,k,n,expected", [
    (128, 512, 128, 128),   # real-ir/auto_tiled
    (16, 256, 256, 64),     # real-ir/tensor_proj
    (16, 272, 256, 64),     # 272 = 17 * 16: the divisor 16 is less than half of 64, so k = 64 with a tail
    (16, 320, 256, 64),     # 64 divides 320
])
def test_chooser_picks_the_largest_half_l0_block(m, k, n, expected):
    assert choose_k(m, k, n, 2, 2, A2A3) == expected


def test_a_matmul_that_fits_is_left_alone():
    m = _matmul(32, 256, 64, dtype=b.FP32)   # 32 KiB + 64 KiB: fits L0A and L0B in full
    assert b.run_pass(PASS, m) == m


def test_legacy_body_is_the_if_ko_phi_of_the_real_compiler():
    assert _tiled(_matmul(128, 512, 128), "legacy") == (
        "c__l0_init: Tile[[128, 128], FP32, Acc] = tile.create([128, 128], dtype=FP32, target_memory=Mem.Acc)\n"
        "for c__l0_ko, (c__l0_c) <- (c__l0_init) in pipeline(0, 512, 128, stage=2) -> c:\n"
        "    c__l0_a: Tile[[128, 128], BF16, Left] = tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=Mem.Left)\n"
        "    c__l0_b: Tile[[128, 128], BF16, Right] = tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=Mem.Right)\n"
        "    if c__l0_ko == 0 -> c__l0_c_phi:\n"
        "        c__l0_c_first: Tile[[128, 128], FP32, Acc] = tile.matmul(c__l0_a, c__l0_b)\n"
        "        yield c__l0_c_first\n"
        "    else:\n"
        "        c__l0_c_acc: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b)\n"
        "        yield c__l0_c_acc\n"
        "    yield c__l0_c_phi\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_fixed_body_is_one_predicated_matmul_acc():
    assert _tiled(_matmul(128, 512, 128), "fixed") == (
        "c__l0_init: Tile[[128, 128], FP32, Acc] = tile.create([128, 128], dtype=FP32, target_memory=Mem.Acc)\n"
        "for c__l0_ko, (c__l0_c) <- (c__l0_init) in pipeline(0, 512, 128, stage=2) -> c:\n"
        "    c__l0_a: Tile[[128, 128], BF16, Left] = tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=Mem.Left)\n"
        "    c__l0_b: Tile[[128, 128], BF16, Right] = tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=Mem.Right)\n"
        "    c__l0_c_acc: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b, init_cond=c__l0_ko == 0)\n"
        "    yield c__l0_c_acc\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_fixed_biased_split_peels_the_first_block_before_a_uniform_loop():
    # K = 384 = 3 blocks of 128: an odd block count
    text = _tiled(_matmul(128, 384, 128, op="tile.matmul_bias", bias=True), "fixed")
    assert text == (
        "bias_mat: Tile[[1, 128], FP32, Mat] = tile.load(bias, [0, 0], [1, 128], target_memory=Mem.Mat)\n"
        "c__l0_a0: Tile[[128, 128], BF16, Left] = tile.extract(a_mat, 0, 0, [128, 128], target_memory=Mem.Left)\n"
        "c__l0_b0: Tile[[128, 128], BF16, Right] = tile.extract(b_mat, 0, 0, [128, 128], target_memory=Mem.Right)\n"
        "c__l0_c0: Tile[[128, 128], FP32, Acc] = tile.matmul_bias(c__l0_a0, c__l0_b0, bias_mat)\n"
        "for c__l0_ko, (c__l0_c) <- (c__l0_c0) in pipeline(128, 384, 128, stage=2) -> c:\n"
        "    c__l0_a: Tile[[128, 128], BF16, Left] = tile.extract(a_mat, 0, c__l0_ko, [128, 128], target_memory=Mem.Left)\n"
        "    c__l0_b: Tile[[128, 128], BF16, Right] = tile.extract(b_mat, c__l0_ko, 0, [128, 128], target_memory=Mem.Right)\n"
        "    c__l0_c_acc: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b)\n"
        "    yield c__l0_c_acc\n"
        "out = tile.store(c, [0, 0], out)\n"
        "return out\n")


def test_legacy_biased_split_keeps_the_branch():
    text = _tiled(_matmul(128, 384, 128, op="tile.matmul_bias", bias=True), "legacy")
    assert "if c__l0_ko == 0 -> c__l0_c_phi:" in text
    assert "c__l0_c_first: Tile[[128, 128], FP32, Acc] = tile.matmul_bias(c__l0_a, c__l0_b, bias_mat)" in text


def test_two_biased_blocks_and_a_tail_are_straight_line_in_fixed_mode():
    # K = 272: k = 128 (the divisor 16 is too small), two full blocks and a 16-wide tail
    text = _tiled(_matmul(128, 272, 128, op="tile.matmul_bias", bias=True), "fixed")
    assert "for " not in text
    assert "c__l0_c0: Tile[[128, 128], FP32, Acc] = tile.matmul_bias(c__l0_a0, c__l0_b0, bias_mat)" in text
    assert "c__l0_c1: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c0, c__l0_a1, c__l0_b1)" in text
    assert "c: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c1, c__l0_at, c__l0_bt)" in text


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_matmul_acc_input_carries_the_accumulator_uniformly(mode):
    text = _tiled(_matmul(128, 512, 128, op="tile.matmul_acc"), mode)
    assert "for c__l0_ko, (c__l0_c) <- (c0) in pipeline(0, 512, 128, stage=2) -> c:" in text
    assert "c__l0_c_acc: Tile[[128, 128], FP32, Acc] = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b)\n" in text
    assert "tile.create([128, 128], dtype=FP32, target_memory=Mem.Acc)" in text and "if " not in text


def test_predicated_matmul_acc_puts_the_predicate_on_the_first_block_in_fixed_mode():
    p = b.param("p", b.ScalarType(b.DType.BOOL))
    m = _matmul(16, 512, 256, op="tile.matmul_acc", init_cond=b.v("p"))
    m = b.kernel([*b.function(m).params, p], b.function(m).body)
    text = _tiled(m, "fixed")
    assert ("c__l0_c_acc: Tile[[16, 256], FP32, Acc] = tile.matmul_acc(c__l0_c, c__l0_a, c__l0_b, "
            "init_cond=(p and c__l0_ko == 0))") in text


def test_predicated_matmul_acc_is_rejected_for_capacity_in_legacy_mode():
    p = b.param("p", b.ScalarType(b.DType.BOOL))
    m = _matmul(16, 512, 256, op="tile.matmul_acc", init_cond=b.v("p"))
    m = b.kernel([*b.function(m).params, p], b.function(m).body)
    with pytest.raises(LoweringError) as error:
        PASS.run(m, b.options("legacy"))
    assert error.value.rule == "PV008" and "262144 bytes of L0B" in error.value.message


def test_non_divisor_k_gets_a_straight_line_tail():
    text = _tiled(_matmul(16, 272, 256), "fixed")
    assert "in pipeline(0, 256, 64, stage=2) -> c__l0_kmain:" in text
    assert ("c__l0_at: Tile[[16, 16], BF16, Left] = tile.extract(a_mat, 0, 256, [16, 16], target_memory=Mem.Left)"
            in text)
    assert "c: Tile[[16, 256], FP32, Acc] = tile.matmul_acc(c__l0_kmain, c__l0_at, c__l0_bt)" in text


def test_an_accumulator_larger_than_l0c_is_a_capacity_error_naming_the_sizes():
    with pytest.raises(LoweringError) as error:
        PASS.run(_matmul(256, 512, 256), b.options())
    assert error.value.rule == "PV008"
    assert "262144 bytes of L0C" in error.value.message and "131072" in error.value.message


def test_int8_accumulator_rows_pad_to_32_on_a2a3_only():
    # [16, 2048] INT32 pads to [32, 2048] = 256 KiB on a2a3 (too big), 128 KiB on a5 (fits)
    m = _matmul(16, 256, 2048, dtype=b.INT8)
    with pytest.raises(LoweringError):
        PASS.run(m, b.options(target="a2a3"))
    assert "for " in b.render(b.run_pass(PASS, m, target="a5"))


def test_operands_already_in_left_and_right_are_not_retiled():
    m = _matmul(128, 512, 128)
    fn = b.function(m)
    body = list(fn.body)
    body[0] = b.assign("a_mat", body[0].value, b.tile([128, 512], b.BF16, b.Left))
    body[1] = b.assign("b_mat", body[1].value, b.tile([512, 128], b.BF16, b.Right))
    manual = b.kernel(fn.params, body)
    assert b.run_pass(PASS, manual) == manual
