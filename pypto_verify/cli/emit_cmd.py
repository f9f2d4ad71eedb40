"""`pypto-verify emit FILE [-o OUT.pto]`: the PTO-AS text of every kernel of FILE.

Source kernels are lowered with `--pipeline` first; Form 3 kernels (lowered IR) are emitted as given.
All kernels go into **one** module (`module attributes {pto.target_arch = ...}`) with one `func.func`
per kernel, in file order; `sim` and the simulator run one function of it by name. A kernel that
cannot be emitted is named on stderr with the reason (`emit: skipped <kernel>: <reason>`).
Exit: 0 when every kernel emitted, 1 when a kernel could not be lowered or emitted, 2 on an input
error (PV000, printed to stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.records import Mode
from pypto_verify.run.chain import emit_stage


@click.command("emit")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the PTO text here.  [default: stdout]")
@pipeline_option()
@target_option()
def command(file: Path, output: Path | None, pipeline: Mode, target: str) -> None:
    """Emit the PTO-AS text of every kernel in FILE."""
    options = Options(mode=pipeline, target=target)
    (work,) = run_work([str(file)], options, (Stage.READ, Stage.LOWER))
    for finding in work.findings:
        click.echo(finding.render(), err=True)
    text, failed = emit_stage(work, options)
    for name, reason in failed:
        click.echo(f"emit: skipped {name}: {reason}", err=True)
    if output is not None:
        output.write_text(text)
    elif text:
        click.echo(text, nl=False)
    if work.status == "input-error":
        sys.exit(2)
    sys.exit(1 if failed or work.findings else 0)
