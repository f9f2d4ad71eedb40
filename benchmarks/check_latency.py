"""Benchmark: `check` wall time on the whole corpus (per stage) and on one file (cold and warm cache),
with each Datalog engine. Not a test: it prints figures to record in release notes.

    python benchmarks/check_latency.py [--engine clingo|souffle]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pypto_verify.cli", *args], cwd=ROOT, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="clingo", choices=["clingo", "souffle"])
    args = parser.parse_args()
    if args.engine == "souffle" and shutil.which("souffle") is None:
        sys.exit("souffle not on PATH")
    cache = tempfile.mkdtemp(prefix="pv-bench-")
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    one = "corpus/edge_combined_predicate.py"
    cold = timed(["check", one, "--no-sim", "--engine", args.engine], env)
    warm = timed(["check", one, "--no-sim", "--engine", args.engine], env)
    print(f"one file, --no-sim (pre-commit): cold {cold:.2f} s, warm cache {warm:.2f} s")

    sys.path.insert(0, str(ROOT))
    from pypto_verify.run import Options, run

    report = run(["corpus"], Options(engine=args.engine, cache=False))
    s = dict(report.seconds)
    print(f"corpus ({len(report.files)} files, {sum(len(f.kernels) for f in report.files)} kernels), "
          f"engine {args.engine}: per-file stages (read, lower, facts; {os.cpu_count()} workers) "
          f"{s['front']:.2f} s, datalog {s['datalog']:.2f} s, Z3 + simulation {s['back']:.2f} s, total {s['total']:.2f} s")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
