"""The ops and dtypes pypto-lib kernels use (issue 13): each kernel of `kernels/` is checked whole."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, run

KERNELS = Path(__file__).parent / "kernels"


def _check(name: str):
    result = run([str(KERNELS / name)], Options(cache=False, jobs=1, sim=False))
    (checked,) = result.files
    return checked


def test_an_unsigned_dtype_is_modelled():
    """`pl.UINT8` codes cast on the vector unit feed a matmul: the chain is traced and verified (before,
    the dtype was left open, the matmul operand had no type: PV000)."""
    checked = _check("unsigned_codes.py")
    assert [(k.name, k.verdict) for k in checked.kernels] == [("unpack_rotate", "verified"),
                                                             ("unpack_inline", "verified")], checked.findings


def test_an_operand_computed_inline_is_traced():
    """`pl.matmul(pl.cast(x, ...), w)`: the source's inline cast and the lowering's hoisted one are one
    opaque root (named by the call's position), so PV105 compares real blocks, not step indices."""
    from pypto_verify.frontend import read_file
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.smt import sites

    source = read_file(KERNELS / "unsigned_codes.py").module
    lowered = lower(source, LowerOptions(mode="fixed")).module
    for module in (source, lowered):
        (site,) = [s for s in sites.extract_sites(module) if s.function == "unpack_inline"]
        (mad,) = site.mads
        assert mad.lhs is not None and mad.lhs.root.startswith("cast@"), mad.lhs


def _sites(name: str, function: str):
    from pypto_verify.frontend import read_file
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.smt import sites

    source = read_file(KERNELS / name).module
    lowered = lower(source, LowerOptions(mode="fixed")).module
    return [[s for s in sites.extract_sites(m) if s.function == function] for m in (source, lowered)]


def test_rows_gathered_into_l1_feed_the_cube():
    """`pl.create_l1` + `pl.gather_row` (PyPTO: a Mat `tile.create` filled in place by per-row DMAs) read by
    a transposed and a plain matmul: lowered and verified (before: PV000, the operand had no shape)."""
    checked = _check("l1_gather.py")
    assert [(k.name, k.verdict) for k in checked.kernels] == [("gathered_attention", "verified")], checked.findings


def test_a_gathered_buffer_is_the_root_of_both_matmuls():
    """Every value of the gathered buffer (the loop carry, the if-phi, each gather's result) is the
    `create_l1`'s buffer: both MADs' right operands trace to it, on both sides."""
    for side in _sites("l1_gather.py", "gathered_attention"):
        assert [m.rhs.root if m.rhs else None for s in side for m in s.mads] == ["kv", "kv"]


def test_gather_row_lowers_in_place_on_a_mat_tile():
    from pypto_verify.frontend import read_file
    from pypto_verify.ir import Assign, TileType, MemSpace, walk_stmts
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower

    lowered = lower(read_file(KERNELS / "l1_gather.py").module, LowerOptions(mode="fixed")).module
    (fn,) = [f for p in lowered.programs for f in p.functions]
    gathers = [s for s in walk_stmts(fn.body) if isinstance(s, Assign) and getattr(s.value, "op", "") == "tile.gather_row"]
    create = next(s for s in walk_stmts(fn.body) if isinstance(s, Assign) and s.target.name == "kv")
    assert len(gathers) == 2 and create.value.op == "tile.create"
    for stmt in (create, *gathers):
        assert isinstance(stmt.type, TileType) and stmt.type.space is MemSpace.Mat
        assert stmt.type.memref.base == create.type.memref.base   # one L1 buffer, written in place


def test_a_runtime_sized_workspace_is_a_gm_tensor():
    """`pl.create_tensor([t_dim, N])` written by `pl.store` and read by `pl.load`: a GM workspace (PyPTO
    types it a tensor), so the kernel is checked; its windows hold for some T only (before: PV000, the
    workspace was made a tile of a dynamic shape)."""
    checked = _check("runtime_workspace.py")
    assert not checked.findings
    assert [(k.name, k.verdict) for k in checked.kernels] == [("staged_projection", "conditional")]


def test_a_runtime_sized_tile_is_an_input_error_saying_why():
    """PyPTO's tile.create takes compile-time dimensions only: a tile of `t_dim` rows stays a PV000, whose
    message says what PyPTO requires."""
    checked = _check("runtime_tile.py")
    (finding,) = checked.findings
    assert finding.rule.id == "PV000" and finding.span.line == 18
    assert "tile `scratch` has a dynamic shape" in finding.message and "valid_shape" in finding.message


def test_a_product_read_by_vector_ops_is_a_traced_operand():
    """`raw = pl.matmul(q, k)` -> softmax -> `pl.matmul(weights, v)`: the first product is an opaque root
    identified by its operands' blocks, carried through the a2a3 Acc -> GM -> Vec bridge of the lowering,
    so the second MAD is compared on real blocks and the kernel is verified (before: PV100, compared by
    step only)."""
    for side in _sites("chained_products.py", "score_then_mix"):
        second = [m for s in side for m in s.mads][1]
        assert second.lhs is not None and second.lhs.root.startswith("cast@")
    checked = _check("chained_products.py")
    assert [(k.name, k.verdict) for k in checked.kernels] == [("score_then_mix", "verified")], checked.findings


def test_a_lowering_that_feeds_the_wrong_product_is_refuted():
    """The product root is an identity, not a wildcard: a lowering whose bridge reads the scores of another
    block (the first MAD's right operand shifted by 8 rows) computes a different step: PV105 refuted."""
    from dataclasses import replace as rebuild

    from pypto_verify.frontend import read_file
    from pypto_verify.ir import Assign, Call, Const, ListExpr
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.smt import Verdict, prove_module

    import sys
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from smt.harness import mutate

    source = read_file(KERNELS / "chained_products.py").module
    lowered = lower(source, LowerOptions(mode="fixed")).module

    def shifted(stmt):
        if isinstance(stmt, Assign) and stmt.target.name == "k__mat" and isinstance(stmt.value, Call):
            offsets = ListExpr((Const(8), Const(0)))
            return rebuild(stmt, value=rebuild(stmt.value, args=(stmt.value.args[0], offsets, *stmt.value.args[2:])))
        return None

    outcomes = prove_module(source, mutate(lowered, "score_then_mix", shifted))
    second = [o for o in outcomes if o.rule == "PV105" and o.site.endswith(":24")]
    assert second and any(o.verdict is Verdict.REFUTED for o in second), [(o.site, o.verdict, o.message) for o in outcomes]


def test_a_product_split_into_l0_blocks_is_one_traced_root():
    """The lowering splits `q @ kv^T` (K = 512) into L0 blocks (`matmul_acc`s of one span): their result is
    the one product the source's MAD names, so the softmax built on it is traced on both sides and the
    kernel is verified (before: PV100, the lowered operand was untraced)."""
    for side in _sites("split_product.py", "wide_scores"):
        second = [m for s in side for m in s.mads if m.span.line == 18]
        assert second and all(m.lhs is not None and m.lhs.root.startswith("cast@") for m in second)
    checked = _check("split_product.py")
    assert [(k.name, k.verdict) for k in checked.kernels] == [("wide_scores", "verified")], checked.findings


def test_a_bridge_is_seen_through_only_when_it_reads_back_the_whole_stored_tile() -> None:
    """`smt/sites.py` identifies a `tile.load` of a GM buffer with the tile a `tile.store` put there just
    before (the lowering's Acc -> GM -> Vec bridge, `acc__gm`). The buffer's name is no proof: a kernel may
    name a buffer so, store at an offset or read back a wider window; then the load is not the stored tile."""
    from pypto_verify import ops
    from pypto_verify.ir import Call, Const, DType, ListExpr, MemSpace, TensorType, TileType, Var
    from pypto_verify.smt.sites import _whole_tile_round_trip

    def at(*offsets: int) -> ListExpr:
        return ListExpr(tuple(Const(o) for o in offsets))

    def tile(rows: int) -> TileType:
        return TileType((Const(rows), Const(64)), DType.FP32, MemSpace.Vec)

    types = {"acc": TileType((Const(16), Const(64)), DType.FP32, MemSpace.Acc), "whole": tile(16), "wide": tile(32)}
    buffer = Var("acc__gm")
    store = Call(ops.STORE, (Var("acc"), at(0, 0), buffer))
    assert _whole_tile_round_trip(store, Call(ops.LOAD, (buffer, at(0, 0), at(16, 64))), "whole", types)
    assert not _whole_tile_round_trip(store, Call(ops.LOAD, (buffer, at(0, 0), at(32, 64))), "wide", types)
    assert not _whole_tile_round_trip(store, Call(ops.LOAD, (buffer, at(16, 0), at(16, 64))), "whole", types)
    shifted = Call(ops.STORE, (Var("acc"), at(16, 0), buffer))
    assert not _whole_tile_round_trip(shifted, Call(ops.LOAD, (buffer, at(0, 0), at(16, 64))), "whole", types)
    assert not _whole_tile_round_trip(store, Call(ops.LOAD, (buffer, Var("r0"), at(16, 64))), "whole", types)
    del types["acc"]  # a stored value of unknown shape is never taken for the loaded one
    assert not _whole_tile_round_trip(store, Call(ops.LOAD, (buffer, at(0, 0), at(16, 64))), "whole", types)
