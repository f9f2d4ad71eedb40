"""`pypto-verify check PATH...`: the whole verification over files and directories.

Every option can also be set in `[tool.pypto-verify]` of the nearest pyproject.toml (`cli/config.py`);
the command line overrides it. `-` reads one kernel from stdin (`--stdin-filename` names it). Reports:
repeatable `--format`, each written to the `-o FILE` right after it, else to stdout.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

import click

from pypto_verify.cli import (
    engine_option, parse_sim_binds, pipeline_option, require_engine, sim_bind_option, target_option,
)
from pypto_verify.cli.config import ConfiguredCommand
from pypto_verify.reports import FORMATS
from pypto_verify.reports import statistics as statistics_report
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run import Options, run
from pypto_verify.run.inputs import baseline_text, filter_findings, read_baseline, select_shard
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


_REPORT_OPTIONS = {"--format": "format", "--output": "output", "-o": "output"}


def report_order(args: list[str]) -> list[tuple[str, str]]:
    """The `--format` and `-o` values in the order they appear in *args* (`--format=x`, `-ox` included),
    up to a `--`: what pairs each `-o` with its `--format`."""
    order = []
    tokens = iter(args)
    for token in tokens:
        if token == "--":
            break
        if token in _REPORT_OPTIONS:
            value = next(tokens, None)
            if value is not None:
                order.append((_REPORT_OPTIONS[token], value))
        elif token.startswith(("--format=", "--output=")):
            name, value = token.split("=", 1)
            order.append((_REPORT_OPTIONS[name], value))
        elif token.startswith("-o") and not token.startswith("--"):
            order.append(("output", token[2:]))
    return order


def pair_outputs(order: list[tuple[str, str]]) -> list[tuple[str, str | None]]:
    """(format, file or None for stdout) pairs from the `--format` / `-o` values in command-line order:
    each `-o FILE` writes the `--format` just before it; a `--format` with no `-o` after it writes to
    stdout; with one format, its one `-o` may come first (`-o r.json --format json`); no `--format` is
    text. Usage errors (exit 2, before the run): an `-o` with no format of its own, two reports on stdout,
    one file twice."""
    formats = [value for kind, value in order if kind == "format"]
    files = [value for kind, value in order if kind == "output"]
    if len(formats) <= 1 and len(files) <= 1:
        return [(formats[0] if formats else "text", files[0] if files else None)]
    pairs: list[tuple[str, str | None]] = []
    for kind, value in order:
        if kind == "format":
            pairs.append((value, None))
        elif not pairs or pairs[-1][1] is not None:
            raise click.UsageError(f"-o {value} follows no --format of its own: write each -o FILE right after "
                                   "the --format it is for")
        else:
            pairs[-1] = (pairs[-1][0], value)
    if sum(1 for _, file in pairs if file is None) > 1:
        raise click.UsageError("more than one --format would write to stdout: give each but one an -o FILE")
    resolved = [str(Path(file).resolve()) for _, file in pairs if file is not None]
    if len(set(resolved)) != len(resolved):
        raise click.UsageError("two --format reports would be written to the same -o file")
    return pairs


class CheckCommand(ConfiguredCommand):
    """`check`, which keeps the command-line order of `--format` and `-o` (click's parser does not)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["pypto_verify.report_order"] = report_order(list(args))
        return super().parse_args(ctx, args)


def use_color(choice: str, stream: TextIO) -> bool:
    """`--color`: always, never, or auto = *stream* is a terminal and `NO_COLOR` is unset or empty
    (https://no-color.org)."""
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def write_report(report: RunResult, name: str, file: str | None, settings: ReportSettings, color: str,
                 options: Options) -> None:
    """Render *report* as format *name* into *file* (stdout when None)."""
    stream = open(file, "w", encoding="utf-8") if file else sys.stdout
    try:
        if name == "html":  # one self-contained page, with the chains of each kernel with findings
            from pypto_verify import graph
            from pypto_verify.reports import html

            html.write(report, stream, graph.drawings(report, options))
        else:
            FORMATS[name](report, stream, replace(settings, color=use_color(color, stream)))
    finally:
        if file:
            stream.close()


@click.command(cls=CheckCommand, epilog="""\b
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
@click.option("--format", "fmt", type=click.Choice([*FORMATS, "html"]), multiple=True,
              help="Report format (default text); repeatable: each goes to the -o that follows it, else stdout.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), multiple=True,
              help="Write the report of the --format just before it here instead of stdout; missing parent "
                   "directories are created.")
@click.option("--statistics", is_flag=True, help="Text: per-rule counts (count, id, name) instead of the findings.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report: auto = on a terminal and NO_COLOR unset.")
@click.option("--jobs", type=int, default=0, show_default=True, help="Worker processes; 0 = number of cores.")
@click.option("--no-sim", is_flag=True, help="Skip PTO emission and simulation.")
@sim_bind_option()
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
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300.0, show_default=True,
              help="Seconds a file's per-file stages, and again its per-kernel stages, may take; past it its "
                   "kernels are inconclusive (PV100, naming the stage).")
@click.option("--max-file-size", type=click.IntRange(min=1), default=4 * 1024 * 1024, show_default=True,
              help="Bytes a kernel file (or a module it imports) may have; a larger one is an input error.")
@click.option("--max-memory", type=click.IntRange(min=0), default=8 * 1024 ** 3, show_default=True,
              help="Bytes of address space the checking of one file may use (RLIMIT_AS); past it its kernels "
                   "are inconclusive (PV100). 0: no cap.")
@click.option("--shard", help="Check only part I of N of the files (I/N, by a hash of each path); "
                               "`pypto-verify merge` joins the shards' JSON reports.")
def command(paths, mode, target, engine, fmt, output, statistics, color, jobs, no_sim, sim_bind, no_smt, no_cache, cache_dir,
            strict, min_sites, baseline, write_baseline, select, ignore, show_kernels, engine_timeout, exit_zero,
            quiet, verbose, stdin_filename, shard, timeout, max_file_size, max_memory) -> None:
    """Verify kernels: frontend, lowering, Datalog rules, Z3 obligations, emission and simulation.

    PATHS are files and directories (walked for *.py), or `-` for stdin. Every option can also be set in
    [tool.pypto-verify] of the nearest pyproject.toml under its long name (no-sim = true); the command line
    overrides it.
    """
    from pypto_verify import rules

    ctx = click.get_current_context()
    order = ctx.meta.get("pypto_verify.report_order", [])
    if ([v for kind, v in order if kind == "format"] != list(fmt)
            or [v for kind, v in order if kind == "output"] != list(output)):
        # a spelling the scan does not know (an -o inside a cluster of short flags), or values from
        # [tool.pypto-verify]: click's values, in order
        order = [("format", v) for v in fmt] + [("output", v) for v in output]
        if len(fmt) > 1:
            raise click.UsageError("write each -o FILE as its own option right after its --format")
    outputs = pair_outputs(order)
    try:
        rules.resolve_selectors(select)
        rules.resolve_selectors(ignore)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--select/--ignore") from None
    if baseline and not Path(baseline).is_file():
        raise click.BadParameter(f"{baseline} does not exist", param_hint="--baseline")
    require_engine(engine)
    try:
        known = read_baseline(baseline) if baseline else None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    for _, file in outputs:
        if file is not None:
            _prepare_output(file, "-o/--output")
    if write_baseline:
        _prepare_output(write_baseline, "--write-baseline")
    if cache_dir:
        from pypto_verify.cache_root import ENV

        os.environ[ENV] = str(Path(cache_dir).resolve())  # the worker processes inherit it
    sources = _read_stdin(paths, stdin_filename)
    targets = [p for p in paths if p != STDIN] + list(sources)
    options = Options(mode=mode, target=target, engine=engine, sim=not no_sim, smt=not no_smt,
                      cache=not no_cache, jobs=jobs, engine_timeout=engine_timeout, timeout=timeout,
                      max_file_size=max_file_size, max_memory=max_memory,
                      sim_bind=parse_sim_binds(sim_bind, [p for p in targets if p in paths]))
    progress = _progress if sys.stderr.isatty() and not quiet else None
    try:
        part = select_shard(targets, shard) if shard else None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    checked = targets if part is None else [str(p) for p in part[1]]
    report = filter_findings(run(checked, options, progress=progress, sources=sources), select, ignore, known)
    if part is not None:
        report = replace(report, shard=part[0])
    if write_baseline:
        Path(write_baseline).write_text(baseline_text(report, write_baseline), encoding="utf-8")
    base = ReportSettings(show_kernels=show_kernels or verbose, statistics=statistics, show_summary=not quiet)
    for name, target_file in outputs:
        write_report(report, name, target_file, base, color, options)
    if statistics and "text" not in (name for name, _ in outputs):
        statistics_report.write(report, sys.stderr)  # the counts are for a person, never in a machine report
    if verbose:
        _verbose(report)
    if min_sites and report.verified_sites < min_sites:
        sys.stderr.write(f"error: {report.verified_sites} idiom sites verified ({report.sites} found), "
                         f"fewer than --min-sites {min_sites}\n")
    sys.exit(exit_code(report, strict, min_sites, exit_zero))
