"""Engines that fail fail once (issue 15, item 3), with fake `souffle` scripts on a PATH built in tmp_path:
`--engine auto` falls back to the embedded clingo with one warning when souffle's `--version` fails or hangs;
an explicit `--engine souffle` that cannot run is a usage error (exit 2) before any work; garbage output is
an engine failure (never an empty relation, so never a silent pass); a hanging engine costs the run one
more `--engine-timeout`, not one per file."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import pytest

from hostile import GOOD, check
from pypto_verify import engines
from pypto_verify.engines import souffle_engine
from pypto_verify.run import Options, run

SCRIPTS = {
    "exits-1": "exit 1\n",
    "hangs": "exec sleep 60\n",
    "prints-garbage": 'if [ "$1" = --version ]; then echo "Version: 9.9.9"; exit 0; fi\n'
                      'echo "%%%% garbage %%%%"; exit 0\n',
    "runs-forever": 'if [ "$1" = --version ]; then echo "Version: 9.9.9"; exit 0; fi\nsleep 60\n',
}


@pytest.fixture()
def fake_souffle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Put a `souffle` that behaves as *kind* first on PATH, the per-process probes forgotten."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    monkeypatch.setattr(souffle_engine, "VERSION_TIMEOUT", 1.0)
    monkeypatch.setattr(souffle_engine, "_VERSIONS", {})
    monkeypatch.setattr(engines, "_PROBED", {})

    def put(kind: str) -> Path:
        directory = tmp_path / "bin"
        directory.mkdir(exist_ok=True)
        script = directory / "souffle"
        script.write_text("#!/bin/sh\n" + SCRIPTS[kind])
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")
        return directory
    return put


def _kernels(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        path = tmp_path / f"k{i}.py"
        path.write_text(GOOD + f"# copy {i}\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("kind", ["exits-1", "hangs"])
def test_auto_falls_back_to_clingo_with_one_warning_when_souffle_does_not_run(
        tmp_path: Path, fake_souffle, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    fake_souffle(kind)
    began = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="pypto_verify.engines"):
        result = run(_kernels(tmp_path, 3), Options(jobs=1, sim=False))
    assert time.monotonic() - began < 30
    assert [k.verdict for k in result.kernels] == ["verified"] * 3
    warnings = [r.getMessage() for r in caplog.records if "does not run" in r.getMessage()]
    assert len(warnings) == 1 and "using the embedded clingo engine" in warnings[0]


@pytest.mark.parametrize("kind", ["exits-1", None])
def test_an_explicit_souffle_that_cannot_run_is_a_usage_error_before_any_work(tmp_path: Path, fake_souffle,
                                                                               kind: str | None) -> None:
    (tmp_path / "k.py").write_text(GOOD)
    directory = fake_souffle(kind) if kind else tmp_path / "empty"
    directory.mkdir(exist_ok=True)
    done = check("k.py", "--engine", "souffle", cwd=tmp_path,
                 env={"PATH": f"{directory}{os.pathsep}{Path(sys.executable).parent}"})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "Error: --engine souffle cannot run: " in done.stderr and not done.stdout
    assert not (tmp_path / ".cache" / "pypto-verify" / "results").exists()  # no work was done


def test_garbage_engine_output_is_never_an_empty_relation(tmp_path: Path, fake_souffle) -> None:
    fake_souffle("prints-garbage")
    result = run(_kernels(tmp_path, 2), Options(jobs=1, sim=False, engine="souffle"))
    assert {k.verdict for k in result.kernels} == {"findings"}
    assert {f.rule.id for f in result.findings} == {"PV999"}
    assert all("the Datalog rules failed on this file (souffle wrote no " in f.message for f in result.findings)


def test_garbage_in_an_output_csv_is_an_engine_error(tmp_path: Path) -> None:
    from pypto_verify.engines.souffle_lang import EngineError

    with pytest.raises(EngineError, match="not Soufflé's output"):
        souffle_engine._parse_csv("1\tx\nnot-a-number\ty\n", ("number", "symbol"), tmp_path / "r.csv")
    with pytest.raises(EngineError, match="expected 2 tab-separated values"):
        souffle_engine._parse_csv("1\tx\n2", ("number", "symbol"), tmp_path / "r.csv")  # cut short


def test_a_hanging_engine_costs_the_run_one_more_timeout_not_one_per_file(tmp_path: Path, fake_souffle) -> None:
    fake_souffle("runs-forever")
    began = time.monotonic()
    result = run(_kernels(tmp_path, 6), Options(jobs=1, sim=False, smt=False, engine="souffle", engine_timeout=2.0))
    spent = time.monotonic() - began
    assert spent < 9, spent  # the batch's 2 s, then 2 s shared by the six retries (not 2 + 6 * 2 s)
    assert {k.verdict for k in result.kernels} == {"inconclusive"}
    assert {f.rule.id for f in result.findings} == {"PV100"}
