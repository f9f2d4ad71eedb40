"""Differential fuzzer: how often does a semantically wrong kernel come back verified? (issue 12, item 5)

Mutates correct corpus kernels and generates random lowered / tile-level K reductions, checks each with the
static chain (`check --no-sim`), and judges it against an oracle: the original kernel's value-semantic
reference, or the plain matmul of a generated program's inputs, through the candidate's own reference and its
simulated PTO. A wrong candidate that verifies is a soundness escape; a flagged one whose output equals the oracle
is a false alarm. Not a test (benchmarks are not tests; `tests/fuzz/` runs a bounded slice). See
docs/RELIABILITY.md for the method and the recorded results.

    python benchmarks/fuzz.py --mutants 300 --generated 300 --seed 0 --jobs 2 --out fuzz.json
    python benchmarks/fuzz.py --mutants 10000 --generated 10000 --jobs 2 --out fuzz-10k.json --escapes-dir escapes/

Exit status: 0 when there is no escape, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzzlib.driver import Config, markdown, render, run_fuzz, summarise  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=100, help="Mutants of corpus kernels (default 100).")
    parser.add_argument("--generated", type=int, default=100, help="Generated programs (default 100).")
    parser.add_argument("--seed", type=int, default=0, help="Seed of every random choice and input (default 0).")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="Worker processes (default: cores).")
    parser.add_argument("--batch", type=int, default=8, help="Candidates per worker task (default 8).")
    parser.add_argument("--corpus", nargs="*", default=None, help="Kernel files or folders (default corpus/).")
    parser.add_argument("--kernels", nargs="*", default=(), help="Only these kernels (function names).")
    parser.add_argument("--max-sim-seconds", type=float, default=2.0,
                        help="Skip kernels whose original takes longer to simulate (default 2).")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="Seconds per candidate for the static check, and again for the oracle (default 60).")
    parser.add_argument("--defect-rate", type=float, default=0.5,
                        help="Share of generated programs given a planted change (default 0.5).")
    parser.add_argument("--target", default="a2a3", choices=["a2a3", "a5"])
    parser.add_argument("--engine", default="auto", choices=["auto", "souffle", "clingo"])
    parser.add_argument("--out", help="Write the JSON report (summary + every candidate) here.")
    parser.add_argument("--escapes-dir", help="Write every escape's kernel text into this folder.")
    parser.add_argument("--markdown", help="Write the result tables as Markdown here (docs/RELIABILITY.md).")
    parser.add_argument("--journal", help="Append every candidate's record to this JSON-lines file as it is judged.")
    parser.add_argument("--resume", action="store_true",
                        help="With --journal: skip the candidates an interrupted run of the same options judged.")
    parser.add_argument("--from-json", help="Do not run: re-tally and render this JSON report, or a --journal "
                                            "file (JSON lines) of a run that did not finish.")
    parser.add_argument("--quiet", action="store_true", help="No progress on stderr.")
    args = parser.parse_args(argv)
    if args.from_json:
        text = Path(args.from_json).read_text(encoding="utf-8")
        if args.from_json.endswith(".jsonl"):
            records = [json.loads(line) for line in text.splitlines() if line.strip().endswith("}")]
            report = {"tool": "pypto-verify fuzz", "summary": {"seconds": {"total": 0}, "throughput": {}},
                      "records": records}
        else:
            report = json.loads(text)
        kept = {k: v for k, v in report["summary"].items() if k in ("config", "baselines", "seconds", "throughput",
                                                                      "cores", "commit")}
        report["summary"] = {**summarise(report["records"]), **kept}
        return _finish(report, args)
    config = Config(mutants=args.mutants, generated=args.generated, seed=args.seed, jobs=args.jobs,
                    batch=args.batch, kernels=tuple(args.kernels), max_sim_seconds=args.max_sim_seconds,
                    timeout=args.timeout, defect_rate=args.defect_rate, target=args.target, engine=args.engine,
                    escapes_dir=args.escapes_dir, journal=args.journal, resume=args.resume, progress=not args.quiet)
    if args.corpus:
        config.corpus = tuple(args.corpus)
    report = run_fuzz(config)
    return _finish(report, args)


def _finish(report: dict, args: argparse.Namespace) -> int:
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(markdown(report), encoding="utf-8")
    print(render(report))
    return 1 if report["summary"]["escapes"] else 0


if __name__ == "__main__":
    sys.exit(main())
