"""Benchmark: simulating the whole corpus's emitted PTO vs numpy computing the same matmuls.

For every kernel of `corpus/*.py` that lowers (fixed pipeline) and emits, this times
1. `sim`: parsing and simulating its emitted PTO on the seeded inputs of the dynamic check;
2. `ref`: the numpy reference (`pypto_verify.reference.run_reference`, the value-semantic
   interpreter the dynamic check compares with) running the source kernel on the same inputs;
3. `matmul`: bare `np.matmul` on fresh f32 arrays of exactly the matmul shapes that reference
   runs — the arithmetic alone, with no buffers, no rounding, no control flow and no interpretation,
and prints the figures per file and in total, with `sim / ref` and `sim / matmul`. Lowering,
emission and input generation are done once beforehand and not timed. Each figure is the best of
`--repeat` runs. Not a test (STYLE.md §11: speed lives in benchmarks, never in assertions).

    python benchmarks/sim_vs_numpy.py [--repeat N] [FILE ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _record_products(source, seed: int) -> list[tuple[tuple[int, int], tuple[int, int], bool]]:
    """The (lhs shape, rhs shape, float?) of every cube product the reference computes."""
    from pypto_verify import reference
    from pypto_verify.dynamic import _choose_scalars

    seen: list[tuple[tuple[int, int], tuple[int, int], bool]] = []
    original = reference._product

    def spy(a, b):
        seen.append((a.data.shape, b.data.shape, a.dtype.is_float))
        return original(a, b)

    reference._product = spy
    try:
        _choose_scalars(source, seed, {})
    finally:
        reference._product = original
    return seen


def _numpy_time(products, repeat: int) -> float:
    rng = np.random.default_rng(0)
    # f32 for every product: BLAS, and exact for the int8 sizes of the corpus (as the simulator does).
    operands = [(rng.standard_normal(a).astype(np.float32), rng.standard_normal(b).astype(np.float32))
                for a, b, _ in products]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for x, y in operands:
            np.matmul(x, y)
        best = min(best, time.perf_counter() - start)
    return best


def _reference_time(source, scalars: dict, seed: int, repeat: int) -> float:
    """The reference's own run on the dynamic check's inputs (input generation not timed)."""
    from pypto_verify.dynamic import make_inputs, read_tensors, scalar_names
    from pypto_verify.reference import run_reference

    names, reads = scalar_names(source), set(read_tensors(source))
    inputs = make_inputs(source, seed, {n: scalars[n] for n in names if n in reads})
    given = {n: scalars[n] for n in names if n not in reads}
    best, _ = _timed(repeat, lambda: run_reference(source, inputs, given))
    return best


def _timed(repeat: int, fn):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from pypto_verify.dynamic import SimOutcome, prepare_run, run_and_compare
    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.sim import parse_pto, simulate

    files = args.files or sorted(p for p in (ROOT / "corpus").glob("*.py") if p.name != "model_config.py")
    total_sim = total_ref = total_np = 0.0
    total_flop = 0
    kernels = matched = 0
    print(f"{'file':34s} {'kernels':>7s} {'GFLOP':>8s} {'sim s':>8s} {'ref s':>8s} {'matmul s':>8s} "
          f"{'sim/ref':>7s} {'sim/mm':>7s}")
    for path in files:
        try:
            (prepared,) = run_work([str(path)], Options(mode="fixed", jobs=1), (Stage.READ, Stage.LOWER))
        except Exception as error:  # a stage bug elsewhere must not stop the benchmark
            print(f"{path.name:34s} lowering crashed: {type(error).__name__}", file=sys.stderr)
            continue
        file_sim = file_np = file_ref = 0.0
        file_flop = count = 0
        for kernel in prepared.kernels:
            if kernel.source is None or kernel.lowered is None:
                continue
            run = prepare_run(kernel.source, kernel.lowered, seed=args.seed)
            if isinstance(run, SimOutcome):
                continue  # skipped: outside the subset, or no source
            ref_s = _reference_time(kernel.source, run.scalars, args.seed, args.repeat)
            sim_s, _ = _timed(args.repeat, lambda: simulate(parse_pto(run.text), run.function, run.args))
            products = _record_products(kernel.source, args.seed)
            count += 1
            matched += run_and_compare(run).status == "match"
            file_sim += sim_s
            file_ref += ref_s
            file_np += _numpy_time(products, args.repeat)
            file_flop += sum(2 * a[0] * a[1] * b[1] for a, b, _ in products)
        if not count:
            continue
        kernels += count
        total_sim += file_sim
        total_np += file_np
        total_ref += file_ref
        total_flop += file_flop
        print(f"{path.name:34s} {count:7d} {file_flop / 1e9:8.3f} {file_sim:8.3f} {file_ref:8.3f} {file_np:8.3f} "
              f"{_ratio(file_sim, file_ref):7.2f} {_ratio(file_sim, file_np):7.1f}")
    print(f"{'total':34s} {kernels:7d} {total_flop / 1e9:8.3f} {total_sim:8.3f} {total_ref:8.3f} {total_np:8.3f} "
          f"{_ratio(total_sim, total_ref):7.2f} {_ratio(total_sim, total_np):7.1f}")
    print(f"kernels simulated: {kernels} ({matched} match); sim (parse + simulate the PTO) {total_sim:.2f} s; "
          f"the numpy reference on the same kernels {total_ref:.2f} s; bare np.matmul of the same matmuls "
          f"{total_np:.2f} s")
    return 0


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")


if __name__ == "__main__":
    sys.exit(main())
