"""`pypto-verify explain FILE [--function F]` / `pypto-verify explain PV004`.

For a file: every Acc phi and loop carry of every kernel with its window and reaching producers
(PV010), after lowering. For a rule id: the rule's summary and help.
"""

from __future__ import annotations

import re
import sys

import click

from pypto_verify.cli import engine_option, pipeline_option, require_engine, target_option
from pypto_verify.findings import Finding
from pypto_verify import rules
from pypto_verify.rules import RULES, Severity
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import datalog_stage


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
    require_engine(engine)
    options = Options(mode=mode, target=target, engine=engine)
    works = run_work([target_], options, (Stage.READ, Stage.LOWER, Stage.FACTS))
    errors = [f for w in works for f in w.findings if f.severity is Severity.ERROR]
    for finding in errors:
        sys.stderr.write(finding.render() + "\n")
    lowered = [(w, k) for w in works for k in w.lowered()]
    if function:
        lowered = [(w, k) for w, k in lowered if k.function == function or k.name == function]
    if not lowered:
        sys.exit(2 if errors else 0)
    chosen = {k.name for _, k in lowered}
    shown = 0
    works = datalog_stage(works, options)
    for finding in sorted((f for w in works for f in w.info if f.kernel in chosen), key=Finding.sort_key):
        click.echo(f"{finding.span}: {finding.kernel}: {finding.message}")
        shown += 1
    click.echo(f"{shown} accumulator phis and carries in {len(lowered)} kernels")
    sys.exit(2 if any(f.rule.id == rules.INPUT_ERROR.id for f in errors) else 0)
