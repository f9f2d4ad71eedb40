"""Synthetic scale benchmark: `check` over generated corpora of N kernels, and over one long unrolled kernel.

Two series, each run as the main job (`check --no-sim --no-cache`: `pypto_verify.run.run` in a child
process, which also reports the stage times; `--via cli` runs the command itself) whose wall time, CPU time
and peak RSS (`os.wait4`: the largest single process of the child and the workers it waited for) are
measured:

- **corpus** (`--sizes`): N Form 1 kernels, one per file, drawn from the corpus's idiom classes with varied
  constants (M 16..64, N tiles 32..128, K tiles 64..256, 2..8 K blocks; BF16 -> FP32, INT8 -> INT32, FP32):
  an if-phi seed on `kb == 0` / `k0 == 0` in `pl.pipeline(stage=2)`, `pl.range`, `pl.unroll` and offset
  loops, `init_cond=` predicated `matmul_acc`, a peeled seed before a loop from block 1, two accumulators
  seeded in one `if`, split K with atomic assembly. Every tenth kernel plants one defect (`corpus/defects/`
  classes): a wrong seed condition, a missing seed, a K loop one block too long, an output slice past the
  tensor. The planted kernels must be reported (verdict `findings`) and the clean ones verified; a
  mismatch is a failure (exit 1).
- **long** (`--long-sizes`): one kernel whose body is a nested `pl.unroll` (output tiles x K blocks, as in
  pypto-lib's `models/qwen3_14b/prefill_fwd_a8w8.py`), sized to about S lowered statements; the real count
  (program points of the exported facts) is reported.

For each series the log-log slope (least squares) of time and of memory against size is printed.
`--rule-sizes` instead prints, per kernel, its statements, facts, largest derived Datalog relation and the
ratio (flagged past `--ratio-limit`, exit 1), for the corpus (or PATHS) and the long series
(`--long-k-blocks` sets its chain length; `--long-only` skips the corpus). Benchmarks assert nothing about
time.

    python benchmarks/synth.py --repeat 3                          # N 10,100,1000; long 1k,2k,5k
    python benchmarks/synth.py --sizes 10000 --long-sizes 10k,20k --json /tmp/synth-big.json
    python benchmarks/synth.py --sizes '' --long-sizes 50k         # ~18 s, ~0.5 GiB (docs/BENCHMARKS.md)
    python benchmarks/synth.py --rule-sizes                        # corpus/ and the long series
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

DTYPES = {  # name: (input dtype, accumulator / output dtype, element bytes, matmul keyword)
    "bf16": ("pl.BF16", "pl.FP32", 2, ", out_dtype=pl.FP32"),
    "int8": ("pl.INT8", "pl.INT32", 1, ""),
    "fp32": ("pl.FP32", "pl.FP32", 4, ""),
}
TEMPLATES = ("ifphi_pipeline", "ifphi_range", "ifphi_offset", "ifphi_unroll", "init_cond", "peel", "two_acc",
             "split_k")
DEFECTS = ("wrong_seed", "missing_seed", "loop_long", "oob_store")
DEFECT_TEMPLATES = {  # the templates each defect can be planted in
    "wrong_seed": ("ifphi_pipeline", "ifphi_range", "ifphi_unroll", "init_cond"),
    "missing_seed": ("ifphi_pipeline", "ifphi_range", "ifphi_offset", "ifphi_unroll"),
    "loop_long": ("ifphi_pipeline", "ifphi_range", "init_cond"),
    "oob_store": TEMPLATES[:-1],
}
DEFECT_EVERY = 10
"""One kernel in ten plants a defect."""


@dataclass(frozen=True)
class Kernel:
    """One generated kernel file: its name (file stem = function), template, planted defect and text."""

    name: str
    template: str
    defect: str | None
    text: str


def _shape(rng: random.Random, dtype: str) -> dict[str, int]:
    """Constants of one kernel: operand tiles within 32 KiB, the accumulator tile within 32 KiB."""
    size = DTYPES[dtype][2]
    while True:
        m, nt, kt = rng.choice((16, 32, 64)), rng.choice((32, 64, 128)), rng.choice((64, 128, 256))
        if m * kt * size <= 32768 and kt * nt * size <= 32768 and m * nt * 4 <= 32768:
            return {"M": m, "NT": nt, "KT": kt, "NB": rng.choice((1, 2, 4)), "KB": rng.randint(2, 8)}


def kernel_text(name: str, template: str, defect: str | None, dtype: str, b_trans: bool,
                shape: dict[str, int]) -> str:
    """The source of one Form 1 kernel of *template* (constants inlined), with *defect* planted."""
    src, acc_dtype, _, out_kw = DTYPES[dtype]
    m, nt, kt, nb, kb = shape["M"], shape["NT"], shape["KT"], shape["NB"], shape["KB"]
    split = 2 if template == "split_k" else 1
    k = kt * kb * split
    n = nt * nb
    trans = ", b_trans=True" if b_trans else ""
    seed_kw = out_kw + trans

    def w_block(w: str, k0: str) -> str:
        return f"{w}[n0 : n0 + {nt}, {k0} : {k0} + {kt}]" if b_trans else f"{w}[{k0} : {k0} + {kt}, n0 : n0 + {nt}]"

    def x_block(k0: str) -> str:
        return f"x[:, {k0} : {k0} + {kt}]"

    w_shape = f"[{n}, {k}]" if b_trans else f"[{k}, {n}]"
    weights = ("w1", "w2") if template == "two_acc" else ("w",)
    outputs = ("y1", "y2") if template == "two_acc" else ("y",)
    params = [f"    x: pl.Tensor[[{m}, {k}], {src}],"]
    params += [f"    {w}: pl.Tensor[{w_shape}, {src}]," for w in weights]
    params += [f"    {y}: pl.Out[pl.Tensor[[{m}, {n}], {acc_dtype}]]," for y in outputs]
    store_col = "n0 + 16" if defect == "oob_store" else "n0"
    trips = kb + 1 if defect == "loop_long" else kb
    seed_test = {"ifphi_offset": "k0 == 0"}.get(template, "kb == 0")
    if defect == "wrong_seed":
        seed_test = "kb == 1"
    body: list[str] = []
    i = "        "
    if template == "split_k":
        body.append(f"    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"{name}_zero\"):")
        body.append(f"        y[:, :] = pl.full([{m}, {n}], dtype={acc_dtype}, value=0)")
        body.append(f"    for blk in pl.spmd({nb * split}, name_hint=\"{name}\"):")
        body.append(f"{i}n0 = (blk // {split}) * {nt}")
        body.append(f"{i}k_base = (blk % {split}) * {kt * kb}")
    else:
        body.append(f"    for nb in pl.spmd({nb}, name_hint=\"{name}\"):")
        body.append(f"{i}n0 = nb * {nt}")
    if template == "peel":
        body.append(f"{i}acc = pl.matmul({x_block('0')}, {w_block('w', '0')}{seed_kw})")
        body.append(f"{i}for kb in pl.pipeline(1, {trips}, stage=2):")
        body.append(f"{i}    k0 = kb * {kt}")
        body.append(f"{i}    acc = pl.matmul_acc(acc, {x_block('k0')}, {w_block('w', 'k0')}{trans})")
    elif template in ("init_cond", "split_k"):
        body.append(f"{i}acc = pl.create_tensor([{m}, {nt}], dtype={acc_dtype})")
        loop = "pl.pipeline({}, stage=2)" if template == "init_cond" else "pl.range({})"
        body.append(f"{i}for kb in {loop.format(trips)}:")
        body.append(f"{i}    k0 = {'k_base + ' if template == 'split_k' else ''}kb * {kt}")
        body.append(f"{i}    acc = pl.matmul_acc(acc, {x_block('k0')}, {w_block('w', 'k0')}{trans}, "
                    f"init_cond=({seed_test}))")
    else:
        loop = {"ifphi_pipeline": f"kb in pl.pipeline({trips}, stage=2)", "ifphi_range": f"kb in pl.range({trips})",
                "ifphi_unroll": f"kb in pl.unroll({trips})", "two_acc": f"kb in pl.pipeline({trips}, stage=2)",
                "ifphi_offset": f"k0 in pl.pipeline(0, {trips * kt}, {kt}, stage=2)"}[template]
        accs = ("acc1", "acc2") if template == "two_acc" else ("acc",)
        for acc in accs:
            body.append(f"{i}{acc} = pl.create_tensor([{m}, {nt}], dtype={acc_dtype})")
        body.append(f"{i}for {loop}:")
        if template != "ifphi_offset":
            body.append(f"{i}    k0 = kb * {kt}")
        body.append(f"{i}    xa = {x_block('k0')}")
        for w in weights:
            body.append(f"{i}    {w}b = {w_block(w, 'k0')}")
        if defect == "missing_seed":
            body.append(f"{i}    acc = pl.matmul_acc(acc, xa, wb{trans})")
        else:
            body.append(f"{i}    if {seed_test}:")
            for acc, w in zip(accs, weights):
                body.append(f"{i}        {acc} = pl.matmul(xa, {w}b{seed_kw})")
            body.append(f"{i}    else:")
            for acc, w in zip(accs, weights):
                body.append(f"{i}        {acc} = pl.matmul_acc({acc}, xa, {w}b{trans})")
    if template == "split_k":
        body.append(f"{i}y = pl.assemble(y, acc, [0, n0], atomic=pl.AtomicType.Add)")
    elif template == "two_acc":
        body.append(f"{i}y1[:, {store_col} : {store_col} + {nt}] = acc1")
        body.append(f"{i}y2[:, {store_col} : {store_col} + {nt}] = acc2")
    else:
        body.append(f"{i}y[:, {store_col} : {store_col} + {nt}] = acc")
    returns = ", ".join(outputs)
    header = f'"""Generated by benchmarks/synth.py: {template}, {dtype}, {defect or "clean"}."""\n\n'
    return (header + "import pypto.language as pl\n\n\n@pl.jit\n" + f"def {name}(\n" + "\n".join(params) + "\n):\n"
            + "\n".join(body) + f"\n    return {returns}\n")


def generate_corpus(n: int, seed: int = 0) -> list[Kernel]:
    """N kernels; kernel i plants a defect when i % DEFECT_EVERY == DEFECT_EVERY - 1 (defects in turn)."""
    rng = random.Random(seed)
    kernels = []
    for index in range(n):
        defect = None
        if index % DEFECT_EVERY == DEFECT_EVERY - 1:
            defect = DEFECTS[(index // DEFECT_EVERY) % len(DEFECTS)]
            template = rng.choice(DEFECT_TEMPLATES[defect])
        else:
            template = TEMPLATES[index % len(TEMPLATES)]
        dtype = rng.choice(tuple(DTYPES))
        b_trans = dtype == "int8" or rng.random() < 0.5
        name = f"k{index:05d}_{template}" + (f"_{defect}" if defect else "")
        kernels.append(Kernel(name, template, defect,
                              kernel_text(name, template, defect, dtype, b_trans, _shape(rng, dtype))))
    return kernels


def long_kernel(statements: int, kb: int = 16) -> Kernel:
    """One kernel of nested `pl.unroll` (output tiles x *kb* K blocks, int8, if-phi seed) of about
    *statements* lowered statements (the per-block cost measured on this generator: ~LONG_PER_BLOCK each)."""
    tiles = max(1, round(statements / (kb * LONG_PER_BLOCK)))
    m, nt, kt = 16, 64, 128
    name = f"long_{statements}" + (f"_k{kb}" if kb != 16 else "")
    text = (f'"""Generated by benchmarks/synth.py: {tiles} x {kb} unrolled K blocks."""\n\n'
            "import pypto.language as pl\n\n\n@pl.jit\n"
            f"def {name}(\n"
            f"    x: pl.Tensor[[{m}, {kb * kt}], pl.INT8],\n"
            f"    w: pl.Tensor[[{tiles * nt}, {kb * kt}], pl.INT8],\n"
            f"    y: pl.Out[pl.Tensor[[{m}, {tiles * nt}], pl.INT32]],\n"
            "):\n"
            f"    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"{name}\"):\n"
            f"        for nb in pl.unroll({tiles}):\n"
            f"            n0 = nb * {nt}\n"
            f"            acc = pl.create_tensor([{m}, {nt}], dtype=pl.INT32)\n"
            f"            for kb in pl.unroll({kb}):\n"
            f"                k0 = kb * {kt}\n"
            f"                xa = x[:, k0 : k0 + {kt}]\n"
            f"                wb = w[n0 : n0 + {nt}, k0 : k0 + {kt}]\n"
            "                if kb == 0:\n"
            "                    acc = pl.matmul(xa, wb, b_trans=True)\n"
            "                else:\n"
            "                    acc = pl.matmul_acc(acc, xa, wb, b_trans=True)\n"
            f"            y[:, n0 : n0 + {nt}] = acc\n"
            "    return y\n")
    return Kernel(name, "long_unroll", None, text)


LONG_PER_BLOCK = 7.25
"""Lowered statements per unrolled K block of `long_kernel` (calibrated: the real count is reported)."""


COUNT_LIMIT = 1000
"""The largest corpus series whose lowered statements are counted (after the timing)."""


def write(kernels: list[Kernel], folder: Path) -> None:
    """The kernels as `<name>.py` files in a fresh *folder*."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for kernel in kernels:
        (folder / f"{kernel.name}.py").write_text(kernel.text, encoding="utf-8")


