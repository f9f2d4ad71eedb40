"""The pre-commit hook blocks a commit of a bad kernel and lets a good one through (throwaway git repo).

The hook definition (`.pre-commit-hooks.yaml`) is read and installed as the repository's git
`pre-commit` hook exactly as pre-commit runs it: `entry` plus the staged files that match `types:
[python]`, serially. When the `pre-commit` tool itself is installed, `pre-commit try-repo` is run too.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "corpus" / "edge_combined_predicate.py"
BAD = ROOT / "tests" / "fixtures" / "form3" / "shape_b_post_if_read.py"


def _hook() -> dict[str, str]:
    hook: dict[str, str] = {}
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines():
        key, _, value = line.lstrip("- ").partition(":")
        if value.strip():
            hook[key.strip()] = value.strip()
    return hook


def test_hook_definition_is_what_pre_commit_needs() -> None:
    hook = _hook()
    assert hook["id"] == "pypto-verify" and hook["language"] == "python"
    assert hook["types"] == "[python]" and hook["require_serial"] == "true"
    assert hook["entry"].split()[0] == "pypto-verify"


def _git(repo: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict]:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "kernels"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    _git(repo, "init", "-q", env=env)
    entry = _hook()["entry"].split()
    command = " ".join(shlex.quote(part) for part in [sys.executable, "-m", "pypto_verify.cli", *entry[1:]])
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n"
                    "files=$(git diff --cached --name-only --diff-filter=ACM -- '*.py')\n"
                    "[ -z \"$files\" ] && exit 0\n"
                    f"exec {command} $files\n")
    hook.chmod(0o755)
    return repo, env


def test_good_kernel_commits_and_bad_kernel_is_rejected(repo) -> None:
    path, env = repo
    shutil.copy(GOOD, path / "good.py")
    _git(path, "add", "good.py", env=env)
    ok = _git(path, "commit", "-q", "-m", "good kernel", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    shutil.copy(BAD, path / "bad.py")
    _git(path, "add", "bad.py", env=env)
    rejected = _git(path, "commit", "-q", "-m", "bad kernel", env=env)
    assert rejected.returncode != 0
    assert "bad.py:38:9: PV004 clobbered-read" in rejected.stdout + rejected.stderr  # git shows hook output on stderr
    assert _git(path, "log", "--oneline", env=env).stdout.count("\n") == 1


def test_real_pre_commit_tool_when_installed(repo) -> None:
    if shutil.which("pre-commit") is None:
        pytest.skip("the pre-commit tool is not installed; the git-hook emulation above covers the contract")
    path, env = repo
    shutil.copy(BAD, path / "bad.py")
    _git(path, "add", "bad.py", env=env)
    result = subprocess.run(["pre-commit", "try-repo", str(ROOT), "pypto-verify", "--files", "bad.py"],
                            cwd=path, capture_output=True, text=True, env=env, timeout=1200)
    assert result.returncode == 1 and "PV004" in result.stdout


def test_a_commit_of_only_a_constants_module_rechecks_the_kernels_that_import_it(repo) -> None:
    """Issue 16: `model_config.py` changed alone (`BATCH = 4096`) must fail on the kernel it breaks (PV008)."""
    path, env = repo
    shutil.copy(ROOT / "corpus" / "model_config.py", path / "model_config.py")
    shutil.copy(ROOT / "corpus" / "dense_decode_qkv.py", path / "qkv.py")
    _git(path, "add", "model_config.py", "qkv.py", env=env)
    assert _git(path, "commit", "-q", "-m", "kernel and config", env=env).returncode == 0
    config = (path / "model_config.py").read_text()
    assert "BATCH = 16\n" in config
    (path / "model_config.py").write_text(config.replace("BATCH = 16\n", "BATCH = 4096\n"))
    _git(path, "add", "model_config.py", env=env)
    rejected = _git(path, "commit", "-q", "-m", "bigger batch", env=env)
    assert rejected.returncode != 0
    assert "qkv.py:" in rejected.stderr and "PV008 l0c-capacity" in rejected.stderr, rejected.stderr
