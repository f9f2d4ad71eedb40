"""`pypto-verify check PATH...`: the whole verification over files and directories.

Every option can also be set in `[tool.pypto-verify]` of the nearest pyproject.toml (`cli/config.py`);
the command line overrides it. `-` reads one kernel from stdin (`--stdin-filename` names it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, target_option
from pypto_verify.cli.config import ConfiguredCommand
from pypto_verify.reports import json_report, sarif, text
from pypto_verify.run import Options, run
from pypto_verify.run.inputs import baseline_text, filter_findings, read_baseline
from pypto_verify.run.records import EXIT_CLEAN, EXIT_FINDINGS, EXIT_INCONCLUSIVE, EXIT_INTERNAL, RunResult

STDIN = "-"
"""The path that stands for standard input."""


def _progress(stage: str, done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r\033[K[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files: {stage}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _prepare_output(path: str, option: str) -> None:
    """Create the missing parent directories of a file *option* writes, before the run; a usage error when
    that is impossible."""
    try:
        Path(path).resolve().parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.BadParameter(f"cannot create the directory of {path}: {error.strerror or error}",
                                 param_hint=option) from None


def _read_stdin(paths: tuple[str, ...], stdin_filename: str | None) -> dict[str, str]:
    """`{reported path: source}` for a `-` among *paths* (at most one, reported as `--stdin-filename`)."""
    if STDIN not in paths:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename is given but no path is `-`")
        return {}
    if paths.count(STDIN) > 1:
        raise click.UsageError("`-` (stdin) may be given once")
    name = str(Path(stdin_filename)) if stdin_filename else "<stdin>"
    return {name: sys.stdin.read()}


def _verbose(report: RunResult) -> None:
    """`-v`: each file's status and per-stage wall times, then the run's stage groups, on stderr."""
    for file in report.files:
        if file.cached:
            detail = "cached"
        else:
            detail = ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in file.seconds) or "checked"
        sys.stderr.write(f"{file.path}: {detail}\n")
    if report.seconds:
        sys.stderr.write("run: " + ", ".join(f"{name} {value:.2f} s" for name, value in report.seconds) + "\n")


def exit_code(report: RunResult, strict: bool, min_sites: int, exit_zero: bool) -> int:
    """The exit code of a report (the table of `check --help` and the README)."""
    code = report.exit_code(strict)
    if code == EXIT_INTERNAL:
        return code  # never hidden: the run is incomplete
    if min_sites and report.verified_sites < min_sites and code != EXIT_INCONCLUSIVE:
        code = max(code, EXIT_FINDINGS)
    return EXIT_CLEAN if exit_zero else code


@click.command(cls=ConfiguredCommand, epilog="""\b
Exit codes:
  0  clean (or --exit-zero, unless 4)
  1  error findings, or --min-sites not met
  2  input errors (PV000) only, or a usage error (bad option, unknown rule selector, missing baseline,
     malformed or unknown [tool.pypto-verify] key)
  3  inconclusive or conditional kernels under --strict
  4  internal error: pypto-verify failed on a kernel (PV999, a bug of ours)""")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@pipeline_option("mode")
@target_option()
@engine_option()
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the report here instead of stdout; missing parent directories are created.")
@click.option("--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = number of cores.")
@click.option("--no-sim", is_flag=True, help="Skip PTO emission and simulation.")
@click.option("--no-smt", is_flag=True, help="Skip the Z3 obligations.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), envvar="PYPTO_VERIFY_CACHE_DIR",
              help="Keep every cache here.  [default: $PYPTO_VERIFY_CACHE_DIR, else $XDG_CACHE_HOME/pypto-verify]")
@click.option("--strict", is_flag=True, help="Exit 3 when an obligation is inconclusive.")
@click.option("--min-sites", type=int, default=0, show_default=True,
              help="Fail unless at least this many idiom sites were found and verified.")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="Report only findings not in this baseline (it must exist).")
@click.option("--write-baseline", type=click.Path(dir_okay=False),
              help="Write the findings as a baseline; missing parent directories are created.")
@click.option("--select", multiple=True,
              help="Only these rules: ids in any case, id prefixes or names (comma-separated).")
@click.option("--ignore", multiple=True,
              help="Drop these rules: ids in any case, id prefixes or names (comma-separated).")
@click.option("--kernels", "show_kernels", is_flag=True, help="Text format: list every kernel's verdict.")
@click.option("--engine-timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds the Datalog engine may run on a file; past it its kernels are inconclusive (PV100).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (an internal error is still 4).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary line, no progress bar.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also list every kernel's verdict, and on stderr each file's stage times (or `cached`).")
@click.option("--stdin-filename", metavar="PATH",
              help="With the path `-`: report the kernel read from stdin under this path (its sibling modules "
                   "are read beside it).")
def command(paths, mode, target, engine, fmt, output, jobs, no_sim, no_smt, no_cache, cache_dir, strict, min_sites,
            baseline, write_baseline, select, ignore, show_kernels, engine_timeout, exit_zero, quiet, verbose,
            stdin_filename) -> None:
    """Verify kernels: frontend, lowering, Datalog rules, Z3 obligations, emission and simulation.

    PATHS are files and directories (walked for *.py), or `-` for stdin. Every option can also be set in
    [tool.pypto-verify] of the nearest pyproject.toml under its long name (no-sim = true); the command line
    overrides it.
    """
    from pypto_verify import rules

    try:
        rules.resolve_selectors(select)
        rules.resolve_selectors(ignore)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--select/--ignore") from None
    if baseline and not Path(baseline).is_file():
        raise click.BadParameter(f"{baseline} does not exist", param_hint="--baseline")
    try:
        known = read_baseline(baseline) if baseline else None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if output:
        _prepare_output(output, "-o/--output")
    if write_baseline:
        _prepare_output(write_baseline, "--write-baseline")
    if cache_dir:
        from pypto_verify.cache_root import ENV

        os.environ[ENV] = str(Path(cache_dir).resolve())  # the worker processes inherit it
    sources = _read_stdin(paths, stdin_filename)
    targets = [p for p in paths if p != STDIN] + list(sources)
    options = Options(mode=mode, target=target, engine=engine, sim=not no_sim, smt=not no_smt,
                      cache=not no_cache, jobs=jobs, engine_timeout=engine_timeout)
    progress = _progress if sys.stderr.isatty() and not quiet else None
    report = filter_findings(run(targets, options, progress=progress, sources=sources), select, ignore, known)
    if write_baseline:
        Path(write_baseline).write_text(baseline_text(report, write_baseline), encoding="utf-8")
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        if fmt == "json":
            json_report.write(report, stream)
        elif fmt == "sarif":
            sarif.write(report, stream)
        else:
            text.write(report, stream, show_kernels=show_kernels or verbose, summary=not quiet)
    finally:
        if output:
            stream.close()
    if verbose:
        _verbose(report)
    if min_sites and report.verified_sites < min_sites:
        sys.stderr.write(f"error: {report.verified_sites} idiom sites verified ({report.sites} found), "
                         f"fewer than --min-sites {min_sites}\n")
    sys.exit(exit_code(report, strict, min_sites, exit_zero))
