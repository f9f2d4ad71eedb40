"""The CI slice of the hostile-input fuzzer (`benchmarks/hostile_fuzz.py`, docs/RELIABILITY.md "Hostile inputs"):
a few dozen seeded inputs of every kind — token deletion, duplication and swap over the corpus kernels, random
bytes, deep nesting, huge literals, unicode names, file names with spaces, tabs and newlines, file-system
oddities — through the real command line. Never a traceback, never a hang past the deadline, never an input
executed, never a lost result, never a PV999: every input gets a verdict, a located PV000, or has no kernel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import hostile_fuzz as hostile  # noqa: E402

SEED = 15
COUNT = 36  # four of each kind


@pytest.fixture(scope="module")
def outcome() -> dict:
    inputs = hostile.make_inputs(SEED, COUNT)
    return {"inputs": inputs, "result": hostile.run_batch(inputs, deadline=240.0)}


def test_every_kind_is_generated(outcome: dict) -> None:
    assert {i.kind for i in outcome["inputs"]} == set(hostile.KINDS)


def test_hostile_inputs_never_crash_hang_run_or_lose_a_result(outcome: dict) -> None:
    result = outcome["result"]
    assert "failure" not in result, result
    assert result["lost"] == [] and result["internal"] == []
    listed = [i for i in outcome["inputs"] if hostile._expected(i)]
    assert sorted(result["outcomes"]) == sorted(i.name for i in listed)
    assert set(result["outcomes"].values()) <= {"verdict", "pv000", "no-kernel"}, result["outcomes"]


def test_the_judge_sees_a_lost_result_and_a_pv999() -> None:
    """The oracle itself: a report missing a file, or holding a PV999, is a failure it reports."""
    inputs = [hostile.Input("a.py", "bytes", b"x"), hostile.Input("b.py", "bytes", b"y")]
    directory = Path("/d")
    report = {"files": [{"path": "/d/a.py", "kernels": []}],
              "findings": [{"path": "/d/a.py", "rule": "PV999", "line": 1, "col": 1, "message": "boom"}]}
    judged = hostile.judge(directory, inputs, report)
    assert judged["lost"] == ["b.py"] and [i["input"] for i in judged["internal"]] == ["a.py"]


FOUND = Path(__file__).resolve().parent / "found"
"""Inputs the long runs found (docs/RELIABILITY.md, "Hostile inputs"), kept as regression cases."""


def test_a_nan_fill_of_an_integer_tile_is_not_simulated_with_the_reason(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 5, input 6080: `float('nan')` as an INT8 tile's fill value was a `ValueError` in emission (PV999)."""
    from pypto_verify.run import Options, run

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    result = run([str(FOUND / "nan_fill_of_an_int8_tile.py")], Options(cache=False, jobs=1))
    assert not result.findings
    reasons = {k.function: k.sim_reason for k in result.kernels}
    assert reasons["pred_split_i8"] == "emit: `tile.full`: fill value nan for an integer tile"


def test_a_negative_window_extent_is_pv000_at_the_slice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 6, input 8096: `K_TILE = -1` made a `partition_tensor_view<16x-1xbf16>` the simulator rejects (PV999),
    and the kernel verified statically; a slice of no element is an input error where it is written."""
    from pypto_verify.run import Options, run

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    result = run([str(FOUND / "negative_k_tile.py")], Options(cache=False, jobs=1))
    assert [(f.rule.id, f.span.line, f.span.col) for f in result.findings] == [("PV000", 24, 43)]
    assert "its extent along dimension 1 is -1" in result.findings[0].message
    assert result.kernels == []


def test_an_empty_window_in_a_branch_the_constants_make_dead_is_no_input_error(tmp_path: Path) -> None:
    """pypto-lib `deepseek_v4_pro/lm_head.py:209`: `if VOCAB_TAIL != 0:` guards a slice `VOCAB_TAIL` rows long,
    and VOCAB_TAIL is 0 with the defaults; only a negative extent is a PV000 at the slice."""
    from pypto_verify.frontend import read_file

    kernel = tmp_path / "tail.py"
    kernel.write_text(
        "import pypto.language as pl\n\nN, TILE, K = 256, 128, 128\nTAIL = N % TILE\n\n\n@pl.jit\n"
        "def tail(x: pl.Tensor[[16, K], pl.BF16], w: pl.Tensor[[N, K], pl.BF16],\n"
        "         y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"tail\"):\n"
        "        if TAIL != 0:\n"
        "            y[:, N - TAIL : N] = pl.matmul(x, w[N - TAIL : N, :], b_trans=True, out_dtype=pl.FP32)\n"
        "    return y\n", encoding="utf-8")
    assert read_file(kernel).errors == ()
