"""The oracle: legacy lowering of real-ir `29_after_LowerPipelineLoops.py` against what the pre-fix
compiler printed after InitMemRef (32), MemoryReuse (34) and AllocateMemoryAddr (35).

Compared as partitions: for each space, on the value names both sides have, "these two share a
window" must agree. Acc must agree everywhere. Mat / Left / Right must agree everywhere but one documented
place: PyPTO runs CanonicalizeIOOrder (its pass 29) between LowerPipelineLoops and InitMemRef, hoisting each
pipeline clone's loads and extracts; on tensor_proj that makes two Right extracts co-live in the real
compiler that are not co-live in the 29 dump, so the Right packing differs there (16 of 28 pairs after
MemoryReuse) — and only there. That count is pinned: a change either way fails.
"""

from __future__ import annotations

import pytest

from pypto_verify.ir import MemSpace

from .helpers import (
    CASES, REAL_IR, divergent_sites, frontend, inplace_pairs, kernel_of, lower, partition_disagreements,
    printer, read_real, windows,
)

STAGES = {"32": "init-memref", "34": "memory-reuse", "35": "allocate-memory-addr"}
REPORTED = (MemSpace.Mat, MemSpace.Left, MemSpace.Right)

pytestmark = pytest.mark.skipif(not REAL_IR.exists(), reason="real-ir fixtures not present")


def ours_after(case: str, stage: str):
    return kernel_of(lower(read_real(case, "29"), "legacy", upto=STAGES[stage]))


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("case", CASES)
def test_acc_windows_partition_like_the_real_compiler(case: str, stage: str) -> None:
    ours = windows(ours_after(case, stage), MemSpace.Acc)
    theirs = windows(kernel_of(read_real(case, stage)), MemSpace.Acc)
    compared, bad = partition_disagreements(ours, theirs)
    assert compared > 0
    assert bad == []


REORDERED = {("tensor_proj", "34", MemSpace.Right): 16, ("tensor_proj", "35", MemSpace.Right): 16}
"""The pairs CanonicalizeIOOrder packs differently (module docstring); everywhere else: none."""


@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize("case", CASES)
def test_operand_spaces_partition_like_the_real_compiler_but_where_io_order_differs(case: str, stage: str) -> None:
    ours, theirs = ours_after(case, stage), kernel_of(read_real(case, stage))
    for space in REPORTED:
        compared, bad = partition_disagreements(windows(ours, space), windows(theirs, space))
        assert compared > 0, (case, stage, space)
        assert len(bad) == REORDERED.get((case, stage, space), 0), (case, stage, space, bad)


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_hand_peel_text_is_the_real_compilers(stage: str) -> None:
    # hand_peel has no pipeline loop, so CanonicalizeIOOrder leaves it alone: the whole text agrees
    pr = printer()
    ours = pr.print_module(lower(read_real("hand_peel", "29"), "legacy", upto=STAGES[stage]))
    (path,) = sorted((REAL_IR / "hand_peel").glob(f"{stage}_after_*.py"))
    significant = lambda text: [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]  # noqa: E731
    assert significant(ours) == significant(path.read_text())


@pytest.mark.parametrize("case", CASES)
def test_real_34_and_ours_keep_every_matmul_acc_in_place(case: str) -> None:
    # the four real programs are all coalesced cleanly by the old compiler
    for fn in (ours_after(case, "34"), kernel_of(read_real(case, "34"))):
        assert all(wo == wi for _, _, wo, wi in inplace_pairs(fn))
        assert divergent_sites(fn) == []


@pytest.mark.parametrize("case", CASES)
def test_legacy_pipeline_from_source_uses_as_many_acc_buffers_as_the_real_compiler(case: str) -> None:
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower as lower_pipeline

    result = frontend().read_file(REAL_IR / case / "source.py")
    assert not result.errors
    lowered = lower_pipeline(result.module, LowerOptions(mode="legacy"))
    assert not lowered.errors
    ours = {w.base for w in windows(kernel_of(lowered.module), MemSpace.Acc).values()}
    theirs = {w.base for w in windows(kernel_of(read_real(case, "34")), MemSpace.Acc).values()}
    assert len(ours) == len(theirs)
