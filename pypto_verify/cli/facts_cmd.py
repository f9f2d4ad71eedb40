"""`pypto-verify facts FILE... -o DIR`: export the lowered kernels as Datalog facts (schema.dl)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option
from pypto_verify.facts import write_facts
from pypto_verify import rules
from pypto_verify.rules import Severity
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import merge_facts


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="Facts directory to write.")
@pipeline_option("mode")
@target_option()
def command(paths, output, mode, target) -> None:
    """Write one <relation>.facts per input relation and side_table.json; exit 2 on input errors."""
    works = run_work(list(paths), Options(mode=mode, target=target), (Stage.READ, Stage.LOWER, Stage.FACTS))
    errors = [f for w in works for f in w.findings if f.severity is Severity.ERROR]
    for finding in errors:
        sys.stderr.write(finding.render() + "\n")
    facts, _ = merge_facts(w.facts for w in works if w.facts is not None)
    write_facts(facts, Path(output))
    rows = sum(len(r) for r in facts.rows.values())
    sys.stderr.write(f"{len(facts.kernels)} kernels, {rows} facts in {output}\n")
    sys.exit(2 if any(f.rule.id == rules.INPUT_ERROR.id for f in errors) else 0)
