"""The command line behaves like ruff's and mypy's (issue 16): `-o` into a new directory, rule selectors by id,
prefix or name, `explain` of a rule by any spelling and `--all`, `python -m pypto_verify`, every command on
files or directories, `--exit-zero`, `-q` / `-v`, `--cache-dir` and `cache clean`, stdin, `[tool.pypto-verify]`,
exit 4 for an internal error, shell completion."""

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
BAD = FORM3 / "shape_b_post_if_read.py"  # PV004 at 38:9
FRAGMENTED = FORM3 / "shape_c_fragmented_chain.py"  # PV003, PV007, PV009
GOOD = ROOT / "corpus" / "edge_combined_predicate.py"


def run(*args: str, cwd: Path = ROOT, env: dict | None = None, stdin: str | None = None,
        module: str = "pypto_verify") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, input=stdin, timeout=600)


@pytest.fixture
def env(tmp_path: Path) -> dict:
    """A cache of this test's own (no result of another test is replayed)."""
    return {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PYPTO_VERIFY_CACHE_DIR": ""}


def _json(result: subprocess.CompletedProcess) -> dict:
    assert result.stdout, result.stderr
    return json.loads(result.stdout)


# ------------------------------------------------------------------------------------------- python -m, -o


def test_python_dash_m_pypto_verify_runs_the_command_line() -> None:
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith("pypto-verify"), result.stderr


def test_output_into_a_missing_directory_creates_it(tmp_path: Path, env) -> None:
    target = tmp_path / "reports" / "deep" / "out.json"
    result = run("check", str(BAD), "--no-sim", "--no-smt", "--jobs", "1", "--format", "json", "-o", str(target),
                 env=env)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    assert [f["rule"] for f in json.loads(target.read_text())["findings"]] == ["PV004"]


def test_output_whose_directory_cannot_be_made_is_a_usage_error_before_the_run(tmp_path: Path, env) -> None:
    (tmp_path / "file").write_text("")
    result = run("check", str(BAD), "--jobs", "1", "-o", str(tmp_path / "file" / "out.json"), env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot create the directory" in result.stderr


# ------------------------------------------------------------------------------------------- rule selectors


@pytest.fixture(scope="module")
def selectors_env(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One cache for the selector tests: the first checks the kernel, the others filter its replayed result
    (a selection is applied to a run's findings, cached or not, and is no part of the key)."""
    return {"XDG_CACHE_HOME": str(tmp_path_factory.mktemp("xdg")), "PYPTO_VERIFY_CACHE_DIR": ""}


@pytest.mark.parametrize("selector, expected", [
    ("pv003", {"PV003"}), ("inplace-alias", {"PV003"}), ("PV00", {"PV003", "PV007", "PV009"}),
    ("pv0", {"PV003", "PV007", "PV009"}), ("fragmented-chain,Pv007", {"PV007", "PV009"})])
def test_select_takes_ids_in_any_case_prefixes_and_names(selector: str, expected: set[str], selectors_env) -> None:
    data = _json(run("check", str(FRAGMENTED), "--no-sim", "--jobs", "1", "--format", "json", "--select", selector,
                     env=selectors_env))
    assert {f["rule"] for f in data["findings"]} == expected


def test_ignore_by_name(selectors_env) -> None:
    data = _json(run("check", str(FRAGMENTED), "--no-sim", "--jobs", "1", "--format", "json",
                     "--ignore", "inplace-alias", "--ignore", "pv009", env=selectors_env))
    assert {f["rule"] for f in data["findings"]} == {"PV007"}


@pytest.mark.parametrize("option, selector", [("--select", "XYZ"), ("--ignore", "PV7"), ("--select", "PV004,nope")])
def test_a_selector_that_matches_no_rule_is_a_usage_error_before_any_work(option: str, selector: str,
                                                                          tmp_path: Path, env) -> None:
    result = run("check", str(BAD), "--jobs", "1", option, selector, env=env)
    assert result.returncode == 2
    unknown = selector.split(",")[-1]
    assert f"`{unknown}` matches no rule" in result.stderr
    assert not (tmp_path / "xdg" / "pypto-verify").exists()  # nothing ran, nothing was cached


def test_resolve_selectors_unit() -> None:
    from pypto_verify import rules

    assert rules.resolve_selectors(["pv1"]) == {r for r in rules.RULES if r.startswith("PV1")}
    assert rules.resolve_selectors(["clobbered-read, PV000"]) == {"PV004", "PV000"}
    with pytest.raises(ValueError, match="`P V` matches no rule"):
        rules.resolve_selectors(["pv004", "P V"])


# ------------------------------------------------------------------------------------------- explain


@pytest.mark.parametrize("word", ["PV004", "pv004", "clobbered-read"])
def test_explain_names_a_rule_by_any_spelling(word: str) -> None:
    result = run("explain", word)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("PV004 clobbered-read (error):")


def test_explain_all_lists_every_rule() -> None:
    from pypto_verify.rules import RULES

    result = run("explain", "--all")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [[r.id, r.name] for r in sorted(RULES.values(), key=lambda r: r.id)]


def test_explain_of_neither_a_rule_nor_a_path_is_a_usage_error() -> None:
    result = run("explain", "clobbered")
    assert result.returncode == 2 and "neither a rule" in result.stderr


def test_the_rule_table_does_not_mention_an_option_that_does_not_exist() -> None:
    assert "--list-rules" not in (ROOT / "pypto_verify" / "rules.py").read_text()


# ------------------------------------------------------------------------------------------- files or directories


@pytest.mark.parametrize("command", ["lower", "prove", "emit", "sim", "explain"])
def test_every_command_takes_several_files_and_directories(command: str, tmp_path: Path, env) -> None:
    (tmp_path / "a").mkdir()
    shutil.copy(GOOD, tmp_path / "a" / "one.py")
    shutil.copy(GOOD, tmp_path / "two.py")
    result = run(command, str(tmp_path / "a"), str(tmp_path / "two.py"), env=env)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    if command in ("lower", "emit"):
        assert str(tmp_path / "a" / "one.py") in out and str(tmp_path / "two.py") in out
    elif command == "sim":
        assert out.count("combined_rows: match") == 2
    else:
        assert str(tmp_path / "a" / "one.py") in out and str(tmp_path / "two.py") in out


# ------------------------------------------------------------------------------------------- exit codes, -q, -v


def test_exit_zero_quiet_and_verbose(env) -> None:
    args = ("check", str(BAD), "--no-sim", "--jobs", "1")
    plain = run(*args, env=env)
    assert plain.returncode == 1 and "1 file, 1 kernel " in plain.stdout
    assert run(*args, "--exit-zero", env=env).returncode == 0
    quiet = run(*args, "-q", env=env)
    assert quiet.returncode == 1
    assert quiet.stdout.splitlines()[0].startswith(f"{BAD}:38:9: PV004") and "idiom site" not in quiet.stdout
    verbose = run(*args, "-v", "--no-cache", env=env)
    assert f"{BAD}: ShapeB.main: findings" in verbose.stdout
    assert f"{BAD}: read " in verbose.stderr and "lower " in verbose.stderr
    assert f"{BAD}: cached" in run(*args, "-v", env=env).stderr


def test_an_internal_error_exits_4_even_with_exit_zero() -> None:
    from pypto_verify import rules
    from pypto_verify.cli.check_cmd import exit_code
    from pypto_verify.findings import Finding
    from pypto_verify.run.records import FileResult, Options, RunResult
    from pypto_verify.span import Span

    def report(*found: Finding) -> RunResult:
        return RunResult((FileResult("k.py", findings=found),), Options())

    crash = Finding(rules.INTERNAL_ERROR, Span("k.py", 3, 1), "lowering failed", "k", "k")
    bad = Finding(rules.CLOBBERED_READ, Span("k.py", 4, 1), "read", "k", "k")
    assert exit_code(report(crash, bad), strict=False, min_sites=0, exit_zero=True) == 4
    assert exit_code(report(bad), strict=False, min_sites=0, exit_zero=False) == 1
    assert exit_code(report(bad), strict=False, min_sites=0, exit_zero=True) == 0
    assert exit_code(report(), strict=False, min_sites=5, exit_zero=False) == 1


def test_the_exit_code_table_is_in_check_help_and_the_readme() -> None:
    help_text = run("check", "--help").stdout
    readme = (ROOT / "README.md").read_text()
    for code in ("0", "1", "2", "3", "4"):
        assert f"  {code}  " in help_text
        assert f"| {code} |" in readme
    assert "PV999" in help_text


# ------------------------------------------------------------------------------------------- cache dir


def test_cache_dir_option_env_var_and_cache_commands(tmp_path: Path, env) -> None:
    chosen = tmp_path / "mine"
    assert run("check", str(GOOD), "--no-sim", "--jobs", "1", "--cache-dir", str(chosen), env=env).returncode == 0
    assert list((chosen / "results").rglob("*.json")) and list((chosen / "manifests").rglob("*.json"))
    assert not (tmp_path / "xdg" / "pypto-verify" / "results").exists()
    by_env = {**env, "PYPTO_VERIFY_CACHE_DIR": str(chosen)}
    assert run("cache", "dir", env=by_env).stdout.strip() == str(chosen)
    assert run("cache", "dir", "--cache-dir", str(tmp_path / "x"), env=env).stdout.strip() == str(tmp_path / "x")
    cleaned = run("cache", "clean", env=by_env)
    assert cleaned.returncode == 0 and "removed" in cleaned.stdout
    assert not chosen.exists()
    assert run("cache", "clean", env=by_env).returncode == 0  # nothing to clean is no error


def test_cache_clean_refuses_a_directory_that_is_not_a_cache(tmp_path: Path, env) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    result = run("cache", "clean", "--cache-dir", str(tmp_path), env=env)
    assert result.returncode == 2 and (tmp_path / "precious.txt").exists()


# ------------------------------------------------------------------------------------------- stdin


def test_stdin_is_checked_and_reported_under_stdin_filename(tmp_path: Path, env) -> None:
    result = run("check", "-", "--stdin-filename", "kernels/mine.py", "--no-sim", "--jobs", "1", env=env,
                 stdin=BAD.read_text(), cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(f"{Path('kernels/mine.py')}:38:9: PV004 clobbered-read")
    assert not (tmp_path / "xdg" / "pypto-verify" / "results").exists()  # stdin is never cached


def test_stdin_resolves_sibling_modules_beside_stdin_filename(tmp_path: Path, env) -> None:
    shutil.copy(ROOT / "corpus" / "model_config.py", tmp_path / "model_config.py")
    kernel = (ROOT / "corpus" / "dense_decode_qkv.py").read_text()
    result = run("check", "-", "--stdin-filename", str(tmp_path / "qkv.py"), "--no-sim", "--jobs", "1",
                 "--format", "json", env=env, stdin=kernel)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {k["verdict"] for f in _json(result)["files"] for k in f["kernels"]} == {"verified"}


def test_stdin_filename_without_dash_is_a_usage_error(env) -> None:
    assert run("check", str(GOOD), "--stdin-filename", "x.py", env=env).returncode == 2


# ------------------------------------------------------------------------------------------- [tool.pypto-verify]


def _project(tmp_path: Path, table: str) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(f"[project]\nname = 'kernels'\n\n[tool.pypto-verify]\n{table}")
    shutil.copy(FRAGMENTED, project / "k.py")
    return project


def test_every_check_option_can_be_set_in_pyproject_and_the_command_line_overrides_it(tmp_path: Path, env) -> None:
    project = _project(tmp_path, 'format = "json"\nselect = ["pv003"]\nno-sim = true\njobs = 1\n'
                                 'output = "out/report.json"\n')
    result = run("check", "k.py", cwd=project, env=env)
    assert result.returncode == 1, result.stderr
    assert {f["rule"] for f in json.loads((project / "out" / "report.json").read_text())["findings"]} == {"PV003"}
    override = run("check", "k.py", "--select", "PV009", "--format", "text", "-o", "other.txt", cwd=project, env=env)
    shown = (project / "other.txt").read_text()
    assert "PV009 fragmented-chain" in shown and "PV003" not in shown


def test_every_check_option_is_a_config_key() -> None:
    from pypto_verify.cli.check_cmd import command
    from pypto_verify.cli.config import option_names

    keys = set(option_names(command))
    flags = {o[2:] for p in command.params for o in p.opts if o.startswith("--")}
    assert flags - {"help"} <= keys | {"help"}


@pytest.mark.parametrize("table, message", [
    ('selekt = ["PV003"]\n', "unknown key 'selekt'"),
    ("no-sim = 3\n", "no-sim must be true or false"),
    ('select = ["PV0"\n', "cannot read"),
])
def test_a_bad_config_is_a_usage_error_naming_the_key(table: str, message: str, tmp_path: Path, env) -> None:
    project = _project(tmp_path, table)
    result = run("check", "k.py", cwd=project, env=env)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------------------------------- shell completion


def test_shell_completion_emits_a_bash_script() -> None:
    script = Path(sys.executable).parent / "pypto-verify"
    if not script.exists():
        pytest.skip("the console script is not installed beside this interpreter")
    result = subprocess.run([str(script)], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "_PYPTO_VERIFY_COMPLETE": "bash_source"})
    assert result.returncode == 0
    assert "_pypto_verify_completion" in result.stdout and "complete " in result.stdout
    assert "_PYPTO_VERIFY_COMPLETE=bash_source pypto-verify" in (ROOT / "README.md").read_text()
