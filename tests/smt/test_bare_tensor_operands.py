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
