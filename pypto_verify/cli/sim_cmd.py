"""`pypto-verify sim PATH... [--seed N]`: the dynamic check PV201 for every kernel of the files (directories
are walked for `*.py`).

Each kernel is lowered (`--pipeline`), emitted as PTO, simulated on seeded random inputs and
compared with the value-semantic reference of its source (`pypto_verify.dynamic` documents the
inputs, the sample scalar values and the tolerance). One line per kernel on stdout, led by the
kernel's `path:line:col`: `<kernel>: match`, `<kernel>: mismatch: <first difference>` (PV202 when the
simulator rejected the PTO) or `<kernel>: skipped: <reason>` (a kernel the lowering flagged is not
simulated). Exit: 4 when pypto-verify itself failed on a kernel (PV999, on stderr; the other kernels
are reported), else 1 on any mismatch or PV202, 2 on an input error (and nothing worse), 0 otherwise
(skipped kernels do not fail the run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import parse_sim_binds, pipeline_option, sim_bind_option, target_option
from pypto_verify.rules import INTERNAL_ERROR, Engine
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.records import EXIT_INTERNAL, Mode


@click.command("sim")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random inputs.")
@sim_bind_option()
@pipeline_option()
@target_option()
def command(paths: tuple[Path, ...], seed: int, sim_bind: tuple[str, ...], pipeline: Mode, target: str) -> None:
    """Simulate every kernel of the files (or directories of them) against its reference."""
    binds = parse_sim_binds(sim_bind, [str(p) for p in paths])
    options = Options(mode=pipeline, target=target, seed=seed, sim_bind=binds)
    works = run_work([str(p) for p in paths], options, (Stage.READ, Stage.LOWER, Stage.SIMULATE))
    failed = False
    for work in works:
        for finding in work.findings:
            if finding.rule.engine is not Engine.SIM:
                click.echo(finding.render(), err=True)
        for kernel in work.kernels:
            where = f"{kernel.read.span}: " if kernel.read.span.line else ""  # the kernel's `def` (issue 16, item 11)
            if kernel.sim == "mismatch":
                failed = True
                click.echo(f"{where}{kernel.name}: mismatch: {kernel.sim_reason}")
            elif kernel.sim == "skipped":
                click.echo(f"{where}{kernel.name}: skipped: {kernel.sim_reason}")
            else:
                click.echo(f"{where}{kernel.name}: {kernel.sim_reason or 'match'}")
    if any(f.rule.id == INTERNAL_ERROR.id for work in works for f in work.findings):
        sys.exit(EXIT_INTERNAL)  # our bug on some kernel: the report is incomplete, as `check` says it
    if failed:
        sys.exit(1)
    sys.exit(2 if any(work.status == "input-error" for work in works) else 0)
