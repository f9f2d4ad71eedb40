"""`pypto-verify datalog run PROG.dl -F FACTS -D OUT`: run a Datalog program with either engine.

Writes one sorted `<relation>.csv` per `.output` relation into OUT and a one-line summary to stderr.
An `EngineError` prints `error: <message>` to stderr and exits 2 (input or usage error).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from pypto_verify.cli import engine_option
from pypto_verify.engines.api import EngineError, pick_engine, run_program


@click.group("datalog")
def command() -> None:
    """Run the Datalog rules with Soufflé or the embedded clingo translation."""


@command.command("run")
@click.argument("program", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-F", "--facts", "facts_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory with one <relation>.facts TSV file per .input relation.")
@click.option("-D", "--output", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write one <relation>.csv per .output relation into.")
@engine_option()
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds before the run is stopped.")
@click.option("--compiled", is_flag=True, default=False,
              help="souffle only: build and cache a compiled binary (souffle -o).  [default: off]")
def run(program: Path, facts_dir: Path, out_dir: Path, engine: str, timeout: float, compiled: bool) -> None:
    """Evaluate PROGRAM on the facts in -F and write its outputs into -D."""
    start = time.perf_counter()
    try:
        chosen = pick_engine(engine)
        result = run_program(program, facts_dir, engine=chosen, out_dir=out_dir, timeout=timeout, compiled=compiled)
    except EngineError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    rows = sum(len(values) for values in result.values())
    elapsed = time.perf_counter() - start
    click.echo(f"datalog: {len(result)} output relations, {rows} rows ({chosen}, {elapsed:.2f} s)", err=True)
