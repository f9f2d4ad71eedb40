"""`pypto-verify facts FILE... -o DIR`: export the lowered kernels as Datalog facts (schema.dl)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option
from pypto_verify.facts import export_facts, write_facts
from pypto_verify.pipeline import CheckOptions, lower_files
from pypto_verify.target import get_target


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="Facts directory to write.")
@pipeline_option("mode")
@target_option()
def command(paths, output, mode, target) -> None:
    """Write one <relation>.facts per input relation and side_table.json; exit 2 on input errors."""
    options = CheckOptions(mode=mode, target=target)
    kernels, errors = lower_files(list(paths), options)
    for finding in errors:
        sys.stderr.write(finding.render() + "\n")
    facts = export_facts([(p, fn) for p, _, fn in kernels], get_target(target))
    write_facts(facts, Path(output))
    rows = sum(len(r) for r in facts.rows.values())
    sys.stderr.write(f"{len(kernels)} kernels, {rows} facts in {output}\n")
    sys.exit(2 if any(f.rule.id == "PV000" for f in errors) else 0)
