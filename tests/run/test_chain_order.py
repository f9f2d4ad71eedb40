"""The chain runs its stages in ARCHITECTURE.md's order: Z3 and the simulation come after the Datalog
rules and only for the kernels with no error finding so far (`pypto_verify/run/chain.py`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pypto_verify.run import Options, Stage, run, run_work

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ROOT / "corpus" / "edge_combined_predicate.py"
FLAGGED = ROOT / "corpus" / "defects" / "pv004_read_after_inplace.py"  # a Datalog finding (PV004), lowers fine


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Records the kernels handed to the simulator and to the prover (one process: `jobs=1`)."""
    from pypto_verify import dynamic, smt

    seen: dict[str, list[str]] = {"sim": [], "prove": []}
    real_sim, real_prove = dynamic.simulate_kernel, smt.prove_module

    def simulate_kernel(source, lowered, **kwargs):
        seen["sim"].append(source.name)
        return real_sim(source, lowered, **kwargs)

    def prove_module(source, lowered, **kwargs):
        seen["prove"].extend(fn.name for _, fn in lowered.functions())
        return real_prove(source, lowered, **kwargs)

    monkeypatch.setattr(dynamic, "simulate_kernel", simulate_kernel)
    monkeypatch.setattr(smt, "prove_module", prove_module)
    return seen


def test_a_kernel_the_rules_flag_is_never_proved_or_simulated(tmp_path: Path, calls) -> None:
    shutil.copy(CLEAN, tmp_path / "clean.py")
    shutil.copy(FLAGGED, tmp_path / "flagged.py")
    shutil.copy(ROOT / "corpus" / "model_config.py", tmp_path / "model_config.py")
    result = run([str(tmp_path / "clean.py"), str(tmp_path / "flagged.py")], Options(cache=False, jobs=1))
    by_name = {Path(f.path).name: f for f in result.files}
    flagged = by_name["flagged.py"]
    assert [f.rule.id for f in flagged.findings] == ["PV004"]
    assert {k.sim for k in flagged.kernels} == {"skipped"}
    assert {k.sim_reason for k in flagged.kernels} == {"the kernel has error findings"}
    flagged_functions = {k.function for k in flagged.kernels}
    assert not flagged_functions & set(calls["sim"]), calls["sim"]
    assert not flagged_functions & set(calls["prove"]), calls["prove"]
    clean = by_name["clean.py"]
    assert calls["sim"] and set(calls["sim"]) <= {k.function for k in clean.kernels}
    assert all(k.sim == "match" for k in clean.kernels)


def test_a_slice_runs_only_its_stages(calls) -> None:
    (work,) = run_work([str(CLEAN)], Options(jobs=1), (Stage.READ, Stage.LOWER))
    assert work.kernels and all(k.lowered is not None for k in work.kernels)
    assert work.facts is None and calls == {"sim": [], "prove": []}
    (work,) = run_work([str(CLEAN)], Options(jobs=1, cache=False), (Stage.READ, Stage.LOWER, Stage.PROVE))
    assert calls["prove"] and not calls["sim"] and work.outcomes


def test_records_are_frozen_and_filters_return_new_ones() -> None:
    import dataclasses

    from pypto_verify.run.inputs import filter_findings

    result = run([str(FLAGGED)], Options(cache=False, jobs=1, sim=False))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.files[0].findings = ()  # type: ignore[misc]  # the point: records cannot be changed
    filtered = filter_findings(result, ignore=("PV004",))
    assert [f.rule.id for f in result.findings] == ["PV004"] and filtered.findings == []
    assert filtered.files[0].kernels == result.files[0].kernels  # a filter changes what is shown, not verdicts


def test_proving_while_the_rules_run_gives_the_sequential_report(tmp_path: Path) -> None:
    """With a pool, Z3 runs beside the Datalog engine (`after_rules` drops what it proved of a flagged
    kernel): the kernels' obligations, conditions and findings are the one-process chain's."""
    shutil.copy(CLEAN, tmp_path / "clean.py")
    shutil.copy(FLAGGED, tmp_path / "flagged.py")
    shutil.copy(ROOT / "corpus" / "defects" / "pv007_pv102_uninitialised.py", tmp_path / "zero_trip.py")
    shutil.copy(ROOT / "corpus" / "model_config.py", tmp_path / "model_config.py")
    paths = [str(tmp_path / name) for name in ("clean.py", "flagged.py", "zero_trip.py")]
    one = run(paths, Options(cache=False, jobs=1, sim=False))
    two = run(paths, Options(cache=False, jobs=2, sim=False))
    assert one.files == two.files
    flagged = next(f for f in two.files if f.path.endswith("flagged.py"))
    assert flagged.findings and all(k.obligations == () for k in flagged.kernels)
    clean = next(f for f in two.files if f.path.endswith("clean.py"))
    assert all(dict(k.obligations).get("proved") for k in clean.kernels)
    works = run_work(paths, Options(cache=False, jobs=2, sim=False), (Stage.READ, Stage.LOWER, Stage.FACTS,
                                                                      Stage.DATALOG, Stage.PROVE))
    flagged_work = next(w for w in works if w.path.endswith("flagged.py"))
    assert not flagged_work.outcomes
