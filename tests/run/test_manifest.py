"""The result cache's manifests (`run/manifest.py`; issue 18, item 4): a warm key is read back when the disk
still gives every answer it was computed from, without reading a module, and each module is read at most
once a run; any change to a file of the closure — even one that keeps its size and restores its mtime —,
a module created where one was absent, a symlink pointed elsewhere, is a miss; a file changed just
before it was read is racy and read again; a manifest of another shape is computed again."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hostile import GOOD
from pypto_verify.run import Options, manifest, run
from pypto_verify.run.cache import ResultCache

OPTIONS = Options(jobs=1, sim=False, smt=False)
KERNEL = "from model_config import ROWS\n" + GOOD.replace("[[64, 64], pl.FP32]]", "[[ROWS, 64], pl.FP32]]").replace(
    "[[64, 512], pl.BF16], b", "[[ROWS, 512], pl.BF16], b")


@pytest.fixture(autouse=True)
def _cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYPTO_VERIFY_CACHE_DIR", str(tmp_path / ".cache"))


@pytest.fixture()
def settled(monkeypatch: pytest.MonkeyPatch):
    """Files count as settled 50 ms after their last change instead of 2 s; returns the pause to wait."""
    monkeypatch.setattr(manifest, "RACY_NS", 50_000_000)
    return lambda: time.sleep(0.1)


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the manifests read from now on (their bytes, not their stat)."""
    seen: list[str] = []
    real = manifest.read_source_bytes

    def counting(path, limit):
        seen.append(os.path.basename(path))
        return real(path, limit)
    monkeypatch.setattr(manifest, "read_source_bytes", counting)
    return seen


def test_a_settled_warm_key_reads_no_file(tmp_path: Path, settled, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "from dims import BASE\nROWS = BASE\n",
                     "dims.py": "BASE = 64\n"})
    settled()
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    reads = _reads(monkeypatch)
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key
    assert reads == []


def test_each_module_is_read_once_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, {f"k{i}.py": KERNEL for i in range(4)})
    _tree(tmp_path, {"model_config.py": "from dims import BASE\nROWS = BASE\n", "dims.py": "BASE = 64\n"})
    reads = _reads(monkeypatch)
    cache = ResultCache(OPTIONS)
    keys = {cache._key(tmp_path / f"k{i}.py") for i in range(4)}
    assert len(keys) == 1  # the same bytes, the same closure
    assert sorted(reads) == ["dims.py", "k0.py", "k1.py", "k2.py", "k3.py", "model_config.py"]


def test_an_edit_that_keeps_size_and_mtime_is_a_miss(tmp_path: Path, settled) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "ROWS = 64\n"})
    settled()
    path = str(tmp_path / "kernel.py")
    assert [k.verdict for k in run([path], OPTIONS).kernels] == ["verified"]
    assert run([path], OPTIONS).files[0].cached
    module = tmp_path / "model_config.py"
    before = module.stat()
    module.write_text("ROWS = -6\n", encoding="utf-8")  # the same size; a negative dimension: a PV000
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = module.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    changed = run([path], OPTIONS)
    assert not changed.files[0].cached and [f.rule.id for f in changed.findings] == ["PV000"]


def test_a_racy_file_is_read_again_even_when_its_stat_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A clock tick coarser than the two writes: the second write keeps every field of the stat.
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "ROWS = 64\n"})
    frozen = time.time_ns()
    monkeypatch.setattr(manifest, "_stat", lambda path: (0o100644, 10, frozen, frozen, 1, 1))
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    (tmp_path / "model_config.py").write_text("ROWS = 65\n", encoding="utf-8")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") != key


def test_a_settled_stat_is_trusted_as_git_trusts_its_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The converse, which is what a warm run relies on: an old stat that does not move means unchanged bytes.
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "ROWS = 64\n"})
    monkeypatch.setattr(manifest, "_stat", lambda path: (0o100644, 10, 1, 1, 1, 1))
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    (tmp_path / "model_config.py").write_text("ROWS = 65\n", encoding="utf-8")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key


def test_creating_a_module_where_one_was_absent_is_a_miss(tmp_path: Path, settled) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL.replace("from model_config", "from cfg.model_config"),
                     "cfg/__init__.py": "", "model_config.py": "ROWS = 64\n"})
    settled()
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key
    _tree(tmp_path, {"cfg/model_config.py": "ROWS = 64\n"})
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") != key


def test_a_symlink_pointed_elsewhere_is_a_miss(tmp_path: Path, settled) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL, "a/model_config.py": "ROWS = 64\n", "b/model_config.py": "ROWS = 65\n"})
    (tmp_path / "model_config.py").symlink_to(tmp_path / "a" / "model_config.py")
    settled()
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key
    (tmp_path / "model_config.py").unlink()
    (tmp_path / "model_config.py").symlink_to(tmp_path / "b" / "model_config.py")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") != key


@pytest.mark.parametrize("junk", [
    "{}", "null", "not json", '{"key": "k", "files": [], "reals": {}, "reads": {}}',
    '{"key": "k", "files": {"/": 1}, "reals": {}, "reads": {}}',
    '{"key": "k", "files": {}, "reals": {"/": 1}, "reads": {}}',
    '{"key": "k", "files": {}, "reals": {}, "reads": {"/": ["d"]}}',
    '{"key": "k", "files": {}, "reals": {}, "reads": {"/": ["d", [1, 2]]}}'])
def test_a_manifest_of_another_shape_is_computed_again(tmp_path: Path, settled, junk: str) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "ROWS = 64\n"})
    settled()
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    (entry,) = (tmp_path / ".cache" / "manifests").glob("*/*.json")
    good = json.loads(entry.read_text())
    entry.write_text(junk, encoding="utf-8")
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key
    assert json.loads(entry.read_text()) == good


def test_deleting_or_replacing_an_imported_module_is_a_miss(tmp_path: Path, settled) -> None:
    _tree(tmp_path, {"kernel.py": KERNEL, "model_config.py": "ROWS = 64\n"})
    settled()
    key = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    (tmp_path / "model_config.py").unlink()
    gone = ResultCache(OPTIONS)._key(tmp_path / "kernel.py")
    assert gone not in (None, key)
    _tree(tmp_path, {"other.py": "ROWS = 65\n"})
    (tmp_path / "other.py").rename(tmp_path / "model_config.py")  # an editor's atomic save: a new inode
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") not in (key, gone)
    _tree(tmp_path, {"model_config.py": "ROWS = 64\n"})
    assert ResultCache(OPTIONS)._key(tmp_path / "kernel.py") == key  # the first contents: the first key
