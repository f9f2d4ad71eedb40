"""InCore scopes as PyPTO outlines them (`lowering/incore_scopes.py`): a tensor made, viewed, written or
handed to a submitted kernel at orchestration level stays in GM, and the on-chip spaces are checked per
InCore scope (the buffers of two scopes never co-live). Kernels of our own, in the library's style."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pypto_verify.ir import (
    Assign, Call, DType, For, FunctionKind, LoopKind, MemRef, MemSpace, Scope, TileType, walk_stmts,
)
from pypto_verify.lowering.allocate_memory_addr import allocate_memory_addr
from pypto_verify.lowering.incore_scopes import has_orchestration_level, orchestration_names
from pypto_verify.lowering.memory.memrefs import alloc_stmt
from pypto_verify.lowering.pass_base import LowerOptions, LoweringError
from pypto_verify.run import Options, Stage, run_work

from . import builders as b
from .helpers import windows

# ---------------------------------------------------------------------------------------------- kernels

ORCH_VIEW = """
import pypto.language as pl

NODES = 4
ROWS = 64
WIDE = 8192
TILE_ROWS = 16
K_STEP = 128
N_OUT = 64


@pl.function(type=pl.FunctionType.Opaque)
def gather_proj(
    mailbox: pl.Tensor[[NODES, ROWS, WIDE], pl.BF16],
    w: pl.Tensor[[WIDE, N_OUT], pl.BF16],
    out: pl.Out[pl.Tensor[[ROWS, N_OUT], pl.FP32]],
) -> pl.Tensor[[ROWS, N_OUT], pl.FP32]:
    for r0 in pl.range(0, ROWS, TILE_ROWS):
        box_3d = pl.slice(mailbox, [1, TILE_ROWS, WIDE], [2, r0, 0])
        box = pl.reshape(box_3d, [TILE_ROWS, WIDE])
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul(pl.slice(box, [TILE_ROWS, K_STEP], [0, 0]), pl.slice(w, [K_STEP, N_OUT], [0, 0]),
                            out_dtype=pl.FP32)
            for kb in pl.range(1, WIDE // K_STEP):
                k0 = kb * K_STEP
                acc = pl.matmul_acc(acc, pl.slice(box, [TILE_ROWS, K_STEP], [0, k0]),
                                    pl.slice(w, [K_STEP, N_OUT], [k0, 0]))
            out = pl.assemble(out, acc, [r0, 0])
    return out
"""
"""An orchestration-level `pl.slice` of a GM tensor, reshaped: a 256 KiB GM view, never a Vec tile."""

ORCH_CREATE = """
import pypto.language as pl

TOKENS = 32
HEADS = 32
DIM = 128
HEAD_TILE = 16


@pl.function(type=pl.FunctionType.Opaque)
def merge_heads(
    partial: pl.Tensor[[TOKENS * HEADS, DIM], pl.FP32],
    wo: pl.Tensor[[DIM, DIM], pl.BF16],
    out: pl.Out[pl.Tensor[[TOKENS, HEADS * DIM], pl.BF16]],
) -> pl.Tensor[[TOKENS, HEADS * DIM], pl.BF16]:
    heads = pl.create_tensor([TOKENS, HEADS, DIM], dtype=pl.BF16)
    heads_flat = pl.reshape(heads, [TOKENS * HEADS, DIM])
    for blk in pl.spmd(TOKENS * (HEADS // HEAD_TILE), name_hint="merge"):
        row = blk * HEAD_TILE
        part = partial[row : row + HEAD_TILE, :]
        scaled = pl.mul(part, 0.5)
        heads_flat[row : row + HEAD_TILE, :] = pl.cast(scaled, target_type=pl.BF16)
    rows = pl.reshape(heads, [TOKENS, HEADS * DIM])
    for t in pl.spmd(TOKENS // 16, name_hint="proj"):
        lhs = rows[t * 16 : t * 16 + 16, 0:DIM]
        acc = pl.matmul(lhs, wo, out_dtype=pl.FP32)
        out[t * 16 : t * 16 + 16, 0:DIM] = pl.cast(acc, target_type=pl.BF16)
    return out
"""
"""An orchestration-level `pl.create_tensor` written through one reshape view in one `pl.spmd` scope and
read through another in the next: 256 KiB in GM, not two Mat buffers."""

SUBMIT = """
import pypto.language as pl

TOKENS = 16
WIDTH = 8192
CHUNK = 512


@pl.jit.incore
def add_rows(
    a: pl.Tensor[[TOKENS, WIDTH], pl.BF16],
    b: pl.Tensor[[TOKENS, WIDTH], pl.BF16],
    summed: pl.Out[pl.Tensor[[TOKENS, WIDTH], pl.BF16]],
):
    t = pl.tile.get_block_idx()
    for c0 in pl.range(0, WIDTH, CHUNK):
        lhs = pl.cast(a[t : t + 1, c0 : c0 + CHUNK], target_type=pl.FP32)
        rhs = pl.cast(b[t : t + 1, c0 : c0 + CHUNK], target_type=pl.FP32)
        summed[t : t + 1, c0 : c0 + CHUNK] = pl.cast(pl.add(lhs, rhs), target_type=pl.BF16)
    return summed


@pl.jit
def add_then_project(
    a: pl.Tensor[[TOKENS, WIDTH], pl.BF16],
    b: pl.Tensor[[TOKENS, WIDTH], pl.BF16],
    w: pl.Tensor[[CHUNK, 64], pl.BF16],
    out: pl.Out[pl.Tensor[[TOKENS, 64], pl.FP32]],
):
    summed = pl.create_tensor([TOKENS, WIDTH], dtype=pl.BF16)
    summed, add_tid = pl.spmd_submit(self.add_rows, a, b, summed, core_num=TOKENS)
    acc = pl.matmul(a[:, 0:CHUNK], w, out_dtype=pl.FP32)
    out[:, :] = acc
    return out
"""
"""The tensors handed to a kernel by `pl.spmd_submit` (and its results) are GM, not 256 KiB Vec tiles."""

SCOPE_OVER = """
import pypto.language as pl


@pl.function(type=pl.FunctionType.Opaque)
def two_wide_rows(
    x: pl.Tensor[[128, 256], pl.FP32],
    q: pl.Tensor[[16, 128], pl.BF16],
    w: pl.Tensor[[128, 64], pl.BF16],
    y: pl.Out[pl.Tensor[[128, 256], pl.FP32]],
    z: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
) -> pl.Tensor[[128, 256], pl.FP32]:
    staged = pl.create_tensor([128, 256], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide"):
        a = x[:, :]
        e = pl.exp(a)
        s = pl.add(e, a)
        staged[:, :] = s
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        y[:, :] = staged[:, :]
        z[:, :] = pl.matmul(q, w, out_dtype=pl.FP32)
    return y
"""
"""Two 128 KiB Vec tiles live at once inside one InCore scope: a real UB overflow, still PV008."""


def _lower(tmp_path: Path, text: str, name: str = "kernel.py"):
    path = tmp_path / name
    path.write_text(text)
    (work,) = run_work([str(path)], Options(cache=False, jobs=1), (Stage.READ, Stage.LOWER))
    return work


def _assign(fn, name: str) -> Assign:
    return next(s for s in walk_stmts(fn.body) if isinstance(s, Assign) and s.target.name == name)


# ---------------------------------------------------------------------------------------------- GM decision


@pytest.mark.parametrize(("text", "gm"), [
    (ORCH_VIEW, ("box_3d", "box")),
    (ORCH_CREATE, ("heads", "heads_flat", "rows")),
    (SUBMIT, ("summed",)),
], ids=["orchestration-slice-view", "orchestration-create", "spmd-submit-argument"])
def test_an_orchestration_level_tensor_stays_in_gm(tmp_path: Path, text: str, gm: tuple[str, ...]) -> None:
    work = _lower(tmp_path, text)
    assert [f.rule.id for f in work.findings] == [], [f.message for f in work.findings]
    (kernel,) = [k for k in work.kernels if k.lowered is not None and k.function != "add_rows"]
    for name in gm:
        stmt = _assign(kernel.lowered, name)
        assert isinstance(stmt.value, Call) and stmt.value.op.startswith("tensor."), (name, stmt)
        assert not isinstance(stmt.type, TileType), (name, stmt.type)


def test_the_orchestration_level_is_what_no_incore_scope_holds(tmp_path: Path) -> None:
    from pypto_verify.frontend import read_file

    path = tmp_path / "k.py"
    path.write_text(ORCH_CREATE)
    (fn,) = [f for _, f in read_file(path).module.functions()]
    assert has_orchestration_level(fn)
    names = {n.split("__")[0] for n in orchestration_names(fn)}
    assert {"heads", "heads_flat", "rows"} <= names
    assert not {"part", "scaled", "lhs", "acc"} & names
    assert not has_orchestration_level(replace(fn, kind=FunctionKind.INCORE))


def test_a_ub_overflow_inside_one_incore_scope_is_still_pv008(tmp_path: Path) -> None:
    work = _lower(tmp_path, SCOPE_OVER)
    (finding,) = work.findings
    assert finding.rule.id == "PV008"
    assert finding.message.startswith("UB capacity: the Vec tiles live at line "), finding.message
    assert "`a` (131072 bytes)" in finding.message and "`e` (131072 bytes)" in finding.message


# ---------------------------------------------------------------------------------------------- per-scope capacity


def _vec(base: str, size: int = 120000) -> TileType:
    return replace(b.tile([1, size // 4], DType.FP32, MemSpace.Vec), memref=MemRef(base, 0, size))


def _load(name: str, base: str, size: int = 120000) -> Assign:
    return b.let(name, b.call("tile.load", b.v("src"), b.lst(0, 0), b.lst(1, size // 4),
                              target_memory=b.mem(MemSpace.Vec)), _vec(base, size))


def _store(name: str) -> Assign:
    return b.let("dst", b.call("tile.store", b.v(name), b.lst(0, 0), b.v("dst")), b.tensor([1, 30000]))


def _core_group(*body) -> Scope:
    return Scope(Call("at", (), (("level", b.sym("Level.CORE_GROUP")),)), tuple(body), span=b.span())


def _two_scopes(kind: FunctionKind, cross: bool = False):
    params = b.with_dirs([("src", b.tensor([1, 30000])), ("dst", b.tensor([1, 30000]))])
    first = [_load("t1", "mem_vec_1"), _store("t1")]
    if cross:
        first.append(_load("kept", "mem_vec_3", 32768))
    second = [_load("t2", "mem_vec_2"), _store("t2")] + ([_store("kept")] if cross else [])
    fn = b.function("main", params, [
        alloc_stmt("mem_vec_1", MemSpace.Vec, 120000), alloc_stmt("mem_vec_2", MemSpace.Vec, 120000),
        *([alloc_stmt("mem_vec_3", MemSpace.Vec, 32768)] if cross else []),
        _core_group(*first), _core_group(*second),
    ])
    return replace(fn, kind=kind)


def test_the_buffers_of_two_incore_scopes_never_co_live() -> None:
    """120000 bytes of Vec in each of two scopes: each outlined function has them to itself."""
    w = windows(allocate_memory_addr(_two_scopes(FunctionKind.OPAQUE), LowerOptions()))
    assert (str(w["t1"]), str(w["t2"])) == ("mem_vec_1[0:120000]", "mem_vec_2[0:120000]")


def test_one_core_function_with_the_same_buffers_still_overflows() -> None:
    """The same body in an InCore function is one region: 240000 bytes of UB, PV008 as before."""
    with pytest.raises(LoweringError) as raised:
        allocate_memory_addr(_two_scopes(FunctionKind.INCORE), LowerOptions())
    assert raised.value.rule == "PV008"
    assert raised.value.message.startswith("UB capacity: the Vec buffers need 240000 bytes, a2a3 has 188416")


def test_a_tile_crossing_two_scopes_shares_bytes_with_neither() -> None:
    """`kept` is loaded in the first scope and stored in the second: it is live in both, so it sits
    beside the buffers of both (and each scope's 120000 + 32768 bytes still fit)."""
    w = windows(allocate_memory_addr(_two_scopes(FunctionKind.OPAQUE, cross=True), LowerOptions()))
    kept = w["kept"]
    for other in (w["t1"], w["t2"]):
        assert kept.offset >= other.offset + other.size or other.offset >= kept.offset + kept.size, (kept, other)


def test_an_overflowing_scope_is_named_by_a_line_it_holds() -> None:
    """Three 120000-byte buffers on their own in one of two scopes, never co-live: the footprint of that
    scope is over, the peak is not, and the message says which scope."""
    fn = _two_scopes(FunctionKind.OPAQUE)
    u1 = _load("u1", "mem_vec_4")
    extra = _core_group(u1, _store("u1"), _load("u2", "mem_vec_5"), _store("u2"))
    fn = replace(fn, body=(*fn.body, alloc_stmt("mem_vec_4", MemSpace.Vec, 120000),
                           alloc_stmt("mem_vec_5", MemSpace.Vec, 120000), extra))
    with pytest.raises(LoweringError) as raised:
        allocate_memory_addr(fn, LowerOptions())
    line = u1.span.line
    assert raised.value.message.startswith(f"UB capacity: the Vec buffers of the InCore scope holding line {line} "
                                           "need 240000 bytes, a2a3 has 188416; at most 120000 bytes are live"), \
        raised.value.message


def test_a_pl_spmd_loop_body_is_an_incore_scope() -> None:
    fn = _two_scopes(FunctionKind.OPAQUE)
    first, second = fn.body[2], fn.body[3]
    spmd = For(b.v("i"), b.c(0), b.c(4), b.c(1), (), (), first.body, (), (), kind=LoopKind.SPMD, span=b.span())
    fn = replace(fn, body=(*fn.body[:2], spmd, second))
    w = windows(allocate_memory_addr(fn, LowerOptions()))
    assert (w["t1"].offset, w["t2"].offset) == (0, 0)
