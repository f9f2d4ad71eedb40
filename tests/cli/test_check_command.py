"""`pypto-verify check`: exit codes, the JSON contract, SARIF, suppressions, baselines, the gate, the cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORM3 = ROOT / "tests" / "fixtures" / "form3"
CORPUS = ROOT / "corpus"

GOOD = CORPUS / "dense_decode_qkv.py"
BAD = FORM3 / "shape_b_post_if_read.py"


def run(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "pypto_verify.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env=full_env, timeout=600)


@pytest.fixture
def cache_home(tmp_path: Path) -> dict:
    return {"XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_clean_kernel_exits_0_and_defect_exits_1(cache_home) -> None:
    assert run("check", str(GOOD), "--no-sim", env=cache_home).returncode == 0
    bad = run("check", str(BAD), "--no-sim", env=cache_home)
    assert bad.returncode == 1
    assert "PV004 clobbered-read" in bad.stdout and "mem_acc_5[0:4096]" in bad.stdout


def test_broken_file_in_a_directory_run_yields_pv000_and_every_other_result(tmp_path: Path, cache_home) -> None:
    shutil.copy(GOOD, tmp_path / "good.py")
    shutil.copy(CORPUS / "model_config.py", tmp_path / "model_config.py")
    (tmp_path / "broken.py").write_text("import pypto.language as pl\n\n@pl.jit\ndef k(:\n    pass\n")
    result = run("check", str(tmp_path), "--no-sim", "--format", "json", env=cache_home)
    assert result.returncode == 2  # input errors and nothing worse
    data = json.loads(result.stdout)
    by_path = {Path(f["path"]).name: f for f in data["files"]}
    assert by_path["broken.py"]["status"] == "input-error"
    assert by_path["good.py"]["status"] == "ok"
    assert {k["verdict"] for k in by_path["good.py"]["kernels"]} == {"verified"}
    assert [f["rule"] for f in data["findings"]] == ["PV000"]
    assert data["findings"][0]["line"] == 4


def test_json_report_follows_the_output_contract(cache_home) -> None:
    data = json.loads(run("check", str(BAD), str(GOOD), "--format", "json", env=cache_home).stdout)
    assert data["tool"] == "pypto-verify" and data["version"]
    assert data["sites"] == sum(f["sites"] for f in data["files"])
    for file in data["files"]:
        assert set(file) >= {"path", "status", "sites", "kernels"}
        for kernel in file["kernels"]:
            assert kernel["verdict"] in {"verified", "findings", "inconclusive"}
            assert kernel["sim"] in {"match", "mismatch", "skipped"}
    good = next(f for f in data["files"] if f["path"].endswith("dense_decode_qkv.py"))
    assert {k["sim"] for k in good["kernels"]} == {"match"}
    finding = data["findings"][0]
    assert set(finding) >= {"rule", "name", "severity", "path", "line", "col", "kernel", "function", "message",
                            "windows", "values", "producers", "counterexample"}
    assert finding["rule"] == "PV004" and finding["severity"] == "error" and finding["line"] == 38
    assert finding["windows"][0] == "mem_acc_5[0:4096]"


def test_sarif_validates_and_fingerprints_survive_a_line_move(tmp_path: Path, cache_home) -> None:
    sarif_pydantic = pytest.importorskip("sarif_pydantic")
    moved = tmp_path / BAD.name
    moved.write_text("# a comment that moves every line down\n\n" + BAD.read_text())

    def sarif_of(path: Path) -> dict:
        result = run("check", str(path), "--format", "sarif", "--no-sim", env=cache_home)
        return json.loads(result.stdout)

    first, second = sarif_of(BAD), sarif_of(moved)
    sarif_pydantic.Sarif.model_validate(first)
    assert first["version"] == "2.1.0" and "sarif-2.1.0" in first["$schema"]
    driver = first["runs"][0]["tool"]["driver"]
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in driver["rules"])
    (a,), (b,) = first["runs"][0]["results"], second["runs"][0]["results"]
    assert a["locations"][0]["physicalLocation"]["region"]["startLine"] == 38
    assert b["locations"][0]["physicalLocation"]["region"]["startLine"] == 40
    assert a["partialFingerprints"] == b["partialFingerprints"]
    assert driver["rules"][a["ruleIndex"]]["id"] == a["ruleId"] == "PV004"


def test_inline_suppression_hides_the_finding_and_an_unused_one_is_reported(tmp_path: Path, cache_home) -> None:
    lines = BAD.read_text().splitlines()
    lines[37] += "  # pypto-verify: ignore[PV004]"
    lines[10] += "  # pypto-verify: ignore[PV003]"
    target = tmp_path / "suppressed.py"
    target.write_text("\n".join(lines) + "\n")
    data = json.loads(run("check", str(target), "--format", "json", "--no-sim", "--no-smt", env=cache_home).stdout)
    assert [(f["rule"], f["line"]) for f in data["findings"]] == [("PV900", 11)]


def test_baseline_reports_only_new_findings(tmp_path: Path, cache_home) -> None:
    baseline = tmp_path / "baseline.json"
    first = run("check", str(BAD), "--no-sim", "--write-baseline", str(baseline), env=cache_home)
    assert first.returncode == 1 and baseline.is_file()
    again = run("check", str(BAD), "--no-sim", "--baseline", str(baseline), env=cache_home)
    assert again.returncode == 0, again.stdout
    other = run("check", str(FORM3 / "shape_c_fragmented_chain.py"), "--no-sim", "--baseline", str(baseline),
                env=cache_home)
    assert other.returncode == 1


def test_select_and_ignore_filter_by_rule_prefix(cache_home) -> None:
    path = str(FORM3 / "shape_c_fragmented_chain.py")
    only = json.loads(run("check", path, "--no-sim", "--format", "json", "--select", "PV003", env=cache_home).stdout)
    assert {f["rule"] for f in only["findings"]} == {"PV003"}
    rest = json.loads(run("check", path, "--no-sim", "--format", "json", "--ignore", "PV003,PV009",
                          env=cache_home).stdout)
    assert {f["rule"] for f in rest["findings"]} == {"PV007"}


def test_min_sites_gate_fails_when_coverage_is_lost(cache_home) -> None:
    ok = run("check", str(GOOD), "--no-sim", "--min-sites", "2", env=cache_home)
    assert ok.returncode == 0
    short = run("check", str(GOOD), "--no-sim", "--min-sites", "95", env=cache_home)
    assert short.returncode == 1 and "fewer than --min-sites 95" in short.stderr


def _kernel_copy(tmp_path: Path) -> Path:
    """A copy of GOOD (with the config module it imports) that a test may edit."""
    target = tmp_path / "kernel.py"
    shutil.copy(GOOD, target)
    shutil.copy(CORPUS / "model_config.py", tmp_path / "model_config.py")
    return target


def test_cache_hit_imports_no_stage_engine_or_solver(tmp_path: Path, cache_home) -> None:
    target = _kernel_copy(tmp_path)
    probe = (
        "import sys, json\n"
        "from pypto_verify.run import Options, run\n"
        f"r = run([{str(target)!r}], Options(sim=False, jobs=1))\n"
        "heavy = ('z3', 'clingo', 'numpy', 'pypto_verify.frontend', 'pypto_verify.lowering',\n"
        "         'pypto_verify.run.chain', 'pypto_verify.engines.clingo_engine', 'pypto_verify.ir',\n"
        "         'pypto_verify.ops', 'pypto_verify.census', 'importlib.metadata')\n"
        "print(json.dumps({'cached': r.files[0].cached, 'loaded': [m for m in heavy if m in sys.modules]}))\n")
    env = {**os.environ, **cache_home}
    cold = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                     check=True).stdout)
    warm = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                     check=True).stdout)
    assert cold["cached"] is False
    assert warm == {"cached": True, "loaded": []}
    target.write_text(target.read_text() + "\n")
    changed = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                                        check=True).stdout)
    assert changed["cached"] is False


def test_a_warm_check_from_the_command_line_imports_no_ir(tmp_path: Path, cache_home) -> None:
    """The CLI's own start-up (option parsing: `--target`'s choices) imports no IR node classes and no
    package metadata: `TARGET_NAMES` spells the targets, a directory listing finds clingo's version."""
    target = _kernel_copy(tmp_path)
    probe = (
        "import sys, json\n"
        "from pypto_verify.cli import main\n"
        "try:\n"
        f"    main(['check', {str(target)!r}, '--no-sim', '--format', 'json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pypto_verify.ir', 'pypto_verify.target', 'importlib.metadata', 'numpy', 'z3', 'clingo')\n"
        "sys.stderr.write(json.dumps([m for m in heavy if m in sys.modules]))\n")
    env = {**os.environ, **cache_home}
    subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    warm = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert json.loads(warm.stderr.strip().splitlines()[-1]) == []


