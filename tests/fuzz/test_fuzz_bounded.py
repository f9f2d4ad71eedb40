"""A bounded run of the differential fuzzer (`benchmarks/fuzz.py`, docs/RELIABILITY.md): no soundness escape.

A few hundred candidates on two workers, seeded: mutants of the corpus kernels that simulate fastest, and generated
Form 2 / Form 3 K reductions. A candidate the oracle finds wrong (its simulated output, or its own reference,
differs from the original kernel's reference or from the plain matmul of its inputs) must not come back verified.
The full-size run (≥ 10 000 of each) is recorded in docs/RELIABILITY.md; this is its CI slice.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fuzzlib import mutate  # noqa: E402
from fuzzlib.driver import Config, corpus_kernels, describe_escapes, mutant_tasks, render, run_fuzz  # noqa: E402

SEED = 12
MUTANTS = 150
GENERATED = 150
CHEAP_KERNELS = (
    "unrolled_index", "unrolled_offsets", "python_range_i8", "single_chain", "kv_chains", "bias_if_range",
    "bias_if_pipeline_odd", "bias_peeled", "one_trip_pipeline", "one_trip_range_i8", "peeled_zero_trip",
    "qk_proj", "beta_proj", "ln_proj", "value_reward", "combined_rows", "pred_split_fp32", "nested_guard",
    "elif_chain", "tail_segment_proj", "chunked_k", "tile_sweep", "compress_kv", "gemm_blocked",
)
"""Corpus kernels whose original simulates in well under a second: every mutation kind has sites among them."""

MUTATION_KINDS = {"cond", "arm_swap", "drop_seed", "acc_to_fresh", "fresh_to_acc", "init", "loop", "loop_equiv",
                  "slice_shift_k", "slice_shift_mn", "drain_drop", "drain_shift", "operand_swap", "b_trans_flip",
                  "acc_rename_target", "acc_rename_operand", "loop_mn"}


@pytest.fixture(scope="module")
def report() -> dict:
    return run_fuzz(Config(mutants=MUTANTS, generated=GENERATED, seed=SEED, jobs=2, kernels=CHEAP_KERNELS,
                           progress=False))


def test_bounded_fuzz_finds_no_soundness_escape(report: dict) -> None:
    """Wrong and verified, and claimed by a rule without a documented limit (docs/RELIABILITY.md, "Scope")."""
    escapes = report["summary"]["escapes"]
    assert not escapes, f"{len(escapes)} soundness escapes:\n" + "\n".join(describe_escapes(escapes)) + \
        "\n\n" + render(report)


def test_every_mutation_kind_is_exercised(report: dict) -> None:
    seen = {m["kind"] for r in report["records"] if r["family"] == "mutant" for m in r["mutations"]}
    assert MUTATION_KINDS <= seen, sorted(MUTATION_KINDS - seen)
    assert report["summary"]["families"]["mutant"]["n"] == MUTANTS


def test_generated_programs_are_of_both_forms_correct_and_defective(report: dict) -> None:
    generated = [r for r in report["records"] if r["family"] == "generated"]
    assert len(generated) == GENERATED
    assert {r["form"] for r in generated} == {"form2", "form3"}
    assert any(r["defect"] for r in generated) and any(not r["defect"] for r in generated)
    assert {r["acc_windows"] for r in generated if r["form"] == "form3"} == {"own", "shared", "overlap"}


def test_correct_tile_programs_verify_and_equal_the_matmul(report: dict) -> None:
    """The oracle's own sanity (a correct program equals the plain matmul of its inputs) and the identity check
    on generated input (a correct tile-level program verifies)."""
    correct = [r for r in report["records"] if r["family"] == "generated" and r["form"] == "form2" and not r["defect"]]
    assert correct
    bad = [(r["id"], r["verdict"], r["judgement"], r["why"], r["detail"], r["messages"]) for r in correct
           if r["verdict"] != "verified" or r["judgement"] != "equivalent"]
    assert not bad, bad


def test_the_oracle_judges_most_candidates(report: dict) -> None:
    """Unjudged candidates (reader rejections, constructs the reference does not model, timeouts) stay a minority,
    and none is a crash of the oracle itself."""
    records = report["records"]
    unjudged = [r for r in records if r["judgement"] == "unjudged"]
    assert len(unjudged) < 0.25 * len(records)
    crashes = [(r["id"], r["detail"]) for r in unjudged if r["why"] == "oracle error"]
    assert not crashes, crashes


def test_mutants_are_seeded() -> None:
    kernels = [(ref, mutate.load_kernel(ref.path, ref.kernel, ref.function, ref.line))
               for ref in corpus_kernels([str(ROOT / "corpus" / "edge_unroll_k.py")])]
    first = [t.text for t in mutant_tasks(kernels, 60, SEED, 0)]
    again = [t.text for t in mutant_tasks(kernels, 60, SEED, 0)]
    other = [t.text for t in mutant_tasks(kernels, 60, SEED + 1, 0)]
    assert first == again and len(set(first)) == 60
    assert first != other
