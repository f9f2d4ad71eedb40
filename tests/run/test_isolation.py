"""Isolation by construction (issue 15, items 1 and 2): every per-file and per-kernel step runs under one guard,
so an input problem is a located PV000 of its file, a crash of ours a PV999 naming the stage, a file out of
time or memory a PV100 naming the stage, a lost worker a PV999 of its file — and every other file keeps its
result."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from hostile import GOOD, variant
from pypto_verify.run import Options, chain, run


@pytest.fixture(autouse=True)
def _cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))


def _files(tmp_path: Path, **texts: str) -> list[str]:
    out = []
    for name, text in texts.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        out.append(str(tmp_path / f"{name}.py"))
    return out


def _rules(result, path: str) -> list[tuple[str, int]]:
    (file,) = [f for f in result.files if f.path == path]
    return [(f.rule.id, f.span.line) for f in file.findings]


def test_matmul_acc_without_operands_is_a_located_pv000_and_the_run_goes_on(tmp_path: Path) -> None:
    bad, good = _files(tmp_path, bad=variant("pl.matmul_acc(acc, a[:, kb * 128 : kb * 128 + 128], "
                                             "b[kb * 128 : kb * 128 + 128, :])", "pl.matmul_acc()"), good=GOOD)
    result = run([bad, good], Options(cache=False, jobs=1))
    (finding,) = result.files[0].findings
    assert (finding.rule.id, finding.span.line, finding.span.col) == ("PV000", 11, 19)
    assert "`pl.matmul_acc` with 0 operands; it takes 3: acc, lhs, rhs" in finding.message
    assert [k.verdict for k in result.files[1].kernels] == ["verified"]


@pytest.mark.parametrize("stage, target", [("reading", "read_stage"), ("lowering", "lower_stage"),
                                           ("fact export", "facts_stage"), ("the Z3 obligations", "prove_stage"),
                                           ("emission and simulation", "simulate_stage")])
def test_a_crash_of_ours_in_any_stage_is_pv999_naming_the_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 stage: str, target: str) -> None:
    broken, good = _files(tmp_path, broken=GOOD, good=GOOD)
    real = getattr(chain, target)

    def crash(first, *args):
        path = first if isinstance(first, str) else first.path
        if path == broken:
            raise KeyError("planted")
        return real(first, *args)

    monkeypatch.setattr(chain, target, crash)
    result = run([broken, good], Options(cache=False, jobs=1))
    crashed = result.files[0].findings
    assert crashed and {f.rule.id for f in crashed} == {"PV999"}
    assert all(f.message.startswith(f"{stage} failed on ") and "KeyError: 'planted'" in f.message for f in crashed)
    assert [k.verdict for k in result.files[1].kernels] == ["verified"] and not result.files[1].findings


def test_a_file_past_the_deadline_is_pv100_naming_the_stage_and_not_cached(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    slow, good = _files(tmp_path, slow=GOOD + "# another text: another cache key\n", good=GOOD)
    real = chain.lower_stage

    def hang(work, options):
        if work.path == slow:
            time.sleep(60)
        return real(work, options)

    monkeypatch.setattr(chain, "lower_stage", hang)
    began = time.monotonic()
    result = run([slow, good], Options(jobs=1, timeout=1.0, sim=False))
    assert time.monotonic() - began < 30
    (finding,) = result.files[0].findings
    assert finding.rule.id == "PV100" and "lowering did not finish within the 1 s deadline (--timeout)" in finding.message
    assert [k.verdict for k in result.files[1].kernels] == ["verified"]
    again = run([slow, good], Options(jobs=1, timeout=1.0, sim=False))
    assert [f.cached for f in again.files] == [False, True]  # out of time is the machine's state: not kept


def test_a_file_out_of_memory_is_pv100_naming_the_stage_under_the_address_space_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big, good = _files(tmp_path, big=GOOD, good=GOOD)
    real = chain.facts_stage

    def hog(work, options):
        if work.path == big:
            hoard = bytearray(8 * 1024 ** 3)  # past the cap below: a MemoryError, not the OOM killer
            del hoard
        return real(work, options)

    with open("/proc/self/status") as status:
        mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    monkeypatch.setattr(chain, "facts_stage", hog)
    result = run([big, good], Options(cache=False, jobs=1, sim=False, max_memory=mapped + 2 * 1024 ** 3))
    (finding,) = result.files[0].findings
    assert finding.rule.id == "PV100" and "fact export ran out of memory" in finding.message
    assert "--max-memory" in finding.message
    assert [k.verdict for k in result.files[1].kernels] == ["verified"]


def test_a_worker_that_dies_costs_its_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doomed, good, other = _files(tmp_path, doomed=GOOD, good=GOOD, other=GOOD)
    real = chain.read_stage

    def die(path, *args):
        if path == doomed:
            os._exit(9)  # as the OOM killer or a crash in native code would end the worker
        return real(path, *args)

    monkeypatch.setattr(chain, "read_stage", die)  # the pool forks: its workers see the patch
    result = run([doomed, good, other], Options(cache=False, jobs=2, sim=False, smt=False))
    (finding,) = result.files[0].findings
    assert finding.rule.id == "PV999" and "the worker process died" in finding.message
    assert [[k.verdict for k in f.kernels] for f in result.files[1:]] == [["verified"], ["verified"]]


def test_a_deadline_in_a_worker_keeps_the_other_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow, good = _files(tmp_path, slow=GOOD, good=GOOD)
    real = chain.prove_stage

    def hang(work, options):
        if work.path == slow:
            time.sleep(60)
        return real(work, options)

    monkeypatch.setattr(chain, "prove_stage", hang)
    result = run([slow, good], Options(cache=False, jobs=2, sim=False, timeout=2.0))
    (finding,) = result.files[0].findings
    assert finding.rule.id == "PV100" and "the Z3 obligations did not finish within the 2 s deadline" in finding.message
    assert [k.verdict for k in result.files[1].kernels] == ["verified"]


TWO = GOOD + "\n\n" + GOOD[GOOD.index("@pl.jit"):].replace("def k(", "def k2(")
"""One file, two kernels: `k` and `k2`."""


@pytest.mark.parametrize("stage, where, target", [("fact export", "chain", "export_facts"),
                                                  ("the Z3 obligations", "smt", "prove_bounds")])
def test_a_crash_on_one_kernel_costs_that_kernel_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      stage: str, where: str, target: str) -> None:
    from pypto_verify import smt

    (path,) = _files(tmp_path, two=TWO)
    owner = chain if where == "chain" else smt
    real = getattr(owner, target)

    def crash(first, *args, **kwargs):
        names = [fn.name for _, fn in first] if where == "chain" else [fn.name for _, fn in first.functions()]
        if "k2" in names:
            raise KeyError("planted")
        return real(first, *args, **kwargs)

    monkeypatch.setattr(owner, target, crash)
    result = run([path], Options(cache=False, jobs=1, sim=False))
    assert {k.function: k.verdict for k in result.kernels} == {"k": "verified", "k2": "findings"}
    (finding,) = result.findings
    assert finding.rule.id == "PV999" and finding.function == "k2"
    assert finding.message.startswith(f"{stage} failed on `k2`: KeyError: 'planted'")
