"""allocate-memory-addr: byte addresses in name order, 32-byte aligned; PV008 on overflow."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pypto_verify.ir import DType, MemRef, MemSpace
from pypto_verify.lowering.allocate_memory_addr import allocate_memory_addr
from pypto_verify.lowering.memory.memrefs import alloc_stmt
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
    acc2 = only_function(module).body[2]
    assert error.message == (f"L0C capacity: the Acc tiles live at line {acc2.span.line} need 196608 bytes, "
                             "a2a3 has 131072: `acc0` (65536 bytes) on mem_acc_1, `acc1` (65536 bytes) on "
                             "mem_acc_2, `acc2` (65536 bytes) on mem_acc_3")
    assert error.span.line == acc2.span.line  # acc2 is where L0C runs out
    assert len(error.windows) == 3 and len(error.notes) == 3


UB_PEAK = """
import pypto.language as pl


@pl.function
def ub_over(
    x: pl.Tensor[[128, 256], pl.FP32],
    s: pl.Tensor[[16, 256], pl.FP32],
    y: pl.Out[pl.Tensor[[128, 256], pl.FP32]],
    z: pl.Out[pl.Tensor[[16, 256], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="ub_over"):
        small = s[:, :]
        t = pl.exp(small)
        z[:, :] = t
        a = x[:, :]
        b = pl.exp(a)
        c = pl.add(b, a)
        y[:, :] = c
    return y, z
"""


def test_ub_overflow_names_the_values_live_at_the_peak_with_their_own_sizes() -> None:
    """`small` (16 KiB) opens the buffer `a` (128 KiB) later reuses: the finding is at the peak (`b`'s
    line), names `a` and `b` with their sizes, and says UB (not L0C)."""
    from pypto_verify.lowering.pipeline import lower as lower_all

    from .helpers import frontend

    result = lower_all(frontend().read_source(UB_PEAK, "ub_peak.py").module, LowerOptions(mode="fixed"))
    (error,) = result.errors
    b_line = UB_PEAK.splitlines().index("        b = pl.exp(a)") + 1
    assert error.rule == "PV008" and error.span.line == b_line
    assert error.message.startswith(f"UB capacity: the Vec tiles live at line {b_line} need 262144 bytes, "
                                    "a2a3 has 188416: `a` (131072 bytes) on mem_vec_")
    assert "`b` (131072 bytes) on mem_vec_" in error.message and "small" not in error.message
    assert error.values == ("a", "b") and all(w.size == 131072 for w in error.windows)


def test_a_footprint_over_capacity_whose_peak_fits_says_so() -> None:
    """Two 120000-byte Vec values that are never co-live but sit on separate buffers: the allocator's
    footprint is over, the peak is not, and the message tells them apart."""
    def vec(base: str):
        return replace(b.tile([1, 30000], DType.FP32, MemSpace.Vec), memref=MemRef(base, 0, 120000))

    def load(name: str, base: str):
        return b.let(name, b.call("tile.load", b.v("src"), b.lst(0, 0), b.lst(1, 30000),
                                  target_memory=b.mem(MemSpace.Vec)), vec(base))

    def store(name: str):
        return b.let("dst", b.call("tile.store", b.v(name), b.lst(0, 0), b.v("dst")), b.tensor([1, 30000]))

    fn = b.function("main", b.with_dirs([("src", b.tensor([1, 30000])), ("dst", b.tensor([1, 30000]))]), [
        alloc_stmt("mem_vec_1", MemSpace.Vec, 120000), alloc_stmt("mem_vec_2", MemSpace.Vec, 120000),
        load("t1", "mem_vec_1"), store("t1"), load("t2", "mem_vec_2"), store("t2"),
    ])
    with pytest.raises(LoweringError) as raised:
        allocate_memory_addr(fn, LowerOptions())
    message = raised.value.message
    assert message.startswith("UB capacity: the Vec buffers need 240000 bytes, a2a3 has 188416; at most "
                              "120000 bytes are live at once"), message


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
