"""allocate-memory-addr: byte addresses in name order, 32-byte aligned; PV008 on overflow."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import DType, MemRef, MemSpace
from pypto_verify.lowering.allocate_memory_addr import allocate_memory_addr
from pypto_verify.lowering.memrefs import alloc_stmt
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError

from . import builders as b
from .helpers import lower, only_function, windows


def test_hand_peel_addresses_match_real_ir_35() -> None:
    w = windows(only_function(lower(b.hand_peel(), "legacy")))
    assert (str(w["ma"]), str(w["mb"])) == ("mem_mat_4[0:8192]", "mem_mat_5[8192:24576]")
    assert str(w["c"]) == "mem_acc_3[0:8192]"


def test_roots_are_placed_in_string_order_of_their_names_and_aligned() -> None:
    def vec(shape, base: str, size: int):
        return replace(b.tile(shape, DType.FP32, MemSpace.Vec), memref=MemRef(base, 0, size))

    fn = b.function("main", b.with_dirs([("lhs", b.tensor([1, 5]))]), [
        alloc_stmt("mem_vec_7", MemSpace.Vec, 20), alloc_stmt("mem_vec_10", MemSpace.Vec, 256),
        b.let("t7", b.call("tile.load", b.v("lhs"), b.lst(0, 0), b.lst(1, 5), target_memory=b.mem(MemSpace.Vec)),
              vec([1, 5], "mem_vec_7", 20)),
        b.let("t10", b.call("tile.exp", b.v("t7")),
              vec([8, 8], "mem_vec_10", 256)),
    ])
    w = windows(allocate_memory_addr(fn, LowerOptions()))
    # `mem_vec_10` sorts before `mem_vec_7` (PyPTO sorts MemRefs by name), and 256 is already aligned
    assert (str(w["t10"]), str(w["t7"])) == ("mem_vec_10[0:256]", "mem_vec_7[256:276]")


def test_l0c_overflow_is_pv008_naming_the_co_live_tiles() -> None:
    module = b.l0c_overflow()
    with pytest.raises(LoweringError) as raised:
        lower(module, "fixed")
    error = raised.value
    assert error.rule == "PV008"
    assert error.message == ("L0C capacity: co-live Acc tiles need 196608 bytes, a2a3 has 131072: "
                             "`acc0` mem_acc_1 (65536), `acc1` mem_acc_2 (65536), `acc2` mem_acc_3 (65536)")
    acc2 = only_function(module).body[2]
    assert error.span.line == acc2.span.line  # acc2 is where L0C runs out
    assert len(error.windows) == 3 and len(error.notes) == 3


def test_a5_has_room_for_what_a2a3_refuses() -> None:
    from pypto_verify.target import TARGETS
    from pypto_verify.lowering.init_memref import PASS as INIT
    from pypto_verify.lowering.materialize_semantic_aliases import PASS as MSA
    from pypto_verify.lowering.memory_reuse import PASS as MR
    from pypto_verify.lowering.allocate_memory_addr import PASS as AMA

    module = b.l0c_overflow()
    options = LowerOptions(mode="fixed", target=TARGETS["a5"])
    for p in (INIT, MSA, MR, AMA):
        module = p.run(module, options)
    assert len({w.base for w in windows(only_function(module), MemSpace.Acc).values()}) == 3
