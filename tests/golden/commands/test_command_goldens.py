"""Every command's output on the corpus, `corpus/defects/` and `tests/fixtures/`, pinned as goldens.

One golden per (command, input set): `tests/golden/commands/<command>/<set>.txt`, rewritten by
`pytest --update-golden`. Each file-level command (`parse`, `lower`, `prove`, `emit`, `sim`, `explain`)
runs once per file of the set; each block records the command line, the exit code, stdout and stderr.
Timings (the only nondeterministic text) are replaced by `<t>`. The commands run in-process through
click's runner, from the repository root (paths print as given), with a fresh cache directory (the check
goldens: the cache of the session's cold run, tests/shared_runs.py, then warm).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from golden_util import check_golden
from shared_runs import invoke

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
SETS = {"corpus": "corpus", "defects": "corpus/defects", "fixtures": "tests/fixtures"}


def _files(folder: str) -> list[str]:
    """The `*.py` files directly in *folder*, recursively for the fixtures (paths relative to the root)."""
    base = ROOT / folder
    found = base.rglob("*.py") if folder == "tests/fixtures" else base.glob("*.py")
    return sorted(p.relative_to(ROOT).as_posix() for p in found)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _invoke(*args: str) -> str:
    return invoke(*args)


PER_FILE = {
    "parse": (),
    "lower": (),
    "prove": ("--no-cache",),
    "emit": (),
    "sim": (),
    "explain": (),
}


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("command", sorted(PER_FILE))
def test_file_command_output_matches_golden(command: str, name: str, update_golden: bool) -> None:
    text = "".join(_invoke(command, path, *PER_FILE[command]) for path in _files(SETS[name]))
    check_golden(HERE / command / f"{name}.txt", text, update_golden)


@pytest.mark.parametrize("name", sorted(SETS))
def test_check_output_in_every_format_matches_golden(name: str, update_golden: bool, cold_check,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold run in JSON (the session's, tests/shared_runs.py), then warm (cached) runs in text and SARIF
    from its cache: a replay must equal the run."""
    folder = SETS[name]
    cold, cache = cold_check(folder)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    warm_json = _invoke("check", folder, "--format", "json")
    assert warm_json == cold, "a cached run differs from the run that filled the cache"
    text = _invoke("check", folder, "--kernels") + _invoke("check", folder, "--no-sim", "--no-cache", "--kernels")
    sarif = _invoke("check", folder, "--format", "sarif")
    legacy_cold, legacy_cache = cold_check(folder, "--pipeline", "legacy")  # replayed in text from its cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(legacy_cache))
    legacy = _invoke("check", folder, "--pipeline", "legacy", "--kernels")
    assert _invoke("check", folder, "--pipeline", "legacy", "--format", "json") == legacy_cold
    check_golden(HERE / "check" / f"{name}.json.txt", cold, update_golden)
    check_golden(HERE / "check" / f"{name}.text.txt", text + legacy, update_golden)
    check_golden(HERE / "check" / f"{name}.sarif.txt", sarif, update_golden)


@pytest.mark.parametrize("name", sorted(SETS))
def test_sites_output_matches_golden(name: str, update_golden: bool) -> None:
    text = _invoke("sites", SETS[name]) + _invoke("sites", SETS[name], "--format", "json")
    check_golden(HERE / "sites" / f"{name}.txt", text, update_golden)


@pytest.mark.parametrize("name", sorted(SETS))
def test_facts_export_matches_golden(name: str, update_golden: bool, tmp_path: Path) -> None:
    """The facts of every lowered kernel of the set: each relation's rows in full for the small sets, a
    row count and digest per relation for the corpus (its rows would make a golden of megabytes)."""
    out = tmp_path / "facts"
    text = _invoke("facts", SETS[name], "-o", str(out)).replace(str(out), "<dir>")
    for path in sorted(out.iterdir()):
        body = path.read_text(encoding="utf-8")
        if path.name == "side_table.json":
            body = json.dumps(json.loads(body), indent=1, sort_keys=True) + "\n"
        if name == "corpus":
            digest = hashlib.sha256(body.encode()).hexdigest()[:16]
            text += f"-- {path.name}: {body.count(chr(10))} lines, sha256 {digest}\n"
        else:
            text += f"-- {path.name}\n{body}"
    check_golden(HERE / "facts" / f"{name}.txt", text, update_golden)
