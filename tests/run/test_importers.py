"""A named module that defines no kernel brings the kernels that import it (`run/imports.py`, `run/spine.py`):
resolved as the frontend resolves local imports, transitively, within the project, excludes honoured."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_verify.frontend.constants import _find_module as frontend_find_module
from pypto_verify.run import Options, run
from pypto_verify.run.imports import _find_module, importers, project_files, project_root

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "kernels" / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "kernels" / "base.py").write_text("SCALE = 2\n")
    (root / "kernels" / "model_config.py").write_text("from base import SCALE\nBATCH = 16 * SCALE // 2\n")
    (root / "kernels" / "direct.py").write_text("import model_config\n")
    (root / "kernels" / "sub" / "relative.py").write_text("from ..model_config import BATCH\n")
    (root / "kernels" / "sub" / "via_package.py").write_text("from kernels import model_config\n")
    (root / "kernels" / "unrelated.py").write_text("import os\nX = 1\n")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("")
    (root / ".venv" / "leak.py").write_text("import model_config\n")
    return root


def test_importers_direct_relative_and_transitive(project: Path) -> None:
    files = project_files(project)
    assert project / ".venv" / "leak.py" not in files
    users = importers([project / "kernels" / "base.py"], files)
    names = sorted(p.relative_to(project).as_posix() for p in users)
    # via_package: `from kernels import model_config` from kernels/sub resolves kernels/sub/kernels — not ours
    assert names == ["kernels/direct.py", "kernels/model_config.py", "kernels/sub/relative.py"]


def test_project_root_is_the_nearest_marker(project: Path) -> None:
    assert project_root(project / "kernels" / "sub" / "relative.py") == project


def test_the_resolution_is_the_frontends() -> None:
    """One function resolves a local import for the frontend, the cache key and the importers."""
    assert _find_module is frontend_find_module


def test_check_of_a_constants_module_checks_its_importers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'k'\n")
    shutil.copy(CORPUS / "model_config.py", root / "model_config.py")
    shutil.copy(CORPUS / "dense_decode_qkv.py", root / "qkv.py")
    shutil.copy(CORPUS / "edge_combined_predicate.py", root / "alone.py")  # imports nothing of ours
    options = Options(jobs=1, sim=False, cache=False)
    result = run([str(root / "model_config.py")], options)
    assert [Path(f.path).name for f in result.files] == ["model_config.py", "qkv.py"]
    assert {k.verdict for k in result.kernels} == {"verified"}
    only_kernel = run([str(root / "qkv.py")], options)  # a kernel brings nothing
    assert [Path(f.path).name for f in only_kernel.files] == ["qkv.py"]


def test_excluded_importers_are_not_brought(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "old").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.pypto-verify]\nexclude = [\"old\"]\n")
    shutil.copy(CORPUS / "model_config.py", root / "model_config.py")
    (root / "old" / "user.py").write_text("from ..model_config import BATCH\n")
    result = run([str(root / "model_config.py")], Options(jobs=1, sim=False, cache=False))
    assert [Path(f.path).name for f in result.files] == ["model_config.py"]
