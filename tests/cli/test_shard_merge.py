"""`check --shard I/N` and `merge`: the shards of a run merged give the unsharded report byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pypto_verify.run.inputs import in_shard, parse_shard, select_shard, shard_key

ROOT = Path(__file__).resolve().parents[2]
# A directory walk first, then files named out of sorted order: the merged report must keep the order of
# the whole collection, not sort by path. Clean kernels, planted defects and a Form 3 dump.
PATHS = ("tests/fixtures/form3", "corpus/dense_decode_qkv.py", "corpus/defects/shape_c_fragmented_chain.py",
         "corpus/defects/pv004_read_after_inplace.py")
FORMATS = ("json", "sarif", "text")


def run(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([sys.executable, "-m", "pypto_verify.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, tuple[str, int]], Path]:
    """The unsharded report in every format (one run writing each), its exit code, and the run's cache."""
    cache = tmp_path_factory.mktemp("cache-whole")
    reports = tmp_path_factory.mktemp("whole")
    outputs = [arg for fmt in FORMATS for arg in ("--format", fmt, "-o", str(reports / fmt))]
    done = run("check", *PATHS, "--no-sim", "--jobs", "1", *outputs, cache=cache)
    return {fmt: ((reports / fmt).read_text(encoding="utf-8"), done.returncode) for fmt in FORMATS}, cache


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_shards_equal_the_unsharded_report_byte_for_byte(count: int, whole, tmp_path: Path) -> None:
    whole, whole_cache = whole
    shards = []
    for index in range(1, count + 1):
        report = tmp_path / f"shard{index}.json"
        # each shard of several on a cold cache of its own, as on its own CI runner; the one shard of one
        # holds every file the unsharded run checked, so it replays that run's cache
        done = run("check", *PATHS, "--no-sim", "--jobs", "1", "--format", "json", "--shard", f"{index}/{count}",
                   "-o", str(report), cache=whole_cache if count == 1 else tmp_path / f"cache{index}")
        assert done.returncode in (0, 1, 2), done.stderr
        shards.append(str(report))
    sizes = [len(json.loads(Path(s).read_text())["files"]) for s in shards]
    assert sum(sizes) == len(json.loads(whole["json"][0])["files"])
    if count > 1:
        assert sum(1 for n in sizes if n) > 1, "the files should spread over several shards"
    for fmt in FORMATS:
        merged = run("merge", *reversed(shards), "--format", fmt, cache=tmp_path / "cache-merge")
        assert merged.stdout == whole[fmt][0], fmt
        assert merged.returncode == whole[fmt][1] == 1  # the defects' findings, in both


def test_merge_applies_the_min_sites_gate_over_the_union(tmp_path: Path) -> None:
    paths = ("corpus/dense_decode_qkv.py", "corpus/edge_nonzero_start.py", "corpus/edge_swapped_ne.py", "corpus/lora_adapter.py")
    shards = []
    for index in (1, 2):
        report = tmp_path / f"s{index}.json"
        run("check", *paths, "--no-sim", "--jobs", "1", "--format", "json", "--shard", f"{index}/2", "-o",
            str(report), cache=tmp_path / "cache")
        shards.append(str(report))
    whole = run("check", *paths, "--no-sim", "--jobs", "1", "--format", "json", cache=tmp_path / "cache")
    sites = json.loads(whole.stdout)["verified_sites"]
    assert whole.returncode == 0 and sites > 1
    for gate, code in ((sites, 0), (sites + 1, 1)):
        merged = run("merge", *shards, "--min-sites", str(gate), cache=tmp_path / "cache")
        checked = run("check", *paths, "--no-sim", "--jobs", "1", "--min-sites", str(gate), cache=tmp_path / "cache")
        assert merged.returncode == checked.returncode == code
        assert merged.stdout == checked.stdout


def test_merge_refuses_shards_that_are_not_one_whole_run(tmp_path: Path) -> None:
    paths = ("tests/fixtures/form3",)
    for index in (1, 2):
        run("check", *paths, "--no-sim", "--jobs", "1", "--format", "json", "--shard", f"{index}/2", "-o",
            str(tmp_path / f"s{index}.json"), cache=tmp_path / "cache")
    run("check", *paths, "--no-sim", "--jobs", "1", "--format", "json", "-o", str(tmp_path / "plain.json"),
        cache=tmp_path / "cache")
    missing = run("merge", str(tmp_path / "s1.json"), cache=tmp_path / "cache")
    assert missing.returncode == 2 and "shards 2/2 missing" in missing.stderr
    twice = run("merge", str(tmp_path / "s1.json"), str(tmp_path / "s1.json"), cache=tmp_path / "cache")
    assert twice.returncode == 2 and "given twice" in twice.stderr
    plain = run("merge", str(tmp_path / "plain.json"), cache=tmp_path / "cache")
    assert plain.returncode == 2 and "not a shard report" in plain.stderr


def test_adding_a_file_moves_no_other_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the repository root the keys are relative to
    for i in range(12):
        (tmp_path / f"k{i}.py").write_text("")
    before = {n: {p.name for p in select_shard([str(tmp_path)], f"{n}/3")[1]} for n in (1, 2, 3)}
    assert set().union(*before.values()) == {f"k{i}.py" for i in range(12)}
    assert sum(len(v) for v in before.values()) == 12  # each file in exactly one shard
    (tmp_path / "new.py").write_text("")
    after = {n: {p.name for p in select_shard([str(tmp_path)], f"{n}/3")[1]} for n in (1, 2, 3)}
    assert {n: after[n] - {"new.py"} for n in after} == before
    assert shard_key(tmp_path / "k1.py") == "k1.py"
    # a stable hash (sha256 of the key), not Python's salted one: the same split in another process
    files = [str(tmp_path / f"k{i}.py") for i in range(12)]
    code = ("from pathlib import Path; from pypto_verify.run.inputs import in_shard; "
            f"print([in_shard(Path(p), 1, 3) for p in {files!r}])")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert other.stdout.strip() == str([in_shard(Path(p), 1, 3) for p in files])


@pytest.mark.parametrize("text", ["0/3", "4/3", "1", "a/b", "1/0"])
def test_a_malformed_shard_is_a_usage_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_shard(text)
