"""convert-tensor-to-tile-ops: Form 1 becomes tile ops like real-ir/tensor_proj/11."""

import lowering_builders as b

from pypto_verify.ir import LoopKind, Sym
from pypto_verify.lowering.convert_tensor_to_tile_ops import PASS

X = b.param("x", b.tensor([16, 2048], b.BF16))
W = b.param("w", b.tensor([256, 2048], b.BF16))
Y = b.param("y", b.tensor([16, 256], b.FP32))


def tensor_proj():
    """real-ir/tensor_proj/source.py as the frontend reads it."""
    body = [b.scope([
        b.assign("acc", b.call("tensor.create", [16, 256], dtype=b.dt(b.FP32))),
        b.for_("kb", 0, 8, 1, [
            b.assign("k0", b.mul(b.v("kb"), 256)),
            b.assign("xa", b.call("tensor.slice", b.v("x"), [16, 256], [0, b.v("k0")])),
            b.assign("wb", b.call("tensor.slice", b.v("w"), [256, 256], [0, b.v("k0")])),
            b.if_(b.eq(b.v("k0"), 0),
                  [b.assign("acc__ssa_v3", b.call("tensor.matmul", b.v("xa"), b.v("wb"), b_trans=True,
                                                  out_dtype=b.dt(b.FP32))), b.yield_(b.v("acc__ssa_v3"))],
                  [b.assign("acc__ssa_v4", b.call("tensor.matmul_acc", b.it("acc__iter_v1"), b.v("xa"), b.v("wb"),
                                                  b_trans=True)), b.yield_(b.v("acc__ssa_v4"))],
                  rvs=["acc__phi_v5"]),
            b.yield_(b.v("acc__phi_v5"))],
            iter_args=["acc__iter_v1"], inits=[b.v("acc")], rvs=["acc__rv_v2"], kind=LoopKind.PIPELINE, stage=2),
        b.assign("y", b.call("tensor.assemble", b.v("y"), b.v("acc__rv_v2"), [0, 0])),
    ], level=Sym("Level.CORE_GROUP"), name_hint="proj"), b.ret(b.v("y"))]
    return b.kernel([X, W, Y], body, name="proj", kind=b.FunctionKind.OPAQUE, program=None, decorator="jit")


def test_tensor_proj_converts_like_the_real_compiler():
    assert b.render(b.run_pass(PASS, tensor_proj())) == (
        "with at(level=Level.CORE_GROUP, name_hint='proj'):\n"
        "    acc: Tile[[16, 256], FP32, Vec] = tile.create([16, 256], dtype=FP32, target_memory=Mem.Vec)\n"
        "    for kb, (acc__iter_v1) <- (acc) in pipeline(0, 8, 1, stage=2) -> acc__rv_v2:\n"
        "        k0 = (kb * 256)\n"
        "        xa: Tile[[16, 256], BF16, Mat] = tile.load(x, [0, k0], [16, 256], [16, 256], target_memory=Mem.Mat)\n"
        "        wb: Tile[[256, 256], BF16, Mat] = tile.load(w, [0, k0], [256, 256], [256, 256], target_memory=Mem.Mat)\n"
        "        if k0 == 0 -> acc__phi_v5:\n"
        "            wb_t: Tile[[256, 256], BF16, Mat] = tile.transpose_view(wb)\n"
        "            acc__ssa_v3: Tile[[16, 256], FP32, Acc] = tile.matmul(xa, wb_t)\n"
        "            yield acc__ssa_v3\n"
        "        else:\n"
        "            wb_t_1: Tile[[256, 256], BF16, Mat] = tile.transpose_view(wb)\n"
        "            acc__ssa_v4: Tile[[16, 256], FP32, Acc] = tile.matmul_acc(acc__iter_v1, xa, wb_t_1)\n"
        "            yield acc__ssa_v4\n"
        "        yield acc__phi_v5\n"
        "    y = tile.store(acc__rv_v2, [0, 0], y)\n"
        "return y\n")


