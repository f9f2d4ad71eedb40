"""`pypto-verify prove PATH... [--pipeline fixed|legacy] [--target a2a3|a5] [--no-cache] [--dump-smt DIR]
[--timeout-ms N]`.

Reads the files (directories are walked for `*.py`), lowers their kernels (the functions that are already lowered — Form 3 — are checked as given,
without a source), and discharges the Z3 obligations of every accumulator site (`pypto_verify.smt`,
L0C_RULES.md "Z3 obligations"). Prints each site and its obligations (`proved`, `failed` with the
counterexample, `inconclusive` with the reason), then one summary line with the counts and the total
solver time. Input and lowering errors go to stderr. Exit: 1 when an obligation failed or a kernel
could not be lowered, else 2 on an input error, else 3 when an obligation is inconclusive, else 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option
from pypto_verify import rules
from pypto_verify.rules import Engine, Severity, rule
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.records import Mode

_WORDS = {"proved": "proved", "refuted": "failed", "inconclusive": "inconclusive", "conditional": "conditional"}


@click.command("prove")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@pipeline_option(help="The lowering whose output is proved against the source.")
@target_option()
@click.option("--no-cache", "no_cache", is_flag=True, default=False,
              help="Do not read or write the verdict cache.  [default: cache under $XDG_CACHE_HOME/pypto-verify/smt]")
@click.option("--dump-smt", "dump_smt", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write every query as <kernel>.<site>.<rule>.smt2 into this directory.  [default: no dumps]")
@click.option("--timeout-ms", "timeout_ms", type=click.IntRange(min=1), default=60_000, show_default=True,
              help="Per-query wall-clock guard; a query that runs out is inconclusive. Verdicts are decided by "
                   "the solver's deterministic resource limit, the same on every run.")
def command(paths: tuple[Path, ...], pipeline: Mode, target: str, no_cache: bool, dump_smt: Path | None, timeout_ms: int) -> None:
    """Prove the accumulator obligations (PV101-PV108) of the kernels of the files (or directories of them)."""
    from pypto_verify.smt import Verdict

    options = Options(mode=pipeline, target=target, cache=not no_cache, timeout_ms=timeout_ms,
                      dump_smt=str(dump_smt) if dump_smt else None)
    works = run_work([str(p) for p in paths], options, (Stage.READ, Stage.LOWER, Stage.PROVE))
    found = [f for work in works for f in work.findings]
    input_errors = [f for f in found if f.rule.id == rules.INPUT_ERROR.id]
    lowering_errors = [f for f in found if f.rule.engine is not Engine.SMT and f.rule.id != rules.INPUT_ERROR.id
                       and f.severity is Severity.ERROR]
    for error in input_errors:
        click.echo(error.render(), err=True)
    outcomes = [o for work in works for o in work.outcomes]
    for error in lowering_errors:
        click.echo(error.render(), err=True)

    by_site: dict[tuple[str, str], list] = {}
    for outcome in outcomes:
        # the windows a kernel reads and writes (PV107) are listed together, one line each that is not proved
        key = f"{outcome.function}:windows" if outcome.rule == rules.IN_BOUNDS.id else outcome.site
        by_site.setdefault((outcome.span.path, key), []).append(outcome)
    for (_, site), results in by_site.items():
        first = results[0]
        counts = _counts(results)
        if site.endswith(":windows"):
            click.echo(f"{first.span}: GM windows of `{first.function}`: {counts}")
        else:
            click.echo(f"{first.span}: site {site} `{first.name}`: {counts}")
        for outcome in results:
            if site.endswith(":windows") and outcome.verdict is Verdict.PROVED:
                continue
            word = _WORDS[outcome.verdict.value]
            line = f"  {outcome.rule} {rule(outcome.rule).name}: {word}"
            if outcome.verdict is not Verdict.PROVED:
                line += f": {outcome.message}"
            click.echo(line)
            if outcome.counterexample:
                shown = ", ".join(f"{k} = {v}" for k, v in outcome.counterexample.items())
                click.echo(f"    {outcome.span}: counterexample: {shown}")
    seconds = sum(o.seconds for o in outcomes)
    sites = sum(1 for _, key in by_site if not key.endswith(":windows"))
    windows = sum(1 for o in outcomes if o.rule == rules.IN_BOUNDS.id)
    click.echo(f"{sites} sites, {windows} GM windows, {len(outcomes)} obligations: {_counts(outcomes)}; "
               f"solver time {seconds:.2f} s")
    failed = any(o.verdict is Verdict.REFUTED for o in outcomes) or bool(lowering_errors)
    inconclusive = any(o.verdict in (Verdict.INCONCLUSIVE, Verdict.CONDITIONAL) for o in outcomes)
    sys.exit(1 if failed else 2 if input_errors else 3 if inconclusive else 0)


def _counts(outcomes: list) -> str:
    from pypto_verify.smt import Verdict

    n = {v: sum(1 for o in outcomes if o.verdict is v) for v in Verdict}
    return (f"{n[Verdict.PROVED]} proved, {n[Verdict.REFUTED]} failed, "
            f"{n[Verdict.INCONCLUSIVE]} inconclusive" + (f", {n[Verdict.CONDITIONAL]} conditional"
                                                           if n[Verdict.CONDITIONAL] else ""))
