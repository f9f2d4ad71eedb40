"""A run's memory is bounded by a batch, not by the run (`pypto_verify/run/chain.py`: `CHUNK`, `ENGINE_BATCH`):
the chain hands out each chunk of files before it reads the next, and the Datalog engine runs over a bounded
number of kernels at a time — with the findings one run over every file gives; and it builds no information
finding (PV010), which no report shows."""

from __future__ import annotations

import shutil
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
