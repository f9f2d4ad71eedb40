"""`pypto-verify lower PATH... [--pipeline fixed|legacy] [--target a2a3|a5] [--dump-passes DIR]`.

Reads each file (the chain's read stage; directories are walked for `*.py`), lowers its whole module through the chosen pipeline
(`lowering/pipeline.py`), orchestration functions included, and prints the final module (Form 3).
`--dump-passes DIR` also writes the module before the first pass and after each pass:
`00_frontend.py`, `01_after_Simplify.py`, ... (each is kernel-language source that reads back); with
several files, into one subdirectory of DIR per file (its stem). Several files print one after another,
each after a `# <path>` comment line.
`--stop-after PASS` ends the pipeline after that pass.

Errors go to stderr: input errors as `path:line:col: PV000 input-error: ...`, lowering errors as
`path:line:col: PVnnn <message>`. Exit: 1 when a kernel could not be lowered, else 2 when the input had
errors, else 0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import pipeline_option, target_option
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.records import Mode
from pypto_verify.run.chain import lowering_finding
from pypto_verify.target import TARGETS


@click.command("lower")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@pipeline_option(help="fixed: the predicated K loops; legacy: the old compiler's if-phis.")
@target_option()
@click.option("--dump-passes", "dump_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the module after every pass into this directory.  [default: no dumps]")
@click.option("--stop-after", "stop_after", default=None, metavar="PASS",
              help="Stop after this pass (e.g. lower-pipeline-loops).  [default: run them all]")
def command(paths: tuple[Path, ...], pipeline: Mode, target: str, dump_dir: Path | None, stop_after: str | None) -> None:
    """Lower the kernels of the files (or directories of them) and print the lowered IR."""
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower, passes
    from pypto_verify.printer import print_module

    if stop_after is not None and stop_after not in {p.name for p in passes(pipeline)}:
        raise click.BadParameter(f"{stop_after!r} is not a pass of the {pipeline} pipeline; choose from "
                                 + ", ".join(p.name for p in passes(pipeline)), param_hint="--stop-after")
    # The chain's read stage; each file's whole module (orchestration functions included) then goes through
    # the pass pipeline at once, as the compiler runs it, so every pass's dump is the file's.
    works = run_work([str(p) for p in paths], Options(mode=pipeline, target=target), (Stage.READ,))
    options = LowerOptions(mode=pipeline, target=TARGETS[target])
    stems = [Path(w.path).stem for w in works]
    lowering_failed = input_errors = False
    for index, work in enumerate(works):
        for error in work.findings:
            click.echo(error.render(), err=True)
        input_errors = input_errors or bool(work.findings)
        result = lower(work.module, options, keep_dumps=dump_dir is not None, stop_after=stop_after)
        if dump_dir is not None:
            mine = dump_dir if len(works) == 1 else dump_dir / (stems[index] if stems.count(stems[index]) == 1
                                                                else f"{stems[index]}_{index}")
            mine.mkdir(parents=True, exist_ok=True)
            for name, module in result.dumps:
                (mine / f"{name}.py").write_text(print_module(module))
        if len(works) > 1:
            click.echo(f"# {work.path}")
        click.echo(print_module(result.module), nl=False)
        for lowering_error in result.errors:
            function = getattr(lowering_error, "function", "")
            click.echo(lowering_finding(lowering_error, function, function).render(), err=True)
        lowering_failed = lowering_failed or bool(result.errors)
    sys.exit(1 if lowering_failed else 2 if input_errors else 0)
