"""The `pypto-verify` command line: one click group, one module per subcommand.

Each subcommand module defines a click command named `command`; `_COMMANDS` lists them explicitly
(no import-time registry). Commands are thin: parse options, call one library function, render,
pick the exit code (0 clean, 1 findings, 2 input or usage error, 3 inconclusive under --strict).
"""

from __future__ import annotations

import importlib

import click

from pypto_verify import __version__

# Subcommand modules, in the order `--help` lists them. A module that is not there yet is skipped,
# so the CLI keeps working while later stages are being built.
_COMMANDS = (
    "parse",
    "lower",
    "facts",
    "datalog",
    "explain",
    "check",
    "prove",
    "emit",
    "sim",
    "sites",
)


def pipeline_option(dest: str = "pipeline", help: str = "Lower source kernels with the fixed pipeline or the "
                                                        "pre-fix (legacy) one."):
    """`--pipeline fixed|legacy`, the same for every command."""
    return click.option("--pipeline", dest, type=click.Choice(["fixed", "legacy"]), default="fixed",
                        show_default=True, help=help)


def target_option(help: str = "The chip generation (L0 capacities, Acc row padding)."):
    """`--target` over the targets `pypto_verify.target` defines."""
    from pypto_verify.target import TARGETS

    return click.option("--target", "target", type=click.Choice(sorted(TARGETS)), default="a2a3",
                        show_default=True, help=help)


def engine_option():
    """`--engine auto|souffle|clingo`."""
    from pypto_verify.engines import ENGINES

    return click.option("--engine", type=click.Choice(ENGINES), default="auto", show_default=True,
                        help="Datalog engine; auto picks souffle when it is on PATH, else the embedded clingo.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pypto-verify")
def main() -> None:
    """Verify PyPTO tile kernels' L0C accumulator chains."""


def _register() -> None:
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"pypto_verify.cli.{name}_cmd")
        except ModuleNotFoundError as error:
            if error.name == f"pypto_verify.cli.{name}_cmd":
                continue
            raise
        main.add_command(module.command, name)


_register()