def test_loop_and_phi_return_types_become_tiles():
    fn = b.function(b.run_pass(PASS, tensor_proj()))
    loop = fn.body[0].body[1]
    assert loop.return_types == (b.tile([16, 256], b.FP32, b.Vec),)
    assert loop.body[-2].return_types == (b.tile([16, 256], b.FP32, b.Acc),)


def test_three_d_operand_keeps_its_addressing_and_drops_the_unit_dim_from_the_tile():
    we = b.param("we", b.tensor([8, 64, 256], b.BF16))
    y3 = b.param("y3", b.tensor([8, 16, 64], b.FP32))
    xs = b.param("xs", b.tensor([16, 256], b.BF16))
    m = b.kernel([xs, we, y3, b.param("e", b.ScalarType(b.DType.INDEX))], [
        b.assign("xa", b.call("tensor.slice", b.v("xs"), [16, 256], [0, 0])),
        b.assign("wb", b.call("tensor.slice", b.v("we"), [1, 64, 256], [b.v("e"), 0, 0])),
        b.assign("c", b.call("tensor.matmul", b.v("xa"), b.v("wb"), b_trans=True, out_dtype=b.dt(b.FP32))),
        b.assign("c2", b.call("tensor.reshape", b.v("c"), [1, 16, 64])),
        b.assign("y3", b.call("tensor.assemble", b.v("y3"), b.v("c2"), [b.v("e"), 0, 0])),
        b.ret(b.v("y3"))], kind=b.FunctionKind.OPAQUE)
    assert b.render(b.run_pass(PASS, m)) == (
        "xa: Tile[[16, 256], BF16, Mat] = tile.load(xs, [0, 0], [16, 256], [16, 256], target_memory=Mem.Mat)\n"
        "wb: Tile[[64, 256], BF16, Mat] = tile.load(we, [e, 0, 0], [1, 64, 256], [1, 64, 256], target_memory=Mem.Mat)\n"
        "wb_t: Tile[[256, 64], BF16, Mat] = tile.transpose_view(wb)\n"
        "c: Tile[[16, 64], FP32, Acc] = tile.matmul(xa, wb_t)\n"
        "y3 = tile.store(c, [e, 0, 0], y3)\n"
        "return y3\n")


def test_cast_and_vector_ops_become_vec_tile_ops_and_atomic_assemble_keeps_its_kwarg():
    bias = b.param("bias", b.tensor([16, 64], b.FP32))
    y16 = b.param("y16", b.tensor([16, 64], b.BF16))
    xs = b.param("xs", b.tensor([16, 64], b.BF16))
    ws = b.param("ws", b.tensor([64, 64], b.BF16))
    m = b.kernel([xs, ws, bias, y16], [
        b.assign("c", b.call("tensor.matmul", b.v("xs"), b.v("ws"), out_dtype=b.dt(b.FP32))),
        b.assign("d", b.call("tensor.add", b.v("c"), b.v("bias"))),
        b.assign("e", b.call("tensor.cast", b.v("d"), target_type=b.dt(b.BF16), mode="rint")),
        b.assign("y16", b.call("tensor.assemble", b.v("y16"), b.v("e"), [0, 0], atomic=Sym("AtomicType.Add"))),
        b.ret(b.v("y16"))], kind=b.FunctionKind.OPAQUE)
    assert b.render(b.run_pass(PASS, m)) == (
        "xs__mat: Tile[[16, 64], BF16, Mat] = tile.load(xs, [0, 0], [16, 64], [16, 64], target_memory=Mem.Mat)\n"
        "ws__mat: Tile[[64, 64], BF16, Mat] = tile.load(ws, [0, 0], [64, 64], [64, 64], target_memory=Mem.Mat)\n"
        "c: Tile[[16, 64], FP32, Acc] = tile.matmul(xs__mat, ws__mat)\n"
        "bias__tile: Tile[[16, 64], FP32, Vec] = tile.load(bias, [0, 0], [16, 64], [16, 64], target_memory=Mem.Vec)\n"
        "d: Tile[[16, 64], FP32, Vec] = tile.add(c, bias__tile)\n"
        "e: Tile[[16, 64], BF16, Vec] = tile.cast(d, target_type=BF16, mode='rint')\n"
        "y16 = tile.store(e, [0, 0], y16, atomic=AtomicType.Add)\n"
        "return y16\n")


