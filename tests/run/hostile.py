"""Kernels and file-system trees for the robustness tests (issue 15): a small clean kernel, its variants, and
helpers that run the CLI in a subprocess under a wall-clock limit (a hang is a failure, never a stuck suite)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

GOOD = '''import pypto.language as pl


@pl.jit
def k(a: pl.Tensor[[64, 512], pl.BF16], b: pl.Tensor[[512, 64], pl.BF16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    acc = pl.create_tensor([64, 64], dtype=pl.FP32)
    for kb in pl.range(4):
        if kb == 0:
            acc = pl.matmul(a[:, kb * 128 : kb * 128 + 128], b[kb * 128 : kb * 128 + 128, :], out_dtype=pl.FP32)
        else:
            acc = pl.matmul_acc(acc, a[:, kb * 128 : kb * 128 + 128], b[kb * 128 : kb * 128 + 128, :])
    c[:, :] = acc
    return c
'''
"""A clean Form 1 K reduction: verified, simulated and matched, in about a second."""

LOOP_LINE = 7
"""The line of GOOD's `for kb in pl.range(4):`."""


def variant(old: str, new: str, text: str = GOOD) -> str:
    assert old in text, old
    return text.replace(old, new)


def check(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`pypto-verify check ARGS` in a subprocess, its cache under *cwd*; a hang past *timeout* fails the test."""
    environment = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".cache"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "pypto_verify.cli", "check", "--jobs", "1", *args], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=timeout)
