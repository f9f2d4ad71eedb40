"""`pypto-verify sites PATH...`: the census of accumulator idiom sites (if-phi, seed-before-loop, init-cond)."""

from __future__ import annotations

import json
import sys

import click

from pypto_verify.census import summarise
from pypto_verify.idiom import IdiomSite
from pypto_verify.run import Options, Stage, run_work


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(paths, fmt) -> None:
    """List every idiom site with its class; exit 2 if a file could not be read."""
    files = run_work(list(paths), Options(), (Stage.READ,))
    sites: list[IdiomSite] = []
    errors = 0
    with_sites = 0
    for work in files:
        for error in work.findings:
            sys.stderr.write(error.render() + "\n")
        errors += len(work.findings)
        with_sites += bool(work.sites)
        sites.extend(work.sites)
    if fmt == "json":
        data = {"files": len(files), "files_with_sites": with_sites, "sites": len(sites),
                "by_class": summarise(sites), "list": [s.to_json() for s in sites]}
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for s in sites:
            removed = f" (removed by the lowering: {s.removed})" if s.removed else ""
            sys.stdout.write(f"{s.path}:{s.line}: {s.form} in {s.function} [{s.klass}]{removed}\n")
        summary = summarise(sites)
        removed_count = sum(bool(s.removed) for s in sites)
        removed_note = f" ({removed_count} removed by the lowering: not chains to prove)" if removed_count else ""
        sys.stdout.write(f"{len(sites)} sites in {with_sites} of {len(files)} files{removed_note}\n")
        for key, counts in summary.items():
            sys.stdout.write(f"  {key}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + "\n")
    sys.exit(2 if errors else 0)
