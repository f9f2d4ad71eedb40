"""`pypto-verify emit PATH... [-o OUT.pto]`: the PTO-AS text of every kernel of the files (directories are
walked for `*.py`).

Source kernels are lowered with `--pipeline` first; Form 3 kernels (lowered IR) are emitted as given.
All kernels of a file go into **one** module (`module attributes {pto.target_arch = ...}`) with one `func.func`
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
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the PTO text here.  [default: stdout]")
@pipeline_option()
@target_option()
def command(paths: tuple[Path, ...], output: Path | None, pipeline: Mode, target: str) -> None:
    """Emit the PTO-AS text of every kernel of the files (or directories of them)."""
    options = Options(mode=pipeline, target=target)
    works = run_work([str(p) for p in paths], options, (Stage.READ, Stage.LOWER))
    modules: list[tuple[str, str]] = []
    failed: list[tuple[str, str]] = []
    for work in works:
        for finding in work.findings:
            click.echo(finding.render(), err=True)
        text, skipped = emit_stage(work, options)
        failed += skipped
        for name, reason in skipped:
            click.echo(f"emit: skipped {name}: {reason}", err=True)
        if text:
            modules.append((work.path, text))
    # one file: its module as before; several: each module under a `// <path>` comment line
    text = modules[0][1] if len(works) == 1 and modules else "".join(f"// {path}\n{body}" for path, body in modules)
    if output is not None:
        output.write_text(text)
    elif text:
        click.echo(text, nl=False)
    if any(work.status == "input-error" for work in works):
        sys.exit(2)
    sys.exit(1 if failed or any(work.findings for work in works) else 0)
