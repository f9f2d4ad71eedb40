"""init-memref: one fresh root per value except the sharing rules, numbered as PyPTO numbers them."""

from __future__ import annotations

from pypto_verify.ir import Assign, Call, MemSpace, PtrType

from . import builders as b
from .helpers import lower, only_function, windows


def test_hand_peel_numbering_matches_real_ir_32() -> None:
    fn = only_function(lower(b.hand_peel(), "fixed", upto="init-memref"))
    allocs = [(s.target.name, s.value.args[1].value) for s in fn.body if isinstance(s, Assign)
              and isinstance(s.type, PtrType)]
    # real-ir hand_peel/32: the return vars `ph` (id 11) and `c` (id 12) spend an id and get no root
    assert allocs == [("mem_acc_3", 8192), ("mem_mat_4", 8192), ("mem_mat_5", 16384), ("mem_left_6", 8192),
                      ("mem_right_7", 16384), ("mem_acc_8", 8192), ("mem_left_9", 8192), ("mem_right_10", 16384)]
    assert [str(p.type.memref.window) for p in fn.params] == [
        "mem_ddr_0[0:32768]", "mem_ddr_1[0:65536]", "mem_ddr_2[0:8192]"]
    assert all(p.type.memref.quoted for p in fn.params)


def test_inplace_iter_arg_and_return_var_share_the_init() -> None:
    w = windows(only_function(lower(b.hand_peel(), "fixed", upto="init-memref")))
    assert w["x"] == w["c_iter"] == w["c_init"] == w["c"]  # matmul_acc arg 0; iter_arg; loop result
    assert w["ph"] == w["f"] != w["x"]  # the if's return var takes the then arm's buffer


def test_store_result_shares_its_tensor() -> None:
    fn = only_function(lower(b.hand_peel(), "fixed", upto="init-memref"))
    store = next(s for s in fn.body if isinstance(s, Assign) and isinstance(s.value, Call)
                 and s.value.op == "tile.store")
    assert store.type.memref == fn.params[2].type.memref


def test_int32_acc_rows_pad_to_32_on_a2a3() -> None:
    from pypto_verify.ir import DType

    m = b.module(b.function("main", b.with_dirs([("out", b.tensor([16, 64], DType.INT32))]), [
        b.let("c", b.call("tile.create", b.lst(16, 64), dtype=b.sym("INT32"), target_memory=b.mem(MemSpace.Acc)),
              b.tile([16, 64], DType.INT32)),
    ]))
    assert windows(only_function(lower(m, "fixed", upto="init-memref")))["c"].size == 32 * 64 * 4


def test_identity_copy_of_an_iter_arg_is_a_fresh_buffer_in_legacy_only() -> None:
    m = b.iter_arg_copy()
    legacy = windows(only_function(lower(m, "legacy", upto="init-memref")))
    fixed = windows(only_function(lower(m, "fixed", upto="init-memref")))
    assert legacy["copy"] != legacy["c_iter"]  # UNSOUND: PyPTO's `As<Var>` misses the IterArg
    assert fixed["copy"] == fixed["c_iter"]
