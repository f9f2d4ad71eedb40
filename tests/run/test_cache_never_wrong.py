"""A cache that is never wrong (issue 15, item 4): the key covers every local module the kernel imports,
transitively, as the frontend resolves them (`imports.py`: subpackages, relative imports, chains), and any
unreadable or ill-shaped entry — of the result cache or of the Z3 verdict cache — is a miss that is
rewritten, never a traceback and never a permanent PV999."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hostile import GOOD
from pypto_verify.run import Options, run
from pypto_verify.run.cache import ResultCache

OPTIONS = Options(jobs=1, sim=False)
KERNEL = GOOD.replace("[[64, 512], pl.BF16], b", "[[ROWS, 512], pl.BF16], b").replace("[[64, 64], pl.FP32]]",
                                                                                      "[[ROWS, 64], pl.FP32]]")


@pytest.fixture(autouse=True)
def _cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


LAYOUTS = {
    "a chain kernel -> model_config -> dims": (
        {"kernel.py": "from model_config import ROWS\n" + KERNEL,
         "model_config.py": "from dims import BASE\nROWS = BASE\n", "dims.py": "BASE = 64\n"},
        "kernel.py", "dims.py", "BASE = 64\n", "BASE = -64\n"),
    "a subpackage import": (
        {"kernel.py": "from cfg.model_config import ROWS\n" + KERNEL, "cfg/__init__.py": "",
         "cfg/model_config.py": "ROWS = 64\n"},
        "kernel.py", "cfg/model_config.py", "ROWS = 64\n", "ROWS = -64\n"),
    "a relative import": (
        {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/kernel.py": "from ..dims import ROWS\n" + KERNEL,
         "pkg/dims.py": "ROWS = 64\n"},
        "pkg/sub/kernel.py", "pkg/dims.py", "ROWS = 64\n", "ROWS = -64\n"),
    "a module imported as a whole": (
        {"kernel.py": "import shapes\nROWS = shapes.ROWS\n" + KERNEL, "shapes.py": "from .dims import ROWS\n",
         "dims.py": "ROWS = 64\n"},
        "kernel.py", "dims.py", "ROWS = 64\n", "ROWS = -64\n"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_an_edit_to_any_imported_module_is_a_cache_miss(tmp_path: Path, layout: str) -> None:
    files, kernel, edited, before, after = LAYOUTS[layout]
    _write(tmp_path, files)
    path = str(tmp_path / kernel)
    first = run([path], OPTIONS)
    assert [k.verdict for k in first.kernels] == ["verified"], [f.render() for f in first.findings]
    assert run([path], OPTIONS).files[0].cached
    (tmp_path / edited).write_text(after, encoding="utf-8")
    changed = run([path], OPTIONS)
    assert not changed.files[0].cached
    assert [f.rule.id for f in changed.findings] == ["PV000"]  # the negative dimension, at the annotation
    (tmp_path / edited).write_text(before, encoding="utf-8")
    assert run([path], OPTIONS).files[0].cached  # back to the first contents: the first entry


def test_creating_a_module_the_kernel_imports_is_a_cache_miss(tmp_path: Path) -> None:
    _write(tmp_path, {"kernel.py": "from cfg.dims import ROWS\n" + KERNEL})
    path = str(tmp_path / "kernel.py")
    assert [f.rule.id for f in run([path], OPTIONS).findings] == ["PV000"]  # `cfg.dims` is absent
    _write(tmp_path, {"cfg/dims.py": "ROWS = 64\n"})
    again = run([path], OPTIONS)
    assert not again.files[0].cached and [k.verdict for k in again.kernels] == ["verified"]


@pytest.mark.parametrize("mangle", [
    lambda e: {**e, "kernels": [{**e["kernels"][0], "verdict": "splendid"}]},
    lambda e: {**e, "kernels": [{**e["kernels"][0], "obligations": [["proved", 3]]}]},
    lambda e: {**e, "kernels": [{**e["kernels"][0], "conditions": "PV107"}]},
    lambda e: {**e, "findings": [{"rule": "PV000", "path": "", "line": "one", "col": 1, "message": "m", "kernel": "",
                                  "function": "", "notes": [], "windows": [], "values": [], "producers": [],
                                  "counterexample": None}]},
    lambda e: {**e, "status": "fine"},
    lambda e: [e],
], ids=["verdict", "obligations", "conditions", "span", "status", "list"])
def test_an_ill_shaped_result_entry_is_a_miss_and_is_rewritten(tmp_path: Path, mangle) -> None:
    _write(tmp_path, {"kernel.py": GOOD})
    path = tmp_path / "kernel.py"
    run([str(path)], OPTIONS)
    cache = ResultCache(OPTIONS)
    key = cache._key(path)
    assert key is not None
    entry = cache.root / key[:2] / f"{key}.json"
    good = json.loads(entry.read_text())
    entry.write_text(json.dumps(mangle(good)))
    again = run([str(path)], OPTIONS)
    assert not again.files[0].cached and [k.verdict for k in again.kernels] == ["verified"]
    assert json.loads(entry.read_text()) == good


@pytest.mark.parametrize("row", ["{}", "null", "[]", "not json", '{"answer": "sat", "values": [1]}',
                                 '{"answer": "sat", "values": {"k": "zero"}}', '{"answer": "maybe"}'])
def test_an_ill_shaped_z3_verdict_row_is_a_miss_and_is_rewritten(tmp_path: Path, row: str) -> None:
    _write(tmp_path, {"kernel.py": GOOD})
    cold = Options(jobs=1, sim=False, cache=True)
    first = run([str(tmp_path / "kernel.py")], cold)
    database = tmp_path / ".cache" / "pypto-verify" / "smt" / "verdicts.sqlite"
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] > 0
        db.execute("UPDATE verdicts SET answer = ?", (row,))
    (tmp_path / "kernel.py").write_text(GOOD + "# a miss of the result cache: the Z3 cache is read\n")
    again = run([str(tmp_path / "kernel.py")], cold)
    assert [k.verdict for k in again.kernels] == [k.verdict for k in first.kernels] == ["verified"]
    assert not again.findings
    with sqlite3.connect(database) as db:
        answers = [json.loads(a) for (a,) in db.execute("SELECT answer FROM verdicts")]
    assert answers and all(a.get("answer") in ("sat", "unsat") for a in answers)


def test_a_z3_verdict_cache_that_is_not_a_database_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pypto_verify.smt import solver

    monkeypatch.setattr(solver, "_CACHES", {})
    database = tmp_path / ".cache" / "pypto-verify" / "smt" / "verdicts.sqlite"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"this is not an sqlite file" * 100)
    _write(tmp_path, {"kernel.py": GOOD})
    result = run([str(tmp_path / "kernel.py")], Options(jobs=1, sim=False))
    assert [k.verdict for k in result.kernels] == ["verified"] and not result.findings
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM verdicts").fetchone()[0] > 0
