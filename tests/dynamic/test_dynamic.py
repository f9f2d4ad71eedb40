"""PV201 (pypto_verify/dynamic.py): emitted PTO simulated against the reference, on Python-built IR."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import builders as b
from pypto_verify.dynamic import (
    PreparedRun, first_difference, is_lowered, make_inputs, prepare_run, scalar_candidates, simulate_kernel,
    tolerance,
)
from pypto_verify.sim import simulate
from pypto_verify.ir import DType

SAMPLES = {
    "gemm_fp32": lambda lowered: b.gemm_predicated(lowered),
    "gemm_bf16": lambda lowered: b.gemm_predicated(lowered, b.BF16),
    "gemm_int8": lambda lowered: b.gemm_predicated(lowered, b.INT8, m=16, n=32, k=128, tk=32),
    "transposed_view": lambda lowered: b.transposed_rhs(lowered, "view"),
    "transposed_flag": lambda lowered: b.transposed_rhs(lowered, "flag"),
    "int8_padded": b.int8_padded,
    "drains": b.drain_variants,
    "vector_chain": b.vector_chain,
    "norm_chain": b.norm_chain,
    "post_if_read_fixed": b.post_if_read,
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_correct_lowering_simulates_to_the_reference(name: str) -> None:
    build = SAMPLES[name]
    outcome = simulate_kernel(build(False), build(True), seed=3)
    assert outcome.status == "match", outcome.message


def test_coalesced_post_if_read_is_a_mismatch_on_the_post_if_store() -> None:
    outcome = simulate_kernel(b.post_if_read(False), b.post_if_read(True, coalesced=True))
    assert outcome.status == "mismatch" and outcome.rule == "PV201"
    assert outcome.first_difference["tensor"] == "ya"
    assert outcome.first_difference["index"] == [0, 0]
    assert "`ya`[0, 0]: sim" in outcome.message


def test_uninitialised_accumulator_drains_poison() -> None:
    fn = b.gemm_predicated(True)
    loop = fn.body[3]
    body = list(loop.body)
    body[2] = replace(body[2], value=body[2].value.with_kwarg("init_cond", None))  # never initialises
    outcome = simulate_kernel(b.gemm_predicated(False), replace(fn, body=(*fn.body[:3], replace(loop, body=tuple(body)),
                                                                          *fn.body[4:])))
    assert outcome.status == "mismatch"
    assert np.isnan(outcome.first_difference["sim"]) and "poison" in outcome.message


def test_acc_to_acc_move_is_rejected_as_pv202() -> None:
    fn = b.drain_variants(True)
    body = list(fn.body)
    body.insert(5, b.assign("c2", b.call("tile.move", "c", target_memory=b.mem(b.Acc)),
                            b.tile([16, 32], b.FP32, b.Acc, 4096)))
    outcome = simulate_kernel(b.drain_variants(False), replace(fn, body=tuple(body)))
    assert outcome.status == "mismatch" and outcome.rule == "PV202"
    assert "acc -> acc" in outcome.message


def test_form3_source_is_skipped() -> None:
    lowered = b.gemm_predicated(True)
    assert is_lowered(lowered) and not is_lowered(b.gemm_predicated(False))
    outcome = simulate_kernel(lowered, lowered)
    assert outcome.status == "skipped" and outcome.reason == "no source to compare"
    assert simulate_kernel(None, lowered).status == "skipped"


def test_op_outside_the_subset_is_skipped_with_the_reason() -> None:
    def build(lowered: bool) -> b.Function:
        fn = b.vector_chain(lowered)
        body = list(fn.body)
        body[3] = replace(body[3], value=b.call("tile.mrgsort", "s"))
        return replace(fn, body=tuple(body))
    outcome = simulate_kernel(build(False), build(True))
    assert outcome.status == "skipped" and "tile.mrgsort" in outcome.reason


def _offset_kernel(lowered: bool) -> b.Function:
    """`y = x[off : off + 16, :]` through Vec, `off` a runtime scalar parameter."""
    return b.function("window", [b.param("x", b.tensor([64, 32], b.FP32)), b.scalar_param("off"),
                                 b.out("y", b.tensor([16, 32], b.FP32))], [
        b.assign("t", b.call("tile.load", "x", ["off", 0], [16, 32], target_memory=b.mem(b.Vec)),
                 b.tile([16, 32], b.FP32, b.Vec, 0 if lowered else None)),
        b.assign("y", b.call("tile.store", "t", [0, 0], "y")),
    ])


def test_runtime_scalar_gets_a_sample_value_that_keeps_slices_in_range() -> None:
    outcome = simulate_kernel(_offset_kernel(False), _offset_kernel(True))
    assert outcome.status == "match"
    assert outcome.scalars["off"] + 16 <= 64
    assert scalar_candidates(_offset_kernel(False))[:3] == [64, 32, 16]
    forced = simulate_kernel(_offset_kernel(False), _offset_kernel(True), scalars={"off": 5})
    assert forced.status == "match" and forced.scalars == {"off": 5}


def test_inputs_are_seeded_and_on_their_dtypes_grid() -> None:
    fn = b.gemm_predicated(False, b.BF16)
    first, again, other = make_inputs(fn, 1), make_inputs(fn, 1), make_inputs(fn, 2)
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(first["a"], other["a"])
    bits = first["a"].astype(np.float32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0)
    # the odd multiples of 2**-8 in (-1, 1): never zero, and all 256 of them occur in a 64 x 256 draw
    numerators = first["a"] * 256
    assert np.array_equal(numerators, np.rint(numerators)) and np.all(numerators % 2 == 1)
    assert numerators.min() >= -255 and numerators.max() <= 255 and len(np.unique(numerators)) == 256
    ints = make_inputs(b.int8_padded(False), 0)["x"]
    assert ints.dtype == np.int8 and ints.min() == -8 and ints.max() == 7


def test_a_long_f32_reduction_simulates_to_the_references_exact_values() -> None:
    # every partial sum of the grid inputs is exact in f32: the simulator's BLAS order and the reference's
    # f64 sum agree bit for bit, with no tolerance or deviation to lean on
    run = prepare_run(b.gemm_predicated(False, m=16, k=512), b.gemm_predicated(True, m=16, k=512))
    assert isinstance(run, PreparedRun)
    final = simulate(run.text, run.function, run.args)
    got, want = final[run.outputs["out"][0]], run.reference.outputs["out"]
    assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)


def test_tolerance_is_by_dtype() -> None:
    want = np.array([100.0, 0.0], np.float32)
    assert first_difference("y", DType.FP32, want * (1 + 5e-5), want, 256) is None
    assert first_difference("y", DType.FP32, want * (1 + 5e-4), want, 256)["index"] == [0]
    assert first_difference("y", DType.BF16, want * (1 + 5e-3), want, 256) is None
    assert first_difference("y", DType.INT32, np.array([1, 2]), np.array([1, 3]), 0)["index"] == [1]
    assert tolerance(DType.INT32, 100) == (0.0, 0.0)
    both_nan = np.array([np.nan])
    assert first_difference("y", DType.FP32, both_nan, both_nan, 0) is None
    assert first_difference("y", DType.FP32, want.copy(), want, 0) is None  # equal: no tolerance needed
    assert first_difference("y", DType.FP32, np.array([100.0, np.nan], np.float32), want, 0)["index"] == [1]
    assert first_difference("y", DType.FP32, both_nan, np.array([1.0]), 0) is not None


@pytest.mark.parametrize("build", [b.biased, b.unaddressed], ids=["biased", "unaddressed"])
def test_staged_bias_and_laid_out_bases_simulate_to_the_reference(build) -> None:
    outcome = simulate_kernel(build(False), build(True))
    assert outcome.status == "match", outcome.message


def test_equal_infinities_are_not_a_difference() -> None:
    inf = np.array([np.inf, -np.inf])
    assert first_difference("y", DType.FP32, inf, inf, 16) is None
    assert first_difference("y", DType.FP32, inf, -inf, 16) is not None


def test_cancellation_is_judged_against_the_size_of_the_terms() -> None:
    # A sum that cancels to near zero: |ref| is tiny, its terms are not; sigma carries their size.
    want = np.array([1e-3, 5.0])
    sigma = np.array([1e-2, 1e-6])
    assert first_difference("y", DType.FP32, np.array([1.05e-3, 5.0]), want, 16) is not None
    assert first_difference("y", DType.FP32, np.array([1.05e-3, 5.0]), want, 16, sigma) is None
    assert first_difference("y", DType.FP32, np.array([0.1, 5.0]), want, 16, sigma)["index"] == [0]


def test_integer_results_are_exact_unless_the_reference_is_uncertain() -> None:
    want = np.array([3, 4])
    assert first_difference("y", DType.INT32, np.array([3, 5]), want, 0, np.zeros(2))["index"] == [1]
    assert first_difference("y", DType.INT32, np.array([3, 5]), want, 0, np.array([0.0, 0.5])) is None


def test_a_dropped_drain_is_a_mismatch_on_the_tensor_only_the_reference_wrote() -> None:
    # the simulator hands an argument it never stored back as given; the reference wrote it, so it
    # is still compared (an input that neither side writes is the one thing not compared)
    from pypto_verify.dynamic import prepare_run, run_and_compare

    run = prepare_run(b.gemm_predicated(False, b.BF16), b.gemm_predicated(True, b.BF16), seed=3)
    assert run_and_compare(run).status == "match"
    text = "\n".join(line for line in run.text.splitlines() if "pto.tstore" not in line)
    outcome = run_and_compare(replace(run, text=text))
    assert outcome.status == "mismatch" and outcome.rule == "PV201"
    reference = run.reference
    assert outcome.first_difference["tensor"] in reference.written
    assert set(reference.written) < set(reference.outputs)  # the inputs were not written
    assert outcome.first_difference["producer"] == "no store of the simulation wrote it"
    assert outcome.message.endswith("; no store of the simulation wrote it)")


def test_the_check_runs_on_one_blas_thread_and_restores_the_count() -> None:
    from pypto_verify.dynamic import _openblas_calls, one_blas_thread

    calls = _openblas_calls()
    if calls is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS this process can reach")
    set_threads, get_threads = calls
    before = get_threads()
    with one_blas_thread():
        assert get_threads() == 1
    assert get_threads() == before


def test_a_bf16_argument_bound_as_a_strided_view_simulates_as_a_contiguous_copy() -> None:
    from pypto_verify.dynamic import prepare_run
    from pypto_verify.sim import simulate

    run = prepare_run(b.gemm_predicated(False, b.BF16), b.gemm_predicated(True, b.BF16))
    strided = {name: value for name, value in run.args.items()
               if isinstance(value, np.ndarray) and not value.flags.c_contiguous}
    assert strided  # the bf16 inputs are views of the high halves of their f32 words
    copied = {**run.args, **{name: np.ascontiguousarray(value) for name, value in strided.items()}}
    got, want = simulate(run.text, run.function, run.args), simulate(run.text, run.function, copied)
    assert all(np.array_equal(got[name], want[name]) for name in want)


def test_a_reference_run_without_deviations_has_the_same_values_and_no_sigma() -> None:
    from pypto_verify.dynamic import prepare_run

    plain = prepare_run(b.gemm_predicated(False, b.BF16), b.gemm_predicated(True, b.BF16), seed=3, deviations=False)
    full = prepare_run(b.gemm_predicated(False, b.BF16), b.gemm_predicated(True, b.BF16), seed=3)
    assert plain.with_deviations is not None and full.with_deviations is None
    for name, want in full.reference.outputs.items():
        assert np.array_equal(plain.reference.outputs[name], want)
        assert name not in plain.reference.sigma  # none at all: every deviation is zero
    assert any(sigma.any() for sigma in full.reference.sigma.values())  # the matmuls give one
    deferred = plain.with_deviations()
    assert all(np.array_equal(deferred.sigma[n], s) for n, s in full.reference.sigma.items())


def test_a_difference_found_without_deviations_is_judged_again_with_them() -> None:
    # judged with zero deviation first, a difference the deviation excuses is still a match; one it
    # does not excuse is the same mismatch as before
    from pypto_verify.dynamic import prepare_run, run_and_compare

    run = prepare_run(b.gemm_predicated(False, b.FP32), b.gemm_predicated(True, b.FP32), seed=3, deviations=False)
    name = next(iter(run.reference.written))
    moved = {**run.reference.outputs, name: run.reference.outputs[name] + np.float32(1.0)}
    wide = {**run.reference.sigma, name: np.ones_like(run.reference.outputs[name])}
    shifted = replace(run.reference, outputs=moved)
    assert run_and_compare(replace(run, reference=shifted, with_deviations=None)).status == "mismatch"
    excused = replace(run, reference=shifted, with_deviations=lambda: replace(shifted, sigma=wide))
    assert run_and_compare(excused).status == "match"
    narrow = replace(run, reference=shifted, with_deviations=lambda: shifted)
    assert run_and_compare(narrow).status == "mismatch"