def run_check(folder: Path, out: Path, engine: str, jobs: int, via: str) -> tuple[float, float, float, int]:
    """`check` on *folder* in a child process: (wall seconds, CPU seconds and peak RSS MiB of the child and
    the workers it waited for, exit code). *via* `cli` runs the command; `run` runs `pypto_verify.run.run`
    (the same work, without the report) and also records its stage times."""
    if via == "cli":
        args = [sys.executable, "-m", "pypto_verify.cli", "check", "--no-sim", "--no-cache", "--jobs", str(jobs),
                "--engine", engine, "--engine-timeout", "3600", "--format", "json", "-o", str(out), str(folder)]
    else:
        args = [sys.executable, __file__, "--child", str(folder), str(out), "--engine", engine, "--jobs", str(jobs)]
    started = time.perf_counter()
    child = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        sys.stderr.write(child.stderr.read().decode() if child.stderr else "")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.returncode


def child(folder: str, out: str, engine: str, jobs: int) -> int:
    """The `--via run` child: `run` over *folder*, its verdicts and stage seconds written to *out*."""
    from pypto_verify.run import Options, run

    result = run([folder], Options(engine=engine, sim=False, cache=False, jobs=jobs, engine_timeout=3600))
    files = [{"path": f.path, "kernels": [{"name": k.name, "verdict": k.verdict} for k in f.kernels]}
             for f in result.files]
    Path(out).write_text(json.dumps({"files": files, "seconds": dict(result.seconds)}), encoding="utf-8")
    return 0


