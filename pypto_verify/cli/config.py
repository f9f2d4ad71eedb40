"""`[tool.pypto-verify]` of the nearest pyproject.toml as the defaults of a command's options.

Owns: finding that file (`nearest_pyproject`: the working directory, then each parent), reading the table
(`project_table`: malformed TOML is a usage error naming the file and TOML's message), and turning it
into click's `default_map` (`defaults_for`): every key is an option's long name (`no-sim`, `select`,
`engine-timeout`, `format`, ...; a path is relative to the pyproject.toml), an unknown key is a usage
error naming it. `exclude` belongs to the
directory walk (`run.inputs.collect_files`) and is accepted without being an option. An option given on
the command line overrides the table (click's default_map is only a default).
`ConfiguredCommand` is the click command class that applies it before parsing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

WALK_KEYS = frozenset({"exclude"})
"""Keys of the table read by the directory walk, not by an option."""


def nearest_pyproject(start: Path | None = None) -> Path | None:
    """The first `pyproject.toml` in *start* (default: the working directory) or one of its parents."""
    here = (start or Path.cwd()).resolve()
    return next((d / "pyproject.toml" for d in (here, *here.parents) if (d / "pyproject.toml").is_file()), None)


def project_table(path: Path) -> dict[str, Any]:
    """`[tool.pypto-verify]` of *path* (`{}` when absent); `click.UsageError` when the file is not TOML or
    the table is not a table."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise click.UsageError(f"cannot read {path}: {error}") from None
    table = data.get("tool", {}).get("pypto-verify", {})
    if not isinstance(table, dict):
        raise click.UsageError(f"{path}: [tool.pypto-verify] must be a table, not {type(table).__name__}")
    return table


def option_names(command: click.Command) -> dict[str, click.Option]:
    """Each option of *command* by its config key: the first long name without `--` (`--no-sim` →
    `no-sim`, `--format` → `format`)."""
    out: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option):
            long = [o for o in param.opts if o.startswith("--")]
            if long:
                out[long[0][2:]] = param
    return out


def defaults_for(command: click.Command, table: Mapping[str, Any], source: Path) -> dict[str, Any]:
    """click's `default_map` for *command* from *table*; `click.UsageError` naming an unknown key."""
    options = option_names(command)
    unknown = sorted(k for k in table if k not in options and k not in WALK_KEYS)
    if unknown:
        raise click.UsageError(f"{source}: unknown key{'s' if len(unknown) > 1 else ''} "
                               f"{', '.join(repr(k) for k in unknown)} in [tool.pypto-verify]; the keys are the "
                               f"long option names of `pypto-verify {command.name}` ({', '.join(sorted(options))}) "
                               f"and {', '.join(sorted(WALK_KEYS))}")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key in WALK_KEYS:
            continue
        option = options[key]
        if option.multiple and isinstance(value, str):
            value = [value]
        if option.is_flag and not isinstance(value, bool):
            raise click.UsageError(f"{source}: [tool.pypto-verify] {key} must be true or false, not {value!r}")
        if isinstance(option.type, click.Path) and isinstance(value, str) and value != "-":
            value = str(source.parent / value)  # a path in the file is relative to the file
        if option.name is not None:
            out[option.name] = value
    return out


class ConfiguredCommand(click.Command):
    """A click command whose option defaults come from `[tool.pypto-verify]` (module docstring)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # shell completion never fails on a bad config
            source = nearest_pyproject()
            if source is not None:
                defaults = defaults_for(self, project_table(source), source)
                ctx.default_map = {**defaults, **(ctx.default_map or {})}
        return super().parse_args(args=args, ctx=ctx)
