"""The result cache stores a file's result by content and replays it onto the path as given
(`pypto_verify/run/cache.py`): a copy, a rename or another working directory reports under its own name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pypto_verify.run import Options, run
from pypto_verify.run.cache import ResultCache

DEFECT = Path(__file__).resolve().parents[2] / "corpus" / "defects" / "pv004_read_after_inplace.py"
OPTIONS = Options(sim=False, smt=False, engine="clingo", jobs=1)


@pytest.fixture(autouse=True)
def _cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _where(result) -> list[tuple[str, ...]]:
    """Each finding's path and the set of its notes' paths (the PV004 notes: the write and the overwrite)."""
    return [(f.span.path, *sorted({n.span.path for n in f.notes})) for f in result.findings]


def test_identical_files_each_report_under_their_own_path(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "x.py", tmp_path / "b" / "y.py"
    for path in (first, second):
        path.parent.mkdir()
        shutil.copy(DEFECT, path)
    cold = run([str(first)], OPTIONS)
    assert not cold.files[0].cached
    warm = run([str(first), str(second)], OPTIONS)
    assert [f.cached for f in warm.files] == [True, True]
    assert _where(warm) == [(str(first), str(first)), (str(second), str(second))]


def test_a_cached_result_follows_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(DEFECT, tmp_path / "x.py")
    run([str(tmp_path / "x.py")], OPTIONS)
    monkeypatch.chdir(tmp_path)
    warm = run(["x.py"], OPTIONS)
    assert warm.files[0].cached and _where(warm) == [("x.py", "x.py")]


@pytest.mark.parametrize("entry", ["{}", "null", "[]", '{"status": "ok", "sites": [], "kernels": [], '
                                                      '"findings": [{"rule": "PV777"}]}'])
def test_an_entry_of_the_wrong_shape_is_a_miss_not_a_crash(tmp_path: Path, entry: str) -> None:
    shutil.copy(DEFECT, tmp_path / "x.py")
    run([str(tmp_path / "x.py")], OPTIONS)
    cache = ResultCache(OPTIONS)
    key = cache._key(tmp_path / "x.py")
    assert key is not None
    (cache.root / key[:2] / f"{key}.json").write_text(entry, encoding="utf-8")
    again = run([str(tmp_path / "x.py")], OPTIONS)
    assert not again.files[0].cached and [f.rule.id for f in again.findings] == ["PV004"]
    assert json.loads((cache.root / key[:2] / f"{key}.json").read_text())["status"] == "ok"  # rewritten
