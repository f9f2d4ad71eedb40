"""`pypto-verify sim FILE [--seed N]`: the dynamic check PV201 for every kernel of FILE.

Each kernel is lowered (`--pipeline`), emitted as PTO, simulated on seeded random inputs and
compared with the value-semantic reference of its source (`pypto_verify.dynamic` documents the
inputs, the sample scalar values and the tolerance). One line per kernel on stdout:
`<kernel>: match`, `<kernel>: mismatch: <first difference>` (PV202 when the simulator rejected the
PTO) or `<kernel>: skipped: <reason>`. Exit: 1 on any mismatch or PV202, 2 on an input error (and
nothing worse), 0 otherwise (skipped kernels do not fail the run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option



@click.command("sim")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@pipeline_option()
@target_option()
def command(file: Path, seed: int, pipeline: str, target: str) -> None:
    """Simulate every kernel of FILE against its reference."""
    from pypto_verify.dynamic import prepare_file, simulate_file

    prepared = prepare_file(str(file), mode=pipeline, target=target)
    for line in (*prepared.input_errors, *prepared.lowering_errors):
        click.echo(line, err=True)
    results = simulate_file(prepared, seed=seed, target=target)
    failed = False
    for result in results:
        outcome = result.outcome
        if outcome.status == "mismatch":
            failed = True
            click.echo(f"{result.name}: mismatch: {outcome.message}")
        elif outcome.status == "skipped":
            click.echo(f"{result.name}: skipped: {outcome.reason}")
        else:
            click.echo(f"{result.name}: match")
    if failed:
        sys.exit(1)
    sys.exit(2 if prepared.input_errors else 0)
