"""`pypto-verify merge R1.json R2.json ...`: the shards of `check --shard I/N` as the one run's report."""

from __future__ import annotations

import sys

import click

from pypto_verify.reports import FORMATS
from pypto_verify.reports.merge import load_report, merge_reports
from pypto_verify.reports.settings import ReportSettings


@click.command()
@click.argument("reports", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report here instead of stdout.")
@click.option("--strict", is_flag=True, help="Exit 3 when an obligation is inconclusive.")
@click.option("--min-sites", type=int, default=0, show_default=True,
              help="Fail unless at least this many idiom sites were found and verified (over every shard).")
@click.option("--kernels", "show_kernels", is_flag=True, help="Text format: list every kernel's verdict.")
def command(reports, fmt, output, strict, min_sites, show_kernels) -> None:
    """Merge the JSON reports of `check --shard I/N` (every shard 1..N of one run) into the report the
    unsharded run gives: the same findings in the same order, the --min-sites gate over the union, the
    same exit code (0 clean, 1 error findings or --min-sites not met, 2 input errors only or shards that
    are not one run, 3 inconclusive under --strict).
    """
    try:
        report = merge_reports([(path, *load_report(path)) for path in reports])
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        FORMATS[fmt](report, stream, ReportSettings(show_kernels=show_kernels))
    finally:
        if output:
            stream.close()
    from pypto_verify.cli.check_cmd import exit_code

    if min_sites and report.verified_sites < min_sites:  # check_cmd's gate, over the whole run
        sys.stderr.write(f"error: {report.verified_sites} idiom sites verified ({report.sites} found), "
                         f"fewer than --min-sites {min_sites}\n")
    sys.exit(exit_code(report, strict, min_sites, exit_zero=False))