def test_a_create_used_as_gm_stays_a_tensor():
    m = b.kernel([X, Y], [
        b.assign("scratch", b.call("tensor.create", [16, 256], dtype=b.dt(b.BF16))),
        b.assign("part", b.call("tensor.slice", b.v("x"), [16, 256], [0, 0])),
        b.assign("scratch", b.call("tensor.assemble", b.v("scratch"), b.v("part"), [0, 0])),
        b.ret(b.v("y"))])
    assert b.render(b.run_pass(PASS, m)) == (
        "scratch = tensor.create([16, 256], dtype=BF16)\n"
        "part: Tile[[16, 256], BF16, Vec] = tile.load(x, [0, 0], [16, 256], [16, 256], target_memory=Mem.Vec)\n"
        "scratch = tile.store(part, [0, 0], scratch)\n"
        "return y\n")


def test_a_sliced_computed_value_stays_a_tile_and_its_slices_are_tile_slices():
    """a8w8_qk_rope: `qf = pl.mul(...)` then `qf[:, 0:64]` — a vector result that is sliced is not a GM
    tensor (no `tile.load` from it, and the op that makes it is converted)."""
    xs = b.param("xs", b.tensor([16, 128], b.FP32))
    ys = b.param("ys", b.tensor([16, 64], b.FP32))
    m = b.kernel([xs, ys], [
        b.assign("qf", b.call("tensor.mul", b.v("xs"), 0.5), b.tensor([16, 128], b.FP32)),
        b.assign("lo", b.call("tensor.slice", b.v("qf"), [16, 64], [0, 0]), b.tensor([16, 64], b.FP32)),
        b.assign("hi", b.call("tensor.slice", b.v("qf"), [16, 64], [0, 64]), b.tensor([16, 64], b.FP32)),
        b.assign("s", b.call("tensor.add", b.v("lo"), b.v("hi")), b.tensor([16, 64], b.FP32)),
        b.assign("ys", b.call("tensor.assemble", b.v("ys"), b.v("s"), [0, 0])),
        b.ret(b.v("ys"))])
    assert b.render(b.run_pass(PASS, m)) == (
        "xs__tile: Tile[[16, 128], FP32, Vec] = tile.load(xs, [0, 0], [16, 128], [16, 128], target_memory=Mem.Vec)\n"
        "qf: Tile[[16, 128], FP32, Vec] = tile.mul(xs__tile, 0.5)\n"
        "lo: Tile[[16, 64], FP32, Vec] = tile.slice(qf, [16, 64], [0, 0])\n"
        "hi: Tile[[16, 64], FP32, Vec] = tile.slice(qf, [16, 64], [0, 64])\n"
        "s: Tile[[16, 64], FP32, Vec] = tile.add(lo, hi)\n"
        "ys = tile.store(s, [0, 0], ys)\n"
        "return ys\n")


def test_tile_level_functions_are_unchanged():
    m = b.kernel([X], [b.assign("t", b.call("tile.load", b.v("x"), [0, 0], [16, 16], target_memory=b.mem(b.Mat)),
                                    b.tile([16, 16], b.BF16, b.Mat)), b.ret()])
    assert b.run_pass(PASS, m) == m


def test_glue_functions_are_not_converted():
    glue = b.kernel([X, Y], [b.assign("t", b.call("tensor.create", [16, 256], dtype=b.dt(b.BF16))), b.ret(b.v("y"))],
                    kind=b.FunctionKind.ORCHESTRATION)
    assert PASS.run(glue, b.options()) == glue
