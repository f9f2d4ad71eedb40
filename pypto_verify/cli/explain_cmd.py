"""`pypto-verify explain FILE [--function F]` / `pypto-verify explain PV004`.

For a file: every Acc phi and loop carry of every kernel with its window and reaching producers
(PV010), after lowering. For a rule id: the rule's summary and help.
"""

from __future__ import annotations

import re
import sys

import click

from pypto_verify.cli import engine_option, pipeline_option, target_option
from pypto_verify.findings import datalog_findings
from pypto_verify.pipeline import CheckOptions, datalog_relations, lower_files
from pypto_verify.rules import RULES


@click.command()
@click.argument("target_", metavar="FILE|RULE")
@click.option("--function", "function", help="Only this function.")
@pipeline_option("mode")
@target_option()
@engine_option()
def command(target_, function, mode, target, engine) -> None:
    """Explain a rule, or the accumulator phis and carries of a kernel file."""
    if re.fullmatch(r"PV\d{3}", target_):
        rule = RULES.get(target_)
        if rule is None:
            raise click.UsageError(f"unknown rule {target_}")
        click.echo(f"{rule.id} {rule.name} ({rule.severity.value}): {rule.summary}\n\n{rule.help}")
        return
    options = CheckOptions(mode=mode, target=target, engine=engine)
    kernels, errors = lower_files([target_], options)
    for finding in errors:
        sys.stderr.write(finding.render() + "\n")
    if function:
        kernels = [k for k in kernels if k[2].name == function or k[1] == function]
    if not kernels:
        sys.exit(2 if errors else 0)
    relations, facts, names = datalog_relations(kernels, options)
    shown = 0
    for finding in datalog_findings(relations, facts, names):
        if finding.rule.id == "PV010":
            click.echo(f"{finding.span}: {finding.kernel}: {finding.message}")
            shown += 1
    click.echo(f"{shown} accumulator phis and carries in {len(kernels)} kernels")
    sys.exit(2 if any(f.rule.id == "PV000" for f in errors) else 0)
