"""`pypto-verify explain PV004` / `explain clobbered-read` / `explain --all` / `explain FILE|DIR... [--function F]`.

For a rule (its id in any case, or its name: `rules.named`): the rule's summary and help. `--all`: one line
per rule (id, name, severity, summary). For files and directories (walked for `*.py`): every Acc phi and
loop carry of every kernel with its window and reaching producers (PV010), after lowering. An argument
that names a rule is a rule; anything else must be an existing path.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, require_engine, target_option
from pypto_verify import rules
from pypto_verify.rules import RULES, Rule
from pypto_verify.run.records import Mode


def rule_text(rule: Rule) -> str:
    """What `explain PV004` prints."""
    return f"{rule.id} {rule.name} ({rule.severity.value}): {rule.summary}\n\n{rule.help}"


def rule_line(rule: Rule) -> str:
    """One line of `explain --all`."""
    return f"{rule.id}  {rule.name:<26} {rule.severity.value:<8} {rule.summary}"


@click.command()
@click.argument("targets", nargs=-1, metavar="RULE|PATH...")
@click.option("--all", "all_rules", is_flag=True, help="List every rule: id, name, severity, one line.")
@click.option("--function", "function", help="Only this function.")
@pipeline_option("mode")
@target_option()
@engine_option()
def command(targets, all_rules, function, mode, target, engine) -> None:
    """Explain rules (PV004, pv004, clobbered-read), or the accumulator phis and carries of kernel files."""
    if all_rules:
        for rule in sorted(RULES.values(), key=lambda r: r.id):
            if not rule.retired:
                click.echo(rule_line(rule))
        return
    if not targets:
        raise click.UsageError("give a rule (PV004, clobbered-read), files or directories, or --all")
    named = [(t, rules.named(t)) for t in targets]
    asked = [r for _, r in named if r is not None]
    paths = [t for t, r in named if r is None]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise click.BadParameter(", ".join(f"`{m}`" for m in missing) + " is neither a rule (an id such as PV004 "
                                 "or a name such as clobbered-read) nor an existing path", param_hint="RULE|PATH")
    if asked:
        click.echo("\n\n".join(rule_text(r) for r in asked))
    if paths:
        _explain_files(paths, function, mode, target, engine)


def _explain_files(paths: list[str], function: str | None, mode: Mode, target: str, engine: str) -> None:
    from pypto_verify.findings import Finding
    from pypto_verify.rules import Severity
    from pypto_verify.run import Options, Stage, run_work
    from pypto_verify.run.chain import datalog_stage

    require_engine(engine)
    options = Options(mode=mode, target=target, engine=engine)
    works = run_work(paths, options, (Stage.READ, Stage.LOWER, Stage.FACTS))
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
