"""`check corpus --pipeline legacy` reports exactly the old compiler's real failures on the clean corpus.

Each expected finding is one the pre-fix compiler really produced on valid kernels (TARGET_FACTS.md,
"Observed on the pre-fix compiler"):
- PV001 "cannot reconcile divergent L0C accumulator buffers": an `if` whose arm's matmul was auto-tiled
  into an inner K loop with an odd block count, or whose arms are swapped (`!=`, accumulate first), so
  that the old if-phi coalescing could not retarget the seed and yield fixup needed an Acc->Acc move;
- PV008 L0B capacity: a predicated tensor-level `matmul_acc` whose operands exceed L0, which the old
  AutoTileMatmulL0 rejected instead of tiling.
The fixed pipeline lowers and verifies every one of these kernels (test_corpus_clean.py).

The findings are read from the session's cold `check corpus --pipeline legacy --format json` run, which the
legacy check golden replays (tests/shared_runs.py).
"""

from __future__ import annotations

from pathlib import Path

import shared_runs

EXPECTED = {
    ("edge_nonzero_start.py", "PV008", 79),
    ("edge_swapped_ne.py", "PV001", 29),
    ("edge_swapped_ne.py", "PV001", 50),
    ("init_cond_projections.py", "PV008", 33),
    ("init_cond_projections.py", "PV008", 51),
    ("init_cond_split_k.py", "PV008", 38),
    ("kv_lora_split_k_i8.py", "PV001", 43),
    ("mla_qkv_i8.py", "PV001", 82),
    ("sparse_indexer.py", "PV001", 34),
}


def test_legacy_pipeline_reports_exactly_the_old_compilers_real_failures(cold_check) -> None:
    block, _ = cold_check("corpus", "--pipeline", "legacy")
    report = shared_runs.report(block)
    assert report["pipeline"] == "legacy"
    found = {(Path(f["path"]).name, f["rule"], f["line"]) for f in report["findings"] if f["severity"] == "error"}
    assert found == EXPECTED
    assert block.startswith("== pypto-verify check corpus --pipeline legacy --format json (exit 1)\n"), block[:200]
    messages = [f["message"] for f in report["findings"] if f["rule"] == "PV001"]
    assert messages and all("cannot reconcile divergent L0C accumulator buffers" in m for m in messages)
