"""Directory walks honour `[tool.pypto-verify] exclude` of the nearest pyproject.toml, wherever run from."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_verify.pipeline import collect_files


def test_walk_skips_excluded_dirs_but_an_explicit_one_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-verify]\nexclude = ["kernels/bad"]\n')
    (tmp_path / "kernels" / "bad").mkdir(parents=True)
    (tmp_path / "kernels" / "good.py").write_text("x = 1\n")
    (tmp_path / "kernels" / "bad" / "planted.py").write_text("x = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert [p.name for p in collect_files([str(tmp_path / "kernels")])] == ["good.py"]
    assert [p.name for p in collect_files([str(tmp_path / "kernels" / "bad")])] == ["planted.py"]
    assert [p.name for p in collect_files([str(tmp_path / "kernels" / "bad" / "planted.py")])] == ["planted.py"]
    assert len(collect_files([str(tmp_path / "kernels")], exclude=())) == 2
