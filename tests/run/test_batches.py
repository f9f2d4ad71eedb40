"""A run's memory is bounded by a batch, not by the run (`pypto_verify/run/chain.py`: `CHUNK`, `ENGINE_BATCH`):
the chain hands out each chunk of files before it reads the next, and the Datalog engine runs over a bounded
number of kernels at a time — with the findings one run over every file gives; and it builds no information
finding (PV010), which no report shows."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from pypto_verify.run import Options, run
from pypto_verify.run import chain
from pypto_verify.run.records import ALL_STAGES

ROOT = Path(__file__).resolve().parents[2]
FILES = ("edge_combined_predicate.py", "edge_nested_if.py", "defects/pv004_read_after_inplace.py",
         "edge_trip_count_one.py", "defects/pv007_pv102_uninitialised.py")
OPTIONS = Options(cache=False, jobs=1, sim=False, engine="clingo")


@pytest.fixture
def paths(tmp_path: Path) -> list[str]:
    out = []
    for index, name in enumerate(FILES):
        target = tmp_path / f"f{index}_{Path(name).name}"
        shutil.copy(ROOT / "corpus" / name, target)
        out.append(str(target))
    return out


def test_engine_runs_take_a_bounded_number_of_kernels_and_find_what_one_run_finds(
        paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    whole = run(paths, OPTIONS)
    sizes: list[tuple[int, int]] = []  # (kernels, files) of each engine run
    real = chain.datalog_relations

    def counted(facts, engine, timeout):
        sizes.append((len(facts.kernels), len({t.path for t in facts.kernels.values()})))
        return real(facts, engine, timeout)

    monkeypatch.setattr(chain, "datalog_relations", counted)
    monkeypatch.setattr(chain, "ENGINE_BATCH", 2)
    batched = run(paths, OPTIONS)
    assert len(sizes) >= 3 and all(kernels <= 2 or files == 1 for kernels, files in sizes), sizes
    assert batched.files == whole.files
    assert any(f.findings for f in batched.files) and any(not f.findings for f in batched.files)


def test_the_chain_hands_out_a_chunk_before_it_reads_the_next(paths: list[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    real = chain.front

    def front(path, *args):
        read.append(path)
        return real(path, *args)

    monkeypatch.setattr(chain, "front", front)
    works = chain.check_files(paths, OPTIONS, ALL_STAGES, None, 0, len(paths), chunk=2)
    first = next(works)
    assert first.path == paths[0] and read == paths[:2]
    assert [first.path, *(w.path for w in works)] == paths and read == paths


def test_a_chunked_run_reports_what_one_chunk_reports(paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    whole = run(paths, OPTIONS)
    monkeypatch.setattr(chain, "CHUNK", 2)
    assert run(paths, OPTIONS).files == whole.files
    assert run(paths, Options(cache=False, jobs=2, sim=False, engine="clingo")).files == whole.files


def test_engine_batches_keep_files_whole_and_in_order() -> None:
    from pypto_verify.facts import FactSet, KernelTable
    from pypto_verify.ir import Module

    def work(name: str, kernels: int) -> chain.FileWork:
        facts = FactSet()
        for k in range(1, kernels + 1):
            facts.kernels[k] = KernelTable(k, name, f"fn{k}", None)
        return chain.FileWork(name, Module(name, ()), facts=facts if kernels else None)

    works = [work("a", 1), work("b", 0), work("c", 3), work("d", 1), work("e", 1)]
    batches = chain.engine_batches(works, limit=2)
    assert [[w.path for w in batch] for batch in batches] == [["a", "b"], ["c"], ["d", "e"]]


def test_the_check_chain_builds_no_information_finding_and_explain_s_stage_does(paths: list[str]) -> None:
    from pypto_verify.run import Stage, run_work

    works = run_work(paths[:1], OPTIONS, (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG))
    assert works[0].info == ()
    facts_only = run_work(paths[:1], OPTIONS, (Stage.READ, Stage.LOWER, Stage.FACTS))
    (explained,) = chain.datalog_stage(facts_only, OPTIONS)
    assert explained.info and {f.rule.id for f in explained.info} == {"PV010"}
    assert explained.findings == works[0].findings


def test_a_pool_hands_out_the_largest_files_first_and_reports_in_the_files_order(tmp_path: Path) -> None:
    sizes = {"a.py": 10, "b.py": 300, "c.py": 20, "d.py": 300, "e.py": 0}
    paths = []
    for name, size in sizes.items():
        (tmp_path / name).write_text("#" * size)
        paths.append(str(tmp_path / name))
    order = chain._largest_first(paths, {paths[4]: "#" * 1000})
    assert [Path(paths[i]).name for i in order] == ["e.py", "b.py", "d.py", "c.py", "a.py"]
    assert chain._in_order([paths[i] for i in order], order) == paths


@pytest.mark.parametrize("sim", [False, True])
def test_a_pool_runs_the_rules_on_each_share_of_files_as_they_come_with_the_one_process_report(
        paths: list[str], monkeypatch: pytest.MonkeyPatch, sim: bool) -> None:
    """With a pool, the engine runs over the files as the workers send them back (`chain.ENGINE_SHARE`), and each
    file the rules have seen is simulated at once: the report is the sequential chain's, flagged kernels
    included (not simulated, no obligation)."""
    one = run(paths, replace(OPTIONS, sim=sim))
    runs: list[int] = []  # the files given to each of the chain's calls of the engine
    real = chain.Engine.run

    def counted(self, works):
        runs.append(len(works))
        return real(self, works)

    monkeypatch.setattr(chain.Engine, "run", counted)  # the engine runs in this process, not a worker
    two = run(paths, replace(OPTIONS, jobs=2, sim=sim))
    assert runs == [3, 1, 1], runs  # five files: once three are back (as many as still to come), then 1, 1
    assert two.files == one.files
    ruled = [k for f in two.files for k in f.kernels if k.name in ("stale_partial", "no_seed")]  # PV004, PV007
    assert len(ruled) == 2 and all(k.verdict == "findings" and not k.obligations and k.sim == "skipped"
                                   for k in ruled)
    if sim:
        assert any(k.sim == "match" for f in two.files for k in f.kernels)


def test_a_pool_rules_a_chunk_before_the_last_in_one_run(paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the last chunk is ruled a share at a time: while an earlier chunk's one run goes, the workers have the
    next chunk to read, lower and prove."""
    one = run(paths, OPTIONS)
    runs: list[int] = []  # the files given to each of the chain's calls of the engine
    real = chain.Engine.run

    def counted(self, works):
        runs.append(len(works))
        return real(self, works)

    monkeypatch.setattr(chain.Engine, "run", counted)
    monkeypatch.setattr(chain, "CHUNK", 3)
    two = run(paths, replace(OPTIONS, jobs=2))
    assert runs == [3, 1, 1], runs  # the first chunk's three files at once; the last's two one at a time
    assert two.files == one.files
