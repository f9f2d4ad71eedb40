"""Both engines give identical relations on every fixture and the corpus; relation laws hold."""

from __future__ import annotations

import importlib.resources
import shutil
from pathlib import Path

import pytest

from pypto_verify.engines.api import run_program
from pypto_verify.facts import write_facts
from pypto_verify.run import Options, Stage, run, run_work
from pypto_verify.run.chain import ENGINE_BATCH, merge_facts

ROOT = Path(__file__).resolve().parents[2]
MAIN = Path(str(importlib.resources.files("pypto_verify.datalog") / "main.dl"))
CASES = sorted((ROOT / "tests" / "fixtures" / "form3").glob("*.py")) + sorted((ROOT / "corpus").glob("*.py"))


@pytest.fixture(scope="module")
def corpus_facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The facts of every fixture and corpus kernel, lowered once per pipeline for the whole module."""
    return {mode: _facts(tmp_path_factory.mktemp(mode), CASES, mode) for mode in ("fixed", "legacy")}


def _facts(tmp_path: Path, paths: list[Path], mode: str = "fixed") -> Path:
    works = run_work([str(p) for p in paths], Options(mode=mode), (Stage.READ, Stage.LOWER, Stage.FACTS))
    facts, _ = merge_facts(w.facts for w in works if w.facts is not None)
    write_facts(facts, tmp_path / "facts")
    return tmp_path / "facts"


@pytest.mark.parametrize("mode", ["fixed", "legacy"])
def test_souffle_and_clingo_agree_on_fixtures_and_corpus(corpus_facts: dict[str, Path], mode: str) -> None:
    if shutil.which("souffle") is None:
        pytest.skip("souffle not on PATH: engine parity needs both engines")
    facts = corpus_facts[mode]
    assert run_program(MAIN, facts, engine="souffle") == run_program(MAIN, facts, engine="clingo")


def test_chain_root_partitions_acc_values_like_the_flow_components(tmp_path: Path) -> None:
    facts = _facts(tmp_path, CASES[:12])
    rel = run_program(MAIN, facts, engine="clingo")
    roots = {(k, v): r for k, v, r in rel["chain_root"]}
    parent = {key: key for key in roots}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for k, a, b in rel["flows"]:
        if (k, a) in roots and (k, b) in roots:
            parent[find((k, a))] = find((k, b))
    components: dict = {}
    for key in roots:
        components.setdefault(find(key), set()).add(key)
    for members in components.values():
        k = next(iter(members))[0]
        assert {roots[m] for m in members} == {min(v for _, v in members)}, members
        assert all(m[0] == k for m in members)


def test_invariant_relations_are_empty_on_every_case(corpus_facts: dict[str, Path]) -> None:
    for mode in ("fixed", "legacy"):
        rel = run_program(MAIN, corpus_facts[mode], engine="clingo")
        assert {name: rows for name, rows in rel.items() if name.startswith("assert_") and rows} == {}


def test_one_engine_start_per_batch_however_many_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    import pypto_verify.engines.api as api

    calls = []
    real = api.run_rows

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "run_rows", counting)
    report = run([str(ROOT / "tests" / "fixtures" / "form3")],
                   Options(sim=False, smt=False, cache=False, jobs=1))
    assert 1 < sum(len(f.kernels) for f in report.files) <= ENGINE_BATCH
    assert len(calls) == 1


def test_chain_roots_names_each_component_by_its_smallest_value() -> None:
    from pypto_verify.facts import chain_roots

    # 5 -> 3 and 3 -> 9 join {3, 5, 9}; 7 -> 2 joins a non-Acc value (2): no edge; 4 is alone.
    assert chain_roots({3, 4, 5, 7, 9}, [(5, 3), (3, 9), (7, 2)]) == {3: 3, 5: 3, 9: 3, 4: 4, 7: 7}


def test_a_chain_of_split_against_flows_is_an_invariant_violation(tmp_path: Path) -> None:
    facts_dir = _facts(tmp_path, [ROOT / "corpus" / "edge_unroll_k.py"])
    rows = (facts_dir / "chain_of.facts").read_text().splitlines()
    chained = [row for row in rows if row.split("\t")[1] != row.split("\t")[2]]
    assert chained, "the kernel has a chain of more than one value"
    k, v, _ = chained[0].split("\t")
    (facts_dir / "chain_of.facts").write_text(
        "\n".join(f"{k}\t{v}\t{v}" if row == chained[0] else row for row in rows) + "\n")
    rel = run_program(MAIN, facts_dir, engine="clingo")
    assert rel["assert_chain_of"]


def test_a_kernel_with_a_number_past_32_bits_is_found_in_any_column() -> None:
    from pypto_verify.facts import FactSet
    from pypto_verify.run.chain import _wide_kernels

    facts = FactSet()
    facts.add("window_range", 1, 1, 1, 0, 2 ** 31 - 1)
    facts.add("window_range", 2, 1, 1, 0, 2 ** 31)
    facts.add("tile", 3, 1, "Acc", "fp32", -(2 ** 31) - 1)
    facts.add("tile", 4, 1, "Acc", "fp32", 4096)
    assert _wide_kernels(facts) == {2, 3}
