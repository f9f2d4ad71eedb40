"""`pypto-verify cache dir` / `pypto-verify cache clean`: where the caches are, and emptying them.

The location is `cache_root()` (`$PYPTO_VERIFY_CACHE_DIR`, else `$XDG_CACHE_HOME/pypto-verify`), or
`--cache-dir`. `clean` removes only what pypto-verify keeps there (`CACHE_PARTS`) and then the directory
if it is empty; a directory holding anything else is refused (exit 2), so a mistyped `--cache-dir` never
deletes a user's files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import click

CACHE_PARTS = ("results", "manifests", "imports", "extents", "smt", "souffle-bin")
"""What the caches keep below the root: results (`run/cache.py`) and what their keys came from
(`run/manifest.py`), the imports of each file content (`imports.py`), the extents behind code frames
(`source.py`), Z3 verdicts, compiled Soufflé binaries."""


def _root(cache_dir: str | None) -> Path:
    from pypto_verify.cache_root import cache_root

    return Path(cache_dir) if cache_dir else cache_root()


def cache_dir_option():
    return click.option("--cache-dir", type=click.Path(file_okay=False), envvar="PYPTO_VERIFY_CACHE_DIR",
                        help="The cache directory.  [default: $PYPTO_VERIFY_CACHE_DIR, else "
                             "$XDG_CACHE_HOME/pypto-verify]")


@click.group("cache")
def command() -> None:
    """Show or empty the caches (results, Z3 verdicts, compiled Soufflé binaries)."""


@command.command("dir")
@cache_dir_option()
def show(cache_dir: str | None) -> None:
    """Print the cache directory."""
    click.echo(str(_root(cache_dir)))


@command.command("clean")
@cache_dir_option()
def clean(cache_dir: str | None) -> None:
    """Remove every cached result, verdict and binary."""
    root = _root(cache_dir)
    if not root.exists():
        click.echo(f"{root}: no cache")
        return
    if not root.is_dir():
        raise click.BadParameter(f"{root} is not a directory", param_hint="--cache-dir")
    foreign = sorted(e.name for e in root.iterdir() if e.name not in CACHE_PARTS)
    if foreign:
        raise click.BadParameter(f"{root} holds {', '.join(foreign[:5])}{' ...' if len(foreign) > 5 else ''}, which "
                                 f"pypto-verify did not write; not cleaning it", param_hint="--cache-dir")
    removed = 0
    for part in CACHE_PARTS:
        entry = root / part
        if entry.exists():
            removed += sum(1 for p in entry.rglob("*") if p.is_file())
            shutil.rmtree(entry)
    root.rmdir()
    click.echo(f"{root}: removed {removed} cache files")
