"""Benchmark: the cost of the dynamic check — corpus `check` cold with simulation vs `--no-sim`.

Runs `pypto-verify check --no-cache corpus` with and without `--no-sim`, alternately, `--runs`
times each, and prints for both the median wall time and CPU time (user + system of the check and
its worker processes) with their min–max, and the ratio of the medians; then the bare-numpy cost
of the same matmuls: `np.matmul` on f32 arrays of exactly the shapes of every product the reference
computes on the dynamic check's inputs, on one BLAS thread, as `check` runs them (the arithmetic
the check cannot avoid doing at least once; the simulator does it again, and the reference's
deviation once more). The load average is printed before and after: on a shared machine the wall
times move with it, the CPU times much less. Not a test (STYLE.md §11).

    python benchmarks/dynamic.py [--runs N] [--tree DIR] [--no-matmul]

`--tree` runs the check from another checkout (its `pypto_verify` must import from there), to
measure a before and an after on one machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_check(tree: Path, sim: bool, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one cold `check corpus` run from *tree*."""
    args = [sys.executable, "-m", "pypto_verify.cli", "check", "--no-cache", "corpus"]
    if not sim:
        args.append("--no-sim")
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(args, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"check failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return wall, _children_cpu() - cpu


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s ({min(values):.2f}–{max(values):.2f})"


def matmul_seconds(repeat: int = 3) -> tuple[int, float, float]:
    """(products, GFLOP, best seconds) of bare `np.matmul` on the shapes of every product the
    reference computes for the corpus kernels the dynamic check simulates."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from pypto_verify import reference
    from pypto_verify.dynamic import SimOutcome, _choose_scalars, one_blas_thread, prepare_run
    from pypto_verify.run import Options, Stage, run_work

    files = sorted(str(p) for p in (ROOT / "corpus").glob("*.py") if p.name != "model_config.py")
    shapes: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    original = reference._product

    def spy(a, b):
        shapes.append((a.data.shape, b.data.shape))
        return original(a, b)

    for work in run_work(files, Options(mode="fixed"), (Stage.READ, Stage.LOWER)):
        for kernel in work.kernels:
            if kernel.source is None or kernel.lowered is None:
                continue
            if isinstance(prepare_run(kernel.source, kernel.lowered), SimOutcome):
                continue  # skipped: the check computes nothing for it
            reference._product = spy
            try:
                _choose_scalars(kernel.source, 0, {})
            finally:
                reference._product = original
    rng = np.random.default_rng(0)
    operands = [(rng.standard_normal(a, dtype=np.float32), rng.standard_normal(b, dtype=np.float32))
                for a, b in shapes]
    best = float("inf")
    with one_blas_thread():
        for _ in range(repeat):
            start = time.perf_counter()
            for x, y in operands:
                np.matmul(x, y)
            best = min(best, time.perf_counter() - start)
    flop = sum(2 * a[0] * a[1] * b[1] for a, b in shapes)
    return len(shapes), flop / 1e9, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run the check from (default this one)")
    parser.add_argument("--no-matmul", action="store_true", help="skip the bare-numpy matmul figure")
    args = parser.parse_args(argv)

    cache = tempfile.mkdtemp(prefix="pv-bench-dynamic-")
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    print(f"{os.cpu_count()} cores; load average before: {_load()}")
    runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for _ in range(args.runs):
        for sim in (True, False):
            runs[sim].append(timed_check(args.tree.resolve(), sim, env))
    print(f"load average after: {_load()}")
    for sim, label in ((True, "check --no-cache corpus"), (False, "check --no-cache --no-sim corpus")):
        walls, cpus = [w for w, _ in runs[sim]], [c for _, c in runs[sim]]
        print(f"{label:34s} wall {_summary(walls)}  CPU {_summary(cpus)}")
    ratio_wall = statistics.median(w for w, _ in runs[True]) / statistics.median(w for w, _ in runs[False])
    ratio_cpu = statistics.median(c for _, c in runs[True]) / statistics.median(c for _, c in runs[False])
    print(f"with simulation / --no-sim (medians): wall {ratio_wall:.2f}x, CPU {ratio_cpu:.2f}x")
    if not args.no_matmul:
        count, gflop, seconds = matmul_seconds()
        print(f"bare np.matmul of the reference's {count} products ({gflop:.1f} GFLOP, f32, one BLAS thread, "
              f"best of 3): {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
