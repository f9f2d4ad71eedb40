"""Rule-size benchmark: the largest derived relation of each file against its statement count.

The rules must grow with the program, not with its square (issue: linear-time analysis). For every file
given (default: the corpus), this exports the facts of its lowered kernels, runs `datalog/` with every
derived relation made an output, and prints the file's statements (program points), its largest derived
relation and that relation's rows per statement. It asserts nothing (benchmarks are not tests).

    python benchmarks/rule_sizes.py                              # every corpus file, clingo
    python benchmarks/rule_sizes.py /tmp/pypto-lib/models --top 10
"""

from __future__ import annotations

import argparse
import importlib.resources
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from pypto_verify.engines.api import run_program
from pypto_verify.facts import write_facts
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import merge_facts

ROOT = Path(__file__).resolve().parents[1]
DECL = re.compile(r"^\.decl\s+(\w+)", re.MULTILINE)
DIRECTIVE = re.compile(r"^\.(?:input|output)\s+([\w,\s]+)$", re.MULTILINE)


def all_outputs_program(folder: Path) -> Path:
    """A copy of the rules in *folder* whose `outputs.dl` also outputs every derived relation."""
    source = Path(str(importlib.resources.files("pypto_verify.datalog")))
    for dl in source.glob("*.dl"):
        shutil.copy(dl, folder / dl.name)
    text = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.dl"))
    declared = DECL.findall(text)
    directed = {name.strip() for group in DIRECTIVE.findall(text) for name in group.split(",")}
    extra = [name for name in declared if name not in directed]
    with (folder / "outputs.dl").open("a", encoding="utf-8") as handle:
        handle.write("\n// rule_sizes.py: every derived relation\n")
        handle.writelines(f".output {name}\n" for name in extra)
    return folder / "main.dl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "corpus")])
    parser.add_argument("--engine", default="clingo")
    parser.add_argument("--top", type=int, default=0, help="Print only the N files with the most rows per point.")
    args = parser.parse_args()
    rows_out = []
    with tempfile.TemporaryDirectory(prefix="rule-sizes-") as tmp:
        program = all_outputs_program(Path(tmp))
        works = run_work(args.paths, Options(jobs=1), (Stage.READ, Stage.LOWER, Stage.FACTS))
        for work in works:
            if work.facts is None:
                continue
            facts, _ = merge_facts([work.facts])
            facts_dir = Path(tmp) / "facts"
            shutil.rmtree(facts_dir, ignore_errors=True)
            write_facts(facts, facts_dir)
            points = len(facts.rows["node"])
            started = time.perf_counter()
            relations = run_program(program, facts_dir, engine=args.engine, timeout=600)
            seconds = time.perf_counter() - started
            name, rows = max(((n, len(r)) for n, r in relations.items()), key=lambda item: item[1])
            rows_out.append((rows / max(points, 1), work.path, points, name, rows, seconds))
    rows_out.sort(reverse=True)
    if args.top:
        rows_out = rows_out[: args.top]
    print(f"{'file':60} {'points':>7} {'largest derived relation':>34} {'rows':>9} {'rows/pt':>8} {'s':>6}")
    for ratio, path, points, name, rows, seconds in rows_out:
        print(f"{Path(path).name[:60]:60} {points:7} {name:>34} {rows:9} {ratio:8.1f} {seconds:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
