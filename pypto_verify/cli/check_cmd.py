"""`pypto-verify check PATH...`: the whole verification over files and directories."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, require_engine, target_option
from pypto_verify.reports import json_report, sarif, text
from pypto_verify.run import Options, run
from pypto_verify.run.inputs import baseline_text, filter_findings, read_baseline


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@pipeline_option("mode")
@target_option()
@engine_option()
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report here instead of stdout.")
@click.option("--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = number of cores.")
@click.option("--no-sim", is_flag=True, help="Skip PTO emission and simulation.")
@click.option("--no-smt", is_flag=True, help="Skip the Z3 obligations.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--strict", is_flag=True, help="Exit 3 when an obligation is inconclusive.")
@click.option("--min-sites", type=int, default=0, show_default=True,
              help="Fail unless at least this many idiom sites were found and verified.")
@click.option("--baseline", type=click.Path(dir_okay=False), help="Report only findings not in this baseline.")
@click.option("--write-baseline", type=click.Path(dir_okay=False), help="Write the findings as a baseline.")
@click.option("--select", multiple=True, help="Only these rule ids (prefixes, comma-separated).")
@click.option("--ignore", multiple=True, help="Drop these rule ids (prefixes, comma-separated).")
@click.option("--kernels", "show_kernels", is_flag=True, help="Text format: list every kernel's verdict.")
@click.option("--engine-timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds the Datalog engine may run on a file; past it its kernels are inconclusive (PV100).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300.0, show_default=True,
              help="Seconds a file's per-file stages, and again its per-kernel stages, may take; past it its "
                   "kernels are inconclusive (PV100, naming the stage).")
@click.option("--max-file-size", type=click.IntRange(min=1), default=4 * 1024 * 1024, show_default=True,
              help="Bytes a kernel file (or a module it imports) may have; a larger one is an input error.")
@click.option("--max-memory", type=click.IntRange(min=0), default=4 * 1024 ** 3, show_default=True,
              help="Bytes of address space the checking of one file may use (RLIMIT_AS); past it its kernels "
                   "are inconclusive (PV100). 0: no cap.")
def command(paths, mode, target, engine, fmt, output, jobs, no_sim, no_smt, no_cache, strict, min_sites,
            baseline, write_baseline, select, ignore, show_kernels, engine_timeout, timeout, max_file_size,
            max_memory) -> None:
    """Verify kernels: frontend, lowering, Datalog rules, Z3 obligations, emission and simulation.

    Exit codes: 0 clean, 1 error findings (or --min-sites not met), 2 input errors only,
    3 inconclusive obligations under --strict.
    """
    require_engine(engine)
    options = Options(mode=mode, target=target, engine=engine, sim=not no_sim, smt=not no_smt,
                      cache=not no_cache, jobs=jobs, engine_timeout=engine_timeout, timeout=timeout,
                      max_file_size=max_file_size, max_memory=max_memory)
    try:
        known = read_baseline(baseline) if baseline else None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    progress = _progress if sys.stderr.isatty() else None
    report = filter_findings(run(list(paths), options, progress=progress), select, ignore, known)
    if write_baseline:
        Path(write_baseline).write_text(baseline_text(report), encoding="utf-8")
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        if fmt == "json":
            json_report.write(report, stream)
        elif fmt == "sarif":
            sarif.write(report, stream)
        else:
            text.write(report, stream, show_kernels=show_kernels)
    finally:
        if output:
            stream.close()
    code = report.exit_code(strict)
    if min_sites and report.verified_sites < min_sites:
        sys.stderr.write(f"error: {report.verified_sites} idiom sites verified ({report.sites} found), "
                         f"fewer than --min-sites {min_sites}\n")
        code = max(code, 1) if code != 3 else code
    sys.exit(code)
