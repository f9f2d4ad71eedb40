"""A finding in an inline function (`@pl.jit.inline`) that nothing in its file calls says so: no kernel
entry reaches it, so the user decides whether it matters (another file may import it)."""

from __future__ import annotations

from pathlib import Path

from pypto_verify.run import Options, Stage, run_work

HELPER = """
import pypto.language as pl

ROWS = 512
K = 64
N = 256


@pl.jit.inline
def _wide_scores(
    q: pl.Tensor[[ROWS, K], pl.INT8],
    w: pl.Tensor[[K, N], pl.INT8],
    scores: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(q[:, :], w[:, :], out_dtype=pl.INT32)
        scores[:, :] = acc
    return scores
"""
"""A 512 KiB INT32 accumulator: more than L0C holds (PV008), in an inline helper."""

CALLER = """

@pl.jit
def scores_entry(
    q: pl.Tensor[[ROWS, K], pl.INT8],
    w: pl.Tensor[[K, N], pl.INT8],
    scores: pl.Out[pl.Tensor[[ROWS, N], pl.INT32]],
):
    scores = _wide_scores(q, w, scores)
    return scores
"""

NOTE = "`_wide_scores` is not reached from any kernel entry"


def _findings(tmp_path: Path, text: str):
    path = tmp_path / "helper.py"
    path.write_text(text)
    (work,) = run_work([str(path)], Options(cache=False, jobs=1), (Stage.READ, Stage.LOWER))
    return [f for f in work.findings if f.function == "_wide_scores"]


def test_a_finding_in_an_inline_function_nothing_calls_says_no_entry_reaches_it(tmp_path: Path) -> None:
    (finding,) = _findings(tmp_path, HELPER)
    assert finding.rule.id == "PV008"
    assert finding.message.startswith("`acc` needs 524288 bytes of L0C"), finding.message
    assert NOTE in finding.message


def test_the_same_finding_in_a_called_inline_function_does_not(tmp_path: Path) -> None:
    findings = _findings(tmp_path, HELPER + CALLER)
    assert findings and all(f.rule.id == "PV008" for f in findings)
    assert not any(NOTE in f.message for f in findings)
