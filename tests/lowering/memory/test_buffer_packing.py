"""Lifetime-based sharing (memory-reuse step 1-2): who may take whose buffer."""

from __future__ import annotations

from pypto_verify.ir import DType, MemSpace

from . import builders as b
from .helpers import lower, only_function, windows

VEC = b.tile([32, 64], space=MemSpace.Vec)
MAT = b.tile([32, 64], space=MemSpace.Mat)


def reused(body, mode: str = "fixed"):
    return windows(only_function(lower(b.kernel(body), mode, upto="memory-reuse")))


def load(name: str, space: MemSpace = MemSpace.Vec, k: int = 0, membership: str | None = None):
    kwargs = {"target_memory": b.mem(space)}
    if membership:
        kwargs["attrs"] = b.attrs(membership)
    return b.let(name, b.call("tile.load", b.v("lhs"), b.lst(0, k), b.lst(32, 64), **kwargs),
                 VEC if space is MemSpace.Vec else MAT)


def exp(name: str, source: str):
    return b.let(name, b.call("tile.exp", b.v(source)), VEC)


def test_disjoint_lifetimes_share_and_overlapping_ones_do_not() -> None:
    w = reused([load("t0"), exp("t1", "t0"), load("t2"), exp("t3", "t2"), b.store("t1"), b.store("t3", "out")])
    assert w["t1"] == w["t0"]  # t0 dies where t1 is made
    assert w["t2"] != w["t1"]  # t1 is still to be stored when t2 is loaded
    assert w["t3"] == w["t2"]
    w = reused([load("t0"), exp("t1", "t0"), b.store("t1"), load("t2"), b.store("t2")])
    assert w["t2"] == w["t0"]  # everything on t0's buffer is dead before t2


def test_touching_lifetimes_share_except_for_a_move() -> None:
    w = reused([load("t0"), exp("t1", "t0"), b.store("t1")])
    assert w["t1"] == w["t0"]  # the input is read before the output is written
    w = reused([load("t0"), b.let("m", b.call("tile.move", b.v("t0"), target_memory=b.mem(MemSpace.Vec)), VEC),
                b.store("m")])
    assert w["m"] != w["t0"]  # tile.move is not in-place safe


def test_spaces_never_share() -> None:
    w = reused([load("t0"), exp("t1", "t0"), b.store("t1"), load("m0", MemSpace.Mat),
                b.let("t2", b.call("tile.move", b.v("m0"), target_memory=b.mem(MemSpace.Vec)), VEC), b.store("t2")])
    assert w["m0"].base.startswith("mem_mat") and w["t1"].base.startswith("mem_vec")


def test_a_value_used_inside_a_loop_lives_to_the_loop_end() -> None:
    w = reused([
        load("outer"),
        b.loop("k", 0, 4, 1, [], [exp("inner", "outer"), b.store("inner")], []),
        load("after"),
        b.store("after"),
    ])
    assert w["after"] == w["outer"]  # after the loop, `outer` is dead
    body = [load("outer"), b.loop("k", 0, 4, 1, [], [load("first"), exp("inner", "outer"), b.store("inner"),
                                                      b.store("first")], [])]
    w = reused(body)
    assert w["first"] != w["outer"]  # inside the loop it is not


def test_pipeline_clones_of_loads_stay_apart_but_fit_by_shedding() -> None:
    # two Mat loads of stage 0 and 1 of one group: kept apart (double buffering fits L1)
    w = reused([load("s0", MemSpace.Mat, 0, "0:0"),
                b.let("v0", b.call("tile.move", b.v("s0"), target_memory=b.mem(MemSpace.Vec)), VEC),
                load("s1", MemSpace.Mat, 64, "0:1"),
                b.let("v1", b.call("tile.move", b.v("s1"), target_memory=b.mem(MemSpace.Vec)), VEC),
                b.store("v0"), b.store("v1", "out")])
    assert w["s0"] != w["s1"]


def test_pipeline_depth_is_lowered_until_the_space_fits() -> None:
    # four stages of a 48 KiB Left tile cannot be 4-deep in a 64 KiB L0A: the group sheds to depth 1
    left = b.tile([192, 64], DType.FP32, MemSpace.Left)
    mat = b.tile([192, 64], DType.FP32, MemSpace.Mat)
    body = []
    for s in range(4):
        body += [b.let(f"m{s}", b.call("tile.load", b.v("lhs"), b.lst(0, 0), b.lst(192, 64), target_memory=b.mem(MemSpace.Mat),
                                       attrs=b.attrs(f"0:{s}")), mat),
                 b.let(f"l{s}", b.call("tile.move", b.v(f"m{s}"), target_memory=b.mem(MemSpace.Left),
                                       attrs=b.attrs(f"0:{s}")), left),
                 b.let(f"r{s}", b.call("tile.move", b.v(f"l{s}"), target_memory=b.mem(MemSpace.Mat)), mat)]
    body.append(b.store("r3"))
    w = reused(body)
    assert len({w[f"l{s}"] for s in range(4)}) == 1
    assert len({w[f"m{s}"] for s in range(4)}) >= 2  # L1 holds the requested depth


def test_pipeline_membership_is_stripped() -> None:
    fn = only_function(lower(b.kernel([load("s0", MemSpace.Vec, 0, "0:0"), b.store("s0")]), "fixed",
                             upto="memory-reuse"))
    assert "pipeline_membership" not in repr(fn.body)


def test_unused_roots_are_dropped() -> None:
    fn = only_function(lower(b.kernel([load("t0"), exp("t1", "t0"), b.store("t1")]), "fixed", upto="memory-reuse"))
    roots = [s.target.name for s in fn.body if getattr(s, "target", None) and s.target.name.startswith("mem_")]
    assert roots == [windows(fn)["t0"].base]
