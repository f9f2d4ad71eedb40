"""`pl.mrgsort` of several tiles (format 2: PyPTO's `tile.mrgsort_format2`, a workspace tile of its conversion, and
`pto.tmrgsort` with the workspace and an executed-count vector): a kernel of ours merging two, three and four sorted
lists simulates and matches; mutated twins — a list one half too short, the first two lists swapped (equal scores
meet across lists, so which list is first decides the order), a workspace on the lists' own buffer — mismatch or
are rejected."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from stages import KERNELS, require_stages

from pypto_verify.ir import Assign, Call, ListExpr, Var

MERGED = KERNELS / "merged_lists.py"


def _kernel():
    require_stages()
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(MERGED)), Options()).kernels
    return kernel


def _mutated(fn, change):
    """*fn* with every `Assign` whose statement *change* rewrites (a new statement, or None to keep it)."""
    from pypto_verify.ir import map_stmts

    def edit(stmt):
        if isinstance(stmt, Assign) and isinstance(stmt.value, Call):
            changed = change(stmt)
            if changed is not None:
                return (changed,)
        return None
    return replace(fn, body=map_stmts(fn.body, edit))


def _merge_of(stmt: Assign, target: str) -> Call | None:
    call = stmt.value
    return call if stmt.target.name == target and isinstance(call, Call) and call.op == "tile.mrgsort" else None


def test_two_three_and_four_lists_emit_the_workspace_form_and_match() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.emit import emit

    kernel = _kernel()
    text = emit(kernel.lowered)
    for mnemonic in ("pto.tmrgsort ins(%pairs__slice_v1, %pairs__slice_v2, %mrgsort2_tmp {exhausted = false}",
                     "%pairs__slice_v5, %mrgsort2_tmp_1 {exhausted = false}",
                     "%pairs__slice_v9, %mrgsort2_tmp_2 {exhausted = false}",
                     "arith.constant dense<0> : vector<4xi16>", "outs(%two, %executed_vec"):
        assert mnemonic in text, mnemonic
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message


def test_the_reference_merges_lists_stably_earlier_list_first_on_a_tie() -> None:
    from pypto_verify.ir import Function
    from pypto_verify.reference import run_reference

    kernel = _kernel()
    assert isinstance(kernel.source, Function)
    scores = (np.arange(4 * 128).reshape(4, 128) * 7 % 5 * 0.25).astype(np.float32)  # every block shares scores
    inputs = {"x": np.zeros((4, 64)), "w": np.zeros((128, 64)), "scores": scores, "logits": np.zeros((4, 128)),
              "top_two": np.zeros((4, 64)), "top_three": np.zeros((4, 96)), "ranked": np.zeros((4, 128)),
              "order": np.zeros((4, 128))}
    result = run_reference(kernel.source, inputs)
    for out, lanes in (("top_two", 64), ("top_three", 96), ("order", 128)):
        np.testing.assert_array_equal(result.outputs[out], np.argsort(-scores[:, :lanes], axis=1, kind="stable"))
    np.testing.assert_array_equal(result.outputs["ranked"], -np.sort(-scores, axis=1))


def test_a_list_half_too_short_mismatches() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def shorten(stmt: Assign) -> Assign | None:
        call = stmt.value
        if stmt.target.name != "pairs__slice_v2":
            return None
        assert isinstance(call, Call) and stmt.type is not None
        half = ListExpr((call.args[1].items[0], type(call.args[1].items[1])(32)))
        return replace(stmt, value=replace(call, args=(call.args[0], half, *call.args[2:])),
                       type=replace(stmt.type, shape=half.items))
    outcome = simulate_kernel(kernel.source, _mutated(kernel.lowered, shorten))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "top_two", outcome.message


def test_the_first_two_lists_swapped_mismatch_on_the_ties() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def swap(stmt: Assign) -> Assign | None:
        call = _merge_of(stmt, "two")
        if call is None:
            return None
        first, second, workspace = call.args
        return replace(stmt, value=replace(call, args=(second, first, workspace)))
    outcome = simulate_kernel(kernel.source, _mutated(kernel.lowered, swap))
    assert outcome.status == "mismatch" and outcome.first_difference["tensor"] == "top_two", outcome.message


def test_a_workspace_on_the_lists_buffer_is_rejected() -> None:
    from pypto_verify.dynamic import simulate_kernel

    kernel = _kernel()

    def alias(stmt: Assign) -> Assign | None:
        call = _merge_of(stmt, "two")
        if call is None:
            return None
        return replace(stmt, value=replace(call, args=(*call.args[:2], Var("pairs"))))
    outcome = simulate_kernel(kernel.source, _mutated(kernel.lowered, alias))
    assert outcome.status == "mismatch" and outcome.rule == "PV202" and "workspace" in outcome.message, \
        outcome.message


def test_exhausted_merges_have_no_pto_form() -> None:
    from pypto_verify.emit import EmitError, emit
    from pypto_verify.ir import Const

    kernel = _kernel()

    def exhausted(stmt: Assign) -> Assign | None:
        call = _merge_of(stmt, "two")
        return None if call is None else replace(stmt, value=replace(call, kwargs=(("exhausted", Const(True)),)))
    with pytest.raises(EmitError, match="exhausted"):
        emit(_mutated(kernel.lowered, exhausted))


def test_sorts_and_merges_never_share_a_buffer_with_an_operand() -> None:
    """PyPTO marks tile.sort32 and both tile.mrgsort formats not_inplace_safe: its memory reuse never puts the result
    on an operand's buffer (the instructions read while they write), and neither does ours."""
    from pypto_verify.ir import TileType, walk_stmts
    from pypto_verify.lowering._pass_util import infer_env

    kernel = _kernel()
    env = infer_env(kernel.lowered)

    def base(name: str) -> str:
        t = env[name]
        assert isinstance(t, TileType) and t.memref is not None
        return t.memref.base
    sorts = [s for s in walk_stmts(kernel.lowered.body) if isinstance(s, Assign) and isinstance(s.value, Call)
             and s.value.op in ("tile.sort32", "tile.mrgsort")]
    assert len(sorts) == 4
    for stmt in sorts:
        assert isinstance(stmt.value, Call)
        assert all(base(stmt.target.name) != base(a.name) for a in stmt.value.args if isinstance(a, Var)), stmt


def test_the_tile_form_with_its_own_workspace_keeps_the_result_apart_and_matches() -> None:
    from pypto_verify.dynamic import simulate_kernel
    from pypto_verify.run.chain import lower_stage, read_stage
    from pypto_verify.run.records import Options

    (kernel,) = lower_stage(read_stage(str(KERNELS / "merged_tiles.py")), Options()).kernels
    outcome = simulate_kernel(kernel.source, kernel.lowered)
    assert outcome.status == "match", outcome.message

    def on_first(stmt: Assign) -> Assign | None:
        call = _merge_of(stmt, "merged")
        return None if call is None else replace(stmt, value=replace(call, kwargs=(("tmp", Var("first")),)))
    outcome = simulate_kernel(kernel.source, _mutated(kernel.lowered, on_first))
    assert outcome.status == "mismatch" and outcome.rule == "PV202" and "workspace" in outcome.message, \
        outcome.message