def test_a_warm_text_report_with_code_frames_parses_nothing_and_imports_no_engine(tmp_path: Path, cache_home) -> None:
    """The text report of a replayed finding shows its code frame from the kept extent (`source.py`): no
    `ast.parse` of the kernel, and neither numpy, z3 nor clingo."""
    target = tmp_path / "bad.py"
    shutil.copy(BAD, target)
    probe = (
        "import ast, sys, json\n"
        "parsed = []\n"
        "real = ast.parse\n"
        "ast.parse = lambda *a, **k: parsed.append(1) or real(*a, **k)\n"
        "from pypto_verify.cli import main\n"
        "try:\n"
        f"    main(['check', {str(target)!r}, '--no-sim'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('numpy', 'z3', 'clingo', 'pypto_verify.frontend')\n"
        "sys.stderr.write(json.dumps([len(parsed), [m for m in heavy if m in sys.modules]]))\n")
    env = {**os.environ, **cache_home}
    cold = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    warm = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert "PV004 clobbered-read" in warm.stdout and "|" in warm.stdout and warm.stdout == cold.stdout
    assert json.loads(warm.stderr.strip().splitlines()[-1]) == [0, []]


def test_the_cli_names_every_target_and_the_engine_version_its_metadata_gives() -> None:
    from importlib.metadata import version

    from pypto_verify.cli import TARGET_NAMES
    from pypto_verify.engines import _installed_version
    from pypto_verify.target import TARGETS

    assert sorted(TARGET_NAMES) == sorted(TARGETS)
    assert _installed_version("clingo") == version("clingo")
