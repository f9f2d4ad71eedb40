"""Benchmark: the start-up a pre-commit hook pays (issue 18, item 4): `pypto-verify --version` and a
warm-cache `check --no-sim` of one file, each run N times in a fresh process; prints the median and the
range. Bytecode is written and reused (PYTHONDONTWRITEBYTECODE is cleared), as on a user's machine.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def series(label: str, command: list[str], env: dict[str, str], cwd: Path, runs: int) -> None:
    timed(command, env, cwd)  # warms the bytecode and the result cache
    figures = sorted(timed(command, env, cwd) for _ in range(runs))
    print(f"{label}: median {statistics.median(figures):.3f} s (min {figures[0]:.3f}, max {figures[-1]:.3f}, "
          f"{runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    exe = shutil.which("pypto-verify")
    if exe is None:
        raise SystemExit("pypto-verify is not on PATH (pip install -e .)")
    work = Path(tempfile.mkdtemp(prefix="pv-startup-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(work / "cache")
    for name in ("edge_combined_predicate.py", "model_config.py"):
        shutil.copy(ROOT / "corpus" / name, work / name)
    series("pypto-verify --version", [exe, "--version"], env, work, args.runs)
    series("check --no-sim, one file, warm cache", [exe, "check", "--no-sim", "edge_combined_predicate.py"], env,
           work, args.runs)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
