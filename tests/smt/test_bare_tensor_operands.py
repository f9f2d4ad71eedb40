"""A window of a bare `pl.Tensor` of a `pl.jit` entry as a matmul operand (issue 13, item 1;
`qwen3_14b/decode_fwd.py`): pypto specialises the entry on the tensor each call passes, so the window's
shape is the slice's own and its dtype the other operand's (pypto's tile.matmul requires identical lhs and
rhs dtypes); its bounds are conditions on the extents passed (PV107), a window before the tensor's start
is refuted whatever they are."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, run

KERNELS = Path(__file__).parent / "runtime_shaped"
OPTIONS = Options(cache=False, jobs=1, sim=False)


def test_a_bare_weight_sliced_as_a_matmul_operand_is_conditional_on_its_extents():
    result = run([str(KERNELS / "bare_weight_proj.py")], OPTIONS)
    assert result.findings == []
    (kernel,) = [k for f in result.files for k in f.kernels]
    assert kernel.verdict == "conditional"
    assert "`w.shape[0]` is an extent of the tensor passed for the bare `pl.Tensor` `w` (taken as 2-D)" \
        in " ".join(kernel.conditions)


def test_a_bare_weight_window_before_its_start_is_pv107():
    result = run([str(KERNELS / "bare_weight_before_start.py")], OPTIONS)
    # its windows are blocks of the tensor passed: the window one row early also repeats rows of K (PV106)
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV106", 23), ("PV107", 23)]
    assert "reads rows [-1, 63) of `w`, before its start" in result.findings[1].message


def test_two_bare_operands_leave_the_dtype_unknown(tmp_path: Path):
    # neither operand states a dtype: nothing pins it, so the load is still an input error
    source = (KERNELS / "bare_weight_proj.py").read_text()
    source = source.replace("x: pl.Tensor[[ROWS, HIDDEN], pl.BF16]", "x: pl.Tensor").replace("x[:, ", "x[0:ROWS, ")
    path = tmp_path / "both_bare.py"
    path.write_text(source)
    result = run([str(path)], OPTIONS)
    assert {f.rule.id for f in result.findings} == {"PV000"}
    assert "cannot be loaded as a matmul operand" in result.findings[0].message


def test_a_conditional_kernels_sites_are_counted_apart_from_the_verified_ones():
    from pypto_verify.reports import json_report, text

    result = run([str(KERNELS / "bare_weight_proj.py")], OPTIONS)
    assert (result.sites, result.verified_sites, result.conditional_sites) == (1, 0, 1)
    assert "1 idiom site (0 verified, 1 conditional on run-time inputs)" in text.summary(result)
    data = json_report.to_json(result)
    assert (data["verified_sites"], data["conditional_sites"]) == (0, 1)
    assert data["files"][0]["conditional_sites"] == 1


# ------------------------------------------------------------------ values computed from bare windows (issue 13)

ATTENTION = KERNELS / "bare_cache_attention.py"
CHAIN_RULES = ("PV101", "PV102", "PV103", "PV105", "PV106")


def _chain_outcomes(function: str, lowered=None):
    from pypto_verify.smt import prove_module

    from .harness import lower_fixed, only, read

    source = only(read(ATTENTION), function)
    outcomes = prove_module(source, lowered if lowered is not None else lower_fixed(source), cache=False)
    # the chain of `oi` (line 26), not the product of the scores it is computed from
    return {o.rule: o for o in outcomes if o.rule in CHAIN_RULES and o.site == f"{function}:26"}


def test_a_cast_of_a_softmax_of_a_bare_window_product_is_traced_through_the_l0_blocks():
    # decode_layer_a8w8.py `_decode_layer`: the bare window's shape types the product, its softmax and cast
    outcomes = _chain_outcomes("cache_attention")
    assert set(outcomes) == set(CHAIN_RULES)
    assert all(o.verdict.value == "proved" for o in outcomes.values()), [(o.rule, o.message) for o in outcomes.values()]


def test_an_l0_block_that_reads_the_casts_middle_k_block_twice_is_pv105_refuted():
    from dataclasses import replace

    from pypto_verify.ir import Const

    from .harness import lower_fixed, mad_named, mutate, only, read

    source = only(read(ATTENTION), "cache_attention")
    # the last L0 block extracts K [128, 256) of the cast again instead of [256, 384)
    bad = mutate(lower_fixed(source), "cache_attention",
                 mad_named("oi__l0_a_2", lambda c: replace(c, args=(c.args[0], c.args[1], Const(128), *c.args[3:]))))
    outcomes = _chain_outcomes("cache_attention", bad)
    assert outcomes["PV105"].verdict.value == "refuted", outcomes["PV105"].message


def test_k_blocks_of_the_cast_in_a_loop_of_the_kernel_are_conditional_and_a_repeated_one_is_pv106():
    result = run([str(ATTENTION)], OPTIONS)
    verdicts = {k.function: k.verdict for f in result.files for k in f.kernels}
    assert verdicts == {"cache_attention": "conditional", "cache_attention_blocks": "conditional",
                        "cache_attention_repeats": "findings"}
    assert [(f.rule.id, f.span.line) for f in result.findings] == [("PV106", 64)]
    assert "K [0, 128) of `cast@58:27` is accumulated twice" in result.findings[0].message
