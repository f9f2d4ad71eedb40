"""Scale benchmark for the Datalog engines: a synthetic fact database of ~N facts through a program with
transitive closure, stratified negation and aggregates. Prints timings; it asserts nothing (not a test).

    python benchmarks/datalog_scale.py                 # 100k facts, clingo
    python benchmarks/datalog_scale.py --engine souffle --facts 200000 --keep /tmp/scale

The input mimics the real fact export: every relation carries a kernel id, kernels are small DAGs
(about 50 facts each), labels are symbols.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from pypto_verify.engines import clingo_engine
from pypto_verify.engines.api import pick_engine, run_program
from pypto_verify.engines.souffle_lang import load_program

NODES_PER_KERNEL = 12
EDGES_PER_KERNEL = 24
LABELS = ("acc", "vec", "mat", "left", "right")

PROGRAM = """
// datalog_scale.dl — synthetic workload: closure, negation over derived relations, aggregates.
.type Kernel <: number
.type Value <: number
.type Label <: symbol
.decl kernel(k: Kernel)
.decl node(k: Kernel, v: Value, l: Label)
.decl edge(k: Kernel, a: Value, b: Value)
.decl weight(k: Kernel, v: Value, w: number)
.input kernel, node, edge, weight

.decl reach(k: Kernel, a: Value, b: Value)
.decl has_pred(k: Kernel, v: Value)
.decl root(k: Kernel, v: Value)
.decl from_root(k: Kernel, v: Value)
.decl unreached(k: Kernel, v: Value)
.decl fanout(k: Kernel, a: Value, n: number)
.decl total_weight(k: Kernel, w: number)
.decl deepest_from_acc(k: Kernel, m: Value)
.decl acc_to_vec(k: Kernel, a: Value, b: Value)
.output reach, unreached, fanout, total_weight, deepest_from_acc, acc_to_vec

reach(k, a, b) :- edge(k, a, b).
reach(k, a, c) :- reach(k, a, b), edge(k, b, c).
has_pred(k, v) :- edge(k, _, v).
root(k, v) :- node(k, v, _), !has_pred(k, v), v > 0.
from_root(k, v) :- root(k, v).
from_root(k, v) :- root(k, r), reach(k, r, v).
unreached(k, v) :- node(k, v, _), !from_root(k, v).
fanout(k, a, n) :- node(k, a, _), n = count : { edge(k, a, _) }.
total_weight(k, t) :- kernel(k), t = sum w : { weight(k, _, w) }.
deepest_from_acc(k, m) :- kernel(k), m = max b : { reach(k, a, b), node(k, a, "acc") }.
acc_to_vec(k, a, b) :- reach(k, a, b), node(k, a, "acc"), node(k, b, "vec"), (b - a) % 2 = 0.
"""


def generate(folder: Path, facts: int, seed: int) -> int:
    """Write program.dl and facts/ into `folder`; returns the number of facts written."""
    rng = random.Random(seed)
    per_kernel = 1 + 2 * NODES_PER_KERNEL + EDGES_PER_KERNEL
    kernels = max(1, facts // per_kernel)
    rows: dict[str, list[str]] = {"kernel": [], "node": [], "edge": [], "weight": []}
    for k in range(kernels):
        rows["kernel"].append(f"{k}")
        for v in range(NODES_PER_KERNEL):
            rows["node"].append(f"{k}\t{v}\t{rng.choice(LABELS)}")
            rows["weight"].append(f"{k}\t{v}\t{rng.randint(-50, 500)}")
        edges = set()
        while len(edges) < EDGES_PER_KERNEL:
            a = rng.randrange(NODES_PER_KERNEL - 1)
            edges.add((a, rng.randrange(a + 1, NODES_PER_KERNEL)))
        rows["edge"].extend(f"{k}\t{a}\t{b}" for a, b in sorted(edges))
    (folder / "facts").mkdir(parents=True, exist_ok=True)
    for name, lines in rows.items():
        (folder / "facts" / f"{name}.facts").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "program.dl").write_text(PROGRAM, encoding="utf-8")
    return sum(len(lines) for lines in rows.values())


def measure(folder: Path, engine: str, timeout: float) -> None:
    program, facts = folder / "program.dl", folder / "facts"
    if engine == "clingo":
        start = time.perf_counter()
        translation = clingo_engine.translate(load_program(program))
        parsed = time.perf_counter()
        text = clingo_engine.facts_text(translation, facts)
        loaded = time.perf_counter()
        clingo_engine.solve(translation, text, timeout=timeout)
        solved = time.perf_counter()
        print(f"  parse+translate {parsed - start:.3f} s, facts->ASP {loaded - parsed:.3f} s "
              f"({len(text) / 1e6:.1f} MB), ground+solve+read {solved - loaded:.3f} s")
    start = time.perf_counter()
    result = run_program(program, facts, engine=engine, timeout=timeout, out_dir=folder / "out")
    elapsed = time.perf_counter() - start
    sizes = ", ".join(f"{name} {len(rows)}" for name, rows in result.items())
    print(f"  run_program ({engine}, outputs written): {elapsed:.3f} s; {sizes}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--facts", type=int, default=100_000, help="approximate fact count (default 100000)")
    parser.add_argument("--engine", default="clingo", choices=("auto", "clingo", "souffle"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--keep", type=Path, help="write the workload here instead of a temporary folder")
    options = parser.parse_args(argv)
    engine = pick_engine(options.engine)
    with tempfile.TemporaryDirectory(prefix="datalog-scale-") as scratch:
        folder = options.keep or Path(scratch)
        count = generate(folder, options.facts, options.seed)
        print(f"datalog_scale: {count} facts in {folder}")
        measure(folder, engine, options.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
