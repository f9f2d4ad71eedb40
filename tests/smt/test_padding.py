"""PV108 padding-read (`smt/padding.py`): a value written out that takes an operand's unfilled padding is
refuted (a literal region) or conditional (a run-time one), through a reshape that drops unit dimensions
too; a write of a value whose valid region is not tracked is conditional on its padded sources being
whole, inconclusive when they never are; each fixed twin (fillpad,
a store of the valid rows, an operand whose region matches) is proved or not posed."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.frontend import read_file
from pypto_verify.frontend.shapes import Shapes, expr_text
from pypto_verify.ir import Var
from pypto_verify.smt import Verdict, padding, prove_padding

KERNELS = Path(__file__).parent / "kernels" / "padding_reads.py"
LANES = Path(__file__).parents[1] / "dynamic" / "kernels" / "padded_lanes.py"


def outcomes(path: Path) -> dict[str, list]:
    parsed = read_file(path)
    assert not parsed.errors
    by_function: dict[str, list] = {}
    for o in prove_padding(parsed.module, cache=False):
        by_function.setdefault(o.function, []).append(o)
    return by_function


def test_padding_reads_refuted_conditional_and_clean():
    found = outcomes(KERNELS)
    short = found["short_residual"]
    assert [o.verdict for o in short] == [Verdict.REFUTED]
    assert "rows [24, 32) of `scaled`" in short[0].message and "line 61" in short[0].message
    assert "pl.fillpad(scaled" in short[0].message
    k = found["short_k"]
    assert [o.verdict for o in k] == [Verdict.REFUTED]
    assert "columns [48, 64) of `a`" in k[0].message and "product" in k[0].message
    tail = found["tail_residual"]
    assert [o.verdict for o in tail] == [Verdict.CONDITIONAL]
    assert "`n` is read from `lens` at run time" in tail[0].message
    block = found["tail_block"]
    assert [o.verdict for o in block] == [Verdict.CONDITIONAL]
    assert "of `block` (shape [32, 64], valid [live, 64])" in block[0].message
    # `[1, 1, T, H]` valid `[1, 1, LIVE, H]` reshaped to `[T, H]` is valid `[LIVE, H]` (pypto's reshape
    # deduction): the assemble moves only the loaded rows, nothing to pose
    assert "flat_copy" not in found
    peak = found["tail_peak_whole"]
    assert [o.verdict for o in peak] == [Verdict.CONDITIONAL]
    assert "`pl.maximum(floor, peaks)` reads columns" in peak[0].message
    # the same band narrowed away by a set_validshape before the store: nothing stale is written
    for fixed in ("tail_peak_narrowed", "tail_residual_filled", "short_residual_rows", "short_k_filled", "tail_block_filled",
                  "flat_copy_filled"):
        assert fixed not in found, fixed
    # both operands valid over the same run-time rows: posed and proved, never a finding
    assert [o.verdict for o in found.get("all_rows", [])] in ([], [Verdict.PROVED] * len(found.get("all_rows", [])))


def test_padded_lanes_bare_twins_flagged():
    found = outcomes(LANES)
    assert {f for f, os in found.items() if any(o.verdict is Verdict.REFUTED for o in os)} == \
        {"bare_lane_softmax", "bare_block_peaks"}
    (widen,) = found["bare_lane_softmax"]
    assert "columns [4, 8) of `shifted`" in widen.message
    (peaks,) = found["bare_block_peaks"]
    assert "columns [2, 8) of `peaks`" in peaks.message


def test_a_row_wise_gather_of_a_padded_block_reads_its_padding_rows():
    """`gather(src, dim=-1, index=...)` keeps rows at their positions (dspark `_prepare_sparse_attn_rope`'s
    ragged last block: the one simulation mismatch PV108 did not explain before)."""
    found = outcomes(Path(__file__).parent / "padding" / "ragged_gather.py")
    (short,) = found["short_block"]
    assert short.verdict is Verdict.REFUTED
    assert "`pl.gather(src)` reads rows [5, 8) of `src` (shape [8, 16], valid [5, 16])" in short.message
    (tail,) = found["tail_block"]
    assert tail.verdict is Verdict.CONDITIONAL and "n_rows" in tail.message
    assert "filled_block" not in found  # fillpad made it whole: nothing to pose


def test_a_staged_chunk_keeps_its_rows_and_an_untracked_sum_needs_whole_sources():
    """A cast / reshape / cast of a ragged window (deepseek_v3_2 `prefill_back.py:83`) keeps the window's valid
    rows, so its assemble writes no padding; a sum whose region is not tracked writes none only when every
    padded source is whole: conditional where run-time values make it so, inconclusive where none do."""
    path = Path(__file__).parent / "padding" / "staged_chunks.py"
    fn = {f.name: f for _, f in read_file(path).module.functions()}["staged_rows"]
    chunk = Shapes(fn).of(Var("chunk"))
    assert chunk is not None and chunk.valid_known and chunk.valid is not None
    assert [expr_text(d) for d in chunk.valid] == ["rows", "64"]
    found = outcomes(path)
    assert "staged_rows" not in found and "staged_whole" not in found
    (added,) = found["staged_sum"]
    assert added.verdict is Verdict.CONDITIONAL and "reads rows [1, 32) of `pl.cast(chunk)`" in added.message
    mixed = found["mixed_rows"]
    assert [o.verdict for o in mixed] == [Verdict.CONDITIONAL] * 2
    assert "only when it has none, `rows_a` = 32 (its rows)" in mixed[0].message and "`n` is read" in mixed[0].message
    assert "`rows_b` = 32 (its rows)" in mixed[1].message and "`m` is read" in mixed[1].message
    short, ragged = found["mixed_short"]
    # 24 of 32 rows at every run-time value: the emptiness query is posed (the loop runs to `n`) and refuted
    assert short.verdict is Verdict.INCONCLUSIVE and "may write the unfilled padding of `left`" in short.message
    assert "not modelled: the valid region pypto gives `pl.add(left, right)`" in short.message
    assert ragged.verdict is Verdict.CONDITIONAL and "`rows` = 32" in ragged.message
    # short only in the last block of a literal 100 rows: at that block no run-time value makes it whole (the
    # emptiness query is pinned to the block the padding is in, not asked of any block)
    tail, rest = found["mixed_tail"]
    assert tail.verdict is Verdict.INCONCLUSIVE and "valid [min(32, 100 - t0), 64]" in tail.message
    assert rest.verdict is Verdict.CONDITIONAL
    fn = {f.name: f for _, f in read_file(path).module.functions()}["mixed_short"]
    assert [(r.operand, bool(ob.conditions)) for r, ob in padding.function_obligations(fn)] == \
        [("left", True), ("right", True)]
