"""`pypto-verify check PATH...`: the whole verification over files and directories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, target_option
from pypto_verify.pipeline import CheckOptions, CheckReport, check
from pypto_verify.reports import json_report, sarif, text


def _progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _matches(rule_id: str, patterns: tuple[str, ...]) -> bool:
    return any(rule_id.startswith(p.strip()) for spec in patterns for p in spec.split(",") if p.strip())


def _filter(report: CheckReport, select: tuple[str, ...], ignore: tuple[str, ...],
            baseline: set[tuple[str, str]] | None) -> None:
    for file in report.files:
        kept = []
        for f in file.findings:
            if select and not _matches(f.rule.id, select):
                continue
            if ignore and _matches(f.rule.id, ignore):
                continue
            if baseline is not None and (f.span.path, sarif.fingerprint(f)) in baseline:
                continue
            kept.append(f)
        file.findings = kept


def _read_baseline(path: str) -> set[tuple[str, str]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return {(e["path"], e["fingerprint"]) for e in data["findings"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise click.UsageError(f"cannot read baseline {path}: {error}") from None


def _write_baseline(report: CheckReport, path: str) -> None:
    entries = sorted({(f.span.path, sarif.fingerprint(f), f.rule.id) for f in report.findings})
    data = {"tool": "pypto-verify", "findings": [{"path": p, "fingerprint": fp, "rule": r} for p, fp, r in entries]}
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


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
def command(paths, mode, target, engine, fmt, output, jobs, no_sim, no_smt, no_cache, strict, min_sites,
            baseline, write_baseline, select, ignore, show_kernels) -> None:
    """Verify kernels: frontend, lowering, Datalog rules, Z3 obligations, emission and simulation.

    Exit codes: 0 clean, 1 error findings (or --min-sites not met), 2 input errors only,
    3 inconclusive obligations under --strict.
    """
    options = CheckOptions(mode=mode, target=target, engine=engine, sim=not no_sim, smt=not no_smt,
                           cache=not no_cache, jobs=jobs)
    progress = _progress if sys.stderr.isatty() else None
    report = check(list(paths), options, progress=progress)
    known = _read_baseline(baseline) if baseline else None
    _filter(report, select, ignore, known)
    if write_baseline:
        _write_baseline(report, write_baseline)
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