def verdicts(out: Path) -> dict[str, str]:
    """{kernel name: verdict} of a JSON report."""
    report = json.loads(out.read_text(encoding="utf-8"))
    return {kernel["name"]: kernel["verdict"] for file in report["files"] for kernel in file["kernels"]}


def stage_seconds(out: Path) -> dict[str, float]:
    """The stage times of a `--via run` report (none from the CLI's)."""
    return json.loads(out.read_text(encoding="utf-8")).get("seconds", {})


def lowered_points(folder: Path, jobs: int = 1) -> dict[str, int]:
    """{kernel function: program points of its exported facts} (the lowered statement count)."""
    from pypto_verify.run import Options, Stage, run_work

    points: dict[str, int] = {}
    for work in run_work([str(folder)], Options(jobs=jobs), (Stage.READ, Stage.LOWER, Stage.FACTS)):
        if work.facts is None:
            continue
        per_kernel: dict[int, int] = {}
        for row in work.facts.rows["node"]:
            per_kernel[row[0]] = per_kernel.get(row[0], 0) + 1
        for k, table in work.facts.kernels.items():
            points[table.function] = per_kernel.get(k, 0)
    return points


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den if den else float("nan")


def measure(folder: Path, args: argparse.Namespace) -> tuple[dict, dict[str, str]]:
    """Median and range of `--repeat` runs of `check` on *folder* (stage times of the median run), and the
    verdicts of the last."""
    out = folder.with_suffix(".json")
    runs = []
    for _ in range(args.repeat):
        seconds, cpu, mib, code = run_check(folder, out, args.engine, args.jobs, args.via)
        if code not in (0, 1):
            raise SystemExit(f"check exited {code} on {folder}")
        runs.append((seconds, cpu, mib, stage_seconds(out)))
    times, rss = [r[0] for r in runs], [r[2] for r in runs]
    median = sorted(runs)[(len(runs) - 1) // 2]
    row = {"seconds": statistics.median(times), "seconds_min": min(times), "seconds_max": max(times),
           "cpu_seconds": statistics.median(r[1] for r in runs),
           "rss_mib": statistics.median(rss), "rss_min": min(rss), "rss_max": max(rss), "stages": median[3]}
    return row, verdicts(out)


def judge(kernels: list[Kernel], found: dict[str, str]) -> dict[str, int]:
    """Counts of planted kernels reported / missed and clean kernels verified / not."""
    counts = {"planted": 0, "planted_flagged": 0, "clean": 0, "clean_verified": 0}
    for kernel in kernels:
        verdict = found.get(kernel.name, "missing")
        if kernel.defect:
            counts["planted"] += 1
            counts["planted_flagged"] += verdict == "findings"
        else:
            counts["clean"] += 1
            counts["clean_verified"] += verdict == "verified"
    counts["mismatches"] = counts["planted"] - counts["planted_flagged"] + counts["clean"] - counts["clean_verified"]
    return counts


def mismatched(kernels: list[Kernel], found: dict[str, str]) -> list[str]:
    """The kernels whose verdict is not the expected one, with what they got."""
    wrong = []
    for kernel in kernels:
        want = "findings" if kernel.defect else "verified"
        got = found.get(kernel.name, "missing")
        if got != want:
            wrong.append(f"{kernel.name}: {got} (want {want})")
    return wrong


def _ints(text: str) -> list[int]:
    return [int(part.replace("k", "000")) for part in text.split(",") if part]


def print_series(title: str, unit: str, rows: list[dict], against: str) -> None:
    print(f"\n{title}")
    print(f"{unit:>7} {'stmts':>8} {'wall s (min-max)':>22} {'CPU s':>7} {'front':>7} {'datalog':>7} {'back':>7} "
          f"{'peak RSS MiB (min-max)':>24}  verdicts")
    for row in rows:
        stages = row.get("stages", {})
        print(f"{row['size']:7} {row.get('statements', ''):>8} "
              + f"{row['seconds']:8.2f} ({row['seconds_min']:.2f}-{row['seconds_max']:.2f})".ljust(23)
              + f"{row.get('cpu_seconds', float('nan')):8.2f}"
              + "".join(f"{stages[n]:8.2f}" if n in stages else f"{'':8}" for n in ("front", "datalog", "back"))
              + f"{row['rss_mib']:9.0f} ({row['rss_min']:.0f}-{row['rss_max']:.0f})".ljust(25)
              + f"  {row.get('verdicts', '')}")
    if len(rows) >= 2:
        xs = [row["x"] for row in rows]
        times, rss = [r["seconds"] for r in rows], [r["rss_mib"] for r in rows]
        print(f"log-log slope vs {against}: "
              f"time {slope(xs, times):.2f}, CPU {slope(xs, [r.get('cpu_seconds', 1) for r in rows]):.2f}, "
              f"memory {slope(xs, rss):.2f} (all sizes); "
              f"time {slope(xs[-2:], times[-2:]):.2f}, memory {slope(xs[-2:], rss[-2:]):.2f} (the two largest)")


def scale(args: argparse.Namespace, work: Path) -> int:
    result: dict = {"corpus": [], "long": [], "engine": args.engine, "jobs": args.jobs, "repeat": args.repeat}
    failed = False
    for n in args.sizes:
        kernels = generate_corpus(n, args.seed)
        folder = work / f"corpus_{n}"
        write(kernels, folder)
        row, found = measure(folder, args)
        counts = judge(kernels, found)
        # Shown, not timed: re-lowering 10 000 files to count their statements costs minutes.
        statements = sum(lowered_points(folder, args.jobs).values()) if n <= COUNT_LIMIT else ""
        row.update(size=n, x=n, statements=statements, **counts)
        row["verdicts"] = (f"planted {counts['planted_flagged']}/{counts['planted']} flagged, "
                           f"clean {counts['clean_verified']}/{counts['clean']} verified")
        result["corpus"].append(row)
        if counts["mismatches"]:
            failed = True
            for line in mismatched(kernels, found)[:20]:
                print(f"MISMATCH {line}", file=sys.stderr)
        print(f"corpus N={n}: {row['statements'] or 'uncounted'} statements, {row['seconds']:.2f} s (CPU {row['cpu_seconds']:.1f} s), "
              f"{row['rss_mib']:.0f} MiB, {row['verdicts']}", flush=True)
    for size in args.long_sizes:
        kernel = long_kernel(size, args.long_k_blocks)
        folder = work / f"long_{size}"
        write([kernel], folder)
        row, found = measure(folder, args)
        statements = lowered_points(folder).get(kernel.name, 0)
        row.update(size=size, x=statements, statements=statements,
                   verdicts=found.get(kernel.name, "missing"))
        if row["verdicts"] != "verified":
            failed = True
        result["long"].append(row)
        print(f"long {size}: {row['statements']} statements, {row['seconds']:.2f} s (CPU {row['cpu_seconds']:.1f} s), "
              f"{row['rss_mib']:.0f} MiB, {row['verdicts']}", flush=True)
    print_series("corpus series (N kernels, one per file)", "N", result["corpus"], "N")
    print_series("long series (one nested-unroll kernel)", "target", result["long"], "statements")
    for name in ("corpus", "long"):
        rows = result[name]
        if len(rows) >= 2:
            xs = [row["x"] for row in rows]
            result[f"{name}_slope_time"] = slope(xs, [r["seconds"] for r in rows])
            result[f"{name}_slope_rss"] = slope(xs, [r["rss_mib"] for r in rows])
            result[f"{name}_slope_cpu"] = slope(xs, [r["cpu_seconds"] for r in rows])
            result[f"{name}_slope_time_largest"] = slope(xs[-2:], [r["seconds"] for r in rows[-2:]])
            result[f"{name}_slope_rss_largest"] = slope(xs[-2:], [r["rss_mib"] for r in rows[-2:]])
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if failed:
        print("FAIL: a planted kernel was not flagged or a clean kernel did not verify", file=sys.stderr)
    return 1 if failed else 0


def rule_sizes(args: argparse.Namespace, work: Path) -> int:
    """Per kernel: statements, facts, the largest derived relation and its rows, rows per statement."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from rule_sizes import all_outputs_program

    from pypto_verify.engines.api import run_program
    from pypto_verify.facts import write_facts
    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.run.chain import merge_facts

    program_dir = work / "rules"
    shutil.rmtree(program_dir, ignore_errors=True)
    program_dir.mkdir(parents=True)
    program = all_outputs_program(program_dir)
    paths = [] if args.long_only else [str(p) for p in args.paths] if args.paths else [str(ROOT / "corpus")]
    for size in args.long_sizes:
        folder = work / f"long_{size}"
        write([long_kernel(size, args.long_k_blocks)], folder)
        paths.append(str(folder))
    rows: list[dict[str, Any]] = []
    for path in paths:
        for part in run_work([path], Options(jobs=1), (Stage.READ, Stage.LOWER, Stage.FACTS)):
            if part.facts is None:
                continue
            facts, _ = merge_facts([part.facts])
            facts_dir = work / "facts"
            shutil.rmtree(facts_dir, ignore_errors=True)
            write_facts(facts, facts_dir)
            started = time.perf_counter()
            relations = run_program(program, facts_dir, engine=args.engine, timeout=3600)
            seconds = time.perf_counter() - started
            for k, table in sorted(facts.kernels.items()):
                points = sum(1 for row in facts.rows["node"] if row[0] == k)
                inputs = sum(1 for relation in facts.rows.values() for row in relation if row[0] == k)
                name, size = max(((n, sum(1 for row in r if row and row[0] == k)) for n, r in relations.items()),
                                 key=lambda item: item[1])
                rows.append({"path": str(Path(part.path).name), "kernel": table.function, "statements": points,
                             "facts": inputs, "relation": name, "rows": size, "ratio": size / max(points, 1),
                             "file_seconds": seconds})
    flagged = [row for row in rows if row["ratio"] > args.ratio_limit]
    print(f"{'file':34} {'kernel':30} {'stmts':>6} {'facts':>7} {'largest derived relation':>28} {'rows':>8} "
          f"{'ratio':>6}")
    for row in sorted(rows, key=lambda r: -r["ratio"]):
        mark = "  > limit" if row["ratio"] > args.ratio_limit else ""
        print(f"{row['path'][:34]:34} {row['kernel'][:30]:30} {row['statements']:6} {row['facts']:7} "
              f"{row['relation'][:28]:>28} {row['rows']:8} {row['ratio']:6.1f}{mark}")
    print(f"{len(rows)} kernels, {len(flagged)} with the largest derived relation over {args.ratio_limit:g}x "
          f"their statements")
    if args.json:
        Path(args.json).write_text(json.dumps({"rule_sizes": rows}, indent=1) + "\n", encoding="utf-8")
    return 1 if flagged else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="--rule-sizes: files or directories (default corpus/).")
    parser.add_argument("--sizes", type=_ints, default=[10, 100, 1000], help="Corpus sizes N (default 10,100,1000).")
    parser.add_argument("--long-sizes", type=_ints, default=[1000, 2000, 5000],
                        help="Long-kernel statement targets, `k` = thousand (default 1k,2k,5k).")
    parser.add_argument("--long-k-blocks", type=int, default=16,
                        help="K blocks per output tile of the long kernel (its chain length; default 16).")
    parser.add_argument("--repeat", type=int, default=1, help="Runs per size: the median is reported, with min-max.")
    parser.add_argument("--engine", default="auto", choices=["auto", "souffle", "clingo"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", help="Scratch directory for the corpora (default a fresh temporary one).")
    parser.add_argument("--via", default="run", choices=["run", "cli"],
                        help="The child runs `pypto_verify.run.run` (default; stage times) or the `check` command.")
    parser.add_argument("--json", help="Also write the figures to this file.")
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--rule-sizes", action="store_true", help="Print the rule-size report instead.")
    parser.add_argument("--ratio-limit", type=float, default=20.0)
    parser.add_argument("--long-only", action="store_true", help="--rule-sizes: only the long series.")
    args = parser.parse_args()
    if args.child:
        return child(args.child[0], args.child[1], args.engine, args.jobs)
    with tempfile.TemporaryDirectory(prefix="pypto-synth-") as tmp:
        work = Path(args.workdir) if args.workdir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        return rule_sizes(args, work) if args.rule_sizes else scale(args, work)


if __name__ == "__main__":
    sys.exit(main())
