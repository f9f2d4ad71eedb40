"""Inputs and limits (issue 15, items 2 and 5): a BOM and a coding line are accepted; negative, zero,
non-integer and absurd shapes are PV000 at the annotation, naming the cause; unrolling and pipeline
replication past the limit are PV000 naming the count and the limit; the reference and the simulator never
loop over a trip count they have not bounded (the kernel is not simulated, with the reason)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))

from hostile import GOOD, variant  # noqa: E402
from pypto_verify.run import Options, run  # noqa: E402

A_SHAPE = "a: pl.Tensor[[64, 512], pl.BF16]"


@pytest.fixture(autouse=True)
def _cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))


def _check(tmp_path: Path, text: str | bytes, sim: bool = False):
    path = tmp_path / "kernel.py"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return run([str(path)], Options(cache=False, jobs=1, sim=sim))


@pytest.mark.parametrize("text", [b"\xef\xbb\xbf" + GOOD.encode(), ("# -*- coding: utf-8 -*-\n" + GOOD).encode(),
                                  ("#!/usr/bin/env python3\n# vim: set fileencoding=utf-8 :\n" + GOOD).encode()],
                         ids=["bom", "coding", "vim-coding"])
def test_a_bom_and_a_coding_line_are_accepted(tmp_path: Path, text: bytes) -> None:
    result = _check(tmp_path, text)
    assert [k.verdict for k in result.kernels] == ["verified"] and not result.findings


@pytest.mark.parametrize("dims, col, message", [
    ("[-64, 512]", 21, "dimension `-64`; a dimension is a positive integer (an empty or negative extent holds no data)"),
    ("[0, 512]", 21, "dimension `0`; a dimension is a positive integer (an empty or negative extent holds no data)"),
    ("[64.0, 512]", 21, "dimension `64.0`; a dimension is a positive integer"),
    ("[True, 512]", 21, "dimension `True`; a dimension is a positive integer"),
    ("[64, 512 - 1024]", 25, "dimension `512 - 1024` = -512; a dimension is a positive integer (an empty or negative "
                             "extent holds no data)"),
    ("[2 ** 30, 2 ** 20]", 20, "shape `[2 ** 30, 2 ** 20]` has 1125899906842624 elements; the limit is 2**48 "
                               "elements per tensor"),
], ids=["negative", "zero", "float", "bool", "negative-expression", "absurd"])
def test_a_bad_shape_is_pv000_at_the_annotation_naming_the_cause(tmp_path: Path, dims: str, col: int,
                                                                 message: str) -> None:
    result = _check(tmp_path, variant(A_SHAPE, f"a: pl.Tensor[{dims}, pl.BF16]"))
    (finding,) = result.findings
    assert (finding.rule.id, finding.span.line, finding.span.col) == ("PV000", 5, col)
    assert finding.message == message


@pytest.mark.parametrize("loop, message", [
    ("pl.unroll(10**9)", "the `pl.unroll` loop of 1000000000 iterations unrolls to 10000000000 statements; the limit "
                         "is 200000"),
    ("pl.unroll(10**5)", "the `pl.unroll` loop of 100000 iterations unrolls to 1000000 statements; the limit is 200000"),
    ("pl.pipeline(4 * 10**6, stage=10**5)", "the `pl.pipeline` loop with stage=100000 replicates its body to 1400000 "
                                            "statements; the limit is 200000"),
])
def test_unrolling_past_the_limit_is_pv000_naming_the_count_and_the_limit(tmp_path: Path, loop: str,
                                                                           message: str) -> None:
    began = time.monotonic()
    result = _check(tmp_path, variant("pl.range(4)", loop))
    assert time.monotonic() - began < 30
    (finding,) = result.findings
    assert (finding.rule.id, finding.span.line, finding.message) == ("PV000", 7, message)


def test_a_launch_of_a_trillion_blocks_is_not_simulated_with_the_reason(tmp_path: Path) -> None:
    text = variant("    acc = pl.create_tensor", "    for blk in pl.spmd(10**12):\n        acc = pl.create_tensor")
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "for blk" in line) + 2
    end = next(i for i, line in enumerate(lines) if line.startswith("    return"))
    text = "".join(lines[:start] + ["    " + line for line in lines[start:end]] + lines[end:])
    began = time.monotonic()
    result = _check(tmp_path, text, sim=True)
    assert time.monotonic() - began < 60
    (kernel,) = result.kernels
    assert kernel.verdict == "verified" and kernel.sim == "skipped"
    assert kernel.sim_reason == ("reference: the loop at line 6 runs 1000000000000 times; the simulation's limit is "
                                 "100000 loop iterations per kernel")


def test_a_k_loop_of_a_trillion_steps_is_decided_without_running_it(tmp_path: Path) -> None:
    began = time.monotonic()
    result = _check(tmp_path, variant("pl.range(4)", "pl.range(10**12)"), sim=True)
    assert time.monotonic() - began < 60
    assert {f.rule.id for f in result.findings} == {"PV107"}  # the slices run past `a` and `b`: refuted by Z3


def test_an_arity_error_names_the_operands(tmp_path: Path) -> None:
    result = _check(tmp_path, variant("pl.matmul(a[:, kb * 128 : kb * 128 + 128], b[kb * 128 : kb * 128 + 128, :], ",
                                      "pl.matmul(a[:, kb * 128 : kb * 128 + 128], "))
    (finding,) = result.findings
    assert (finding.rule.id, finding.span.line) == ("PV000", 9)
    assert finding.message == "`pl.matmul` with 1 operand; it takes 2: lhs, rhs"


def test_unicode_names_are_emitted_as_ascii_ssa_names(tmp_path: Path) -> None:
    result = _check(tmp_path, GOOD.replace("kb", "ä"), sim=True)
    (kernel,) = result.kernels
    assert (kernel.verdict, kernel.sim) == ("verified", "match") and not result.findings


def test_a_unicode_kernel_name_is_not_simulated_with_the_reason(tmp_path: Path) -> None:
    result = _check(tmp_path, GOOD.replace("def k(", "def ядро("), sim=True)
    (kernel,) = result.kernels
    assert (kernel.verdict, kernel.sim) == ("verified", "skipped") and not result.findings
    assert kernel.sim_reason == "emit: the kernel name `ядро` is not an ASCII identifier; a PTO symbol is"


def test_a_kernel_over_huge_tensors_is_checked_statically_and_not_simulated(tmp_path: Path) -> None:
    result = _check(tmp_path, variant(A_SHAPE, "a: pl.Tensor[[64, 2**23], pl.BF16]"), sim=True)
    (kernel,) = result.kernels
    assert (kernel.verdict, kernel.sim) == ("verified", "skipped") and not result.findings
    size = 64 * 2**23 + 512 * 64 + 64 * 64
    assert kernel.sim_reason == (f"the kernel's tensors hold more elements than the simulation's limit of 268435456 "
                                 f"({size}); not shrunk: no module constant names a dimension of its tensor parameters")
