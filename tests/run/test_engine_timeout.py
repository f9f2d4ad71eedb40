"""An engine time-out is a limit, not a crash: the file's kernels are inconclusive (PV100, with the limit
and how to raise it), the result is cached under the options that produced it, and a larger
`--engine-timeout` is another key (ARCHITECTURE.md "Caching"; issue 18, item 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_verify.run import Options, run

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "corpus" / "edge_trip_count_one.py"


@pytest.fixture()
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    target = tmp_path / "kernel.py"
    shutil.copy(KERNEL, target)
    shutil.copy(KERNEL.parent / "model_config.py", tmp_path / "model_config.py")
    return target


def test_a_time_out_is_inconclusive_and_cached(kernel: Path) -> None:
    tight = Options(engine="clingo", engine_timeout=1e-6, sim=False, smt=False, jobs=1)
    first = run([str(kernel)], tight)
    pv100 = [f for f in first.findings if f.rule.id == "PV100"]
    assert pv100 and all("did not finish" in f.message and "--engine-timeout" in f.message for f in pv100)
    assert {k.verdict for k in first.kernels} == {"inconclusive"}
    assert first.exit_code() == 0 and first.exit_code(strict=True) == 3
    again = run([str(kernel)], tight)
    assert again.files[0].cached and [f.message for f in again.findings] == [f.message for f in first.findings]
    roomy = run([str(kernel)], Options(engine="clingo", sim=False, smt=False, jobs=1))
    assert not roomy.files[0].cached
    assert not [f for f in roomy.findings if f.rule.id == "PV100"]


def test_the_command_line_limit_is_reported_cached_and_raised(kernel: Path) -> None:
    from click.testing import CliRunner

    from pypto_verify.cli import main

    def check(*options: str):
        return CliRunner().invoke(main, ["check", str(kernel), "--no-sim", "--no-smt", "--engine", "clingo", "-v",
                                         *options], catch_exceptions=False)

    first = check("--engine-timeout", "1e-6")
    assert first.exit_code == 0 and "PV100" in first.stdout and "raise --engine-timeout" in first.stdout
    assert f"{kernel}: cached" not in first.stderr
    again = check("--engine-timeout", "1e-6")
    assert f"{kernel}: cached" in again.stderr and again.stdout == first.stdout  # the next run replays it
    assert check("--engine-timeout", "1e-6", "--strict").exit_code == 3
    raised = check()  # the default limit: another key, run again, and the rules finish
    assert f"{kernel}: cached" not in raised.stderr and "PV100" not in raised.stdout and raised.exit_code == 0
