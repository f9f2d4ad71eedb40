"""The `pypto-verify` command line: one click group, one module per subcommand.

Each subcommand module defines a click command named `command`; `_COMMANDS` lists them explicitly
(no import-time registry). Commands are thin: parse options, call one library function, render,
pick the exit code (0 clean, 1 findings, 2 input or usage error, 3 inconclusive under --strict, 4 an
internal error). `python -m pypto_verify` runs `main` as the console script does; click's shell completion
is `_PYPTO_VERIFY_COMPLETE=bash_source pypto-verify` (zsh_source, fish_source).
"""

from __future__ import annotations

import importlib

import click

from pypto_verify import __version__

# Subcommand modules (`pypto_verify.cli.<name>_cmd`), in the order `--help` lists them.
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
    "cache",
    "merge",
    "graph",
    "fix",
)


def pipeline_option(dest: str = "pipeline", help: str = "Lower source kernels with the fixed pipeline or the "
                                                        "pre-fix (legacy) one."):
    """`--pipeline fixed|legacy`, the same for every command."""
    return click.option("--pipeline", dest, type=click.Choice(["fixed", "legacy"]), default="fixed",
                        show_default=True, help=help)


TARGET_NAMES = ("a2a3", "a5")
"""The names of `pypto_verify.target.TARGETS`, spelled here so that parsing options imports no IR (a test
keeps the two equal)."""


def target_option(help: str = "The chip generation (L0 capacities, Acc row padding)."):
    """`--target` over the targets `pypto_verify.target` defines (`TARGET_NAMES`)."""
    return click.option("--target", "target", type=click.Choice(TARGET_NAMES), default="a2a3",
                        show_default=True, help=help)


def engine_option():
    """`--engine auto|souffle|clingo`."""
    from pypto_verify.engines import ENGINES

    return click.option("--engine", type=click.Choice(ENGINES), default="auto", show_default=True,
                        help="Datalog engine; auto picks souffle when it is on PATH, else the embedded clingo.")


def require_engine(engine: str) -> None:
    """A usage error (exit 2, before any work) when an engine named explicitly cannot run; `auto` falls back
    to the embedded engine by itself."""
    if engine != "souffle":
        return
    from pypto_verify.engines import pick_engine
    from pypto_verify.engines.souffle_lang import EngineError

    try:
        pick_engine(engine)
    except EngineError as error:
        raise click.UsageError(f"--engine souffle cannot run: {error}") from None


class _Commands(click.Group):
    """The subcommands of `_COMMANDS`, each imported when it is run or listed by `--help`, so that
    `--version` and a warm-cache `check` import only what they use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module = importlib.import_module(f"pypto_verify.cli.{cmd_name}_cmd")
        command: click.Command = module.command
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pypto-verify")
def main() -> None:
    """Verify PyPTO tile kernels' L0C accumulator chains."""


def sim_bind_option():
    """`--sim-bind NAME=VALUE` (repeatable): the value a `pl.dynamic` size is simulated at."""
    return click.option("--sim-bind", "sim_bind", multiple=True, metavar="NAME=VALUE",
                        help="Simulate at this value of a `pl.dynamic` size (repeatable), or `blocks=N`: the "
                             "block count of a kernel whose launcher gives its block index; by default the "
                             "simulation picks valid samples, a tail case among them, and 2 blocks.")


def parse_sim_binds(values: tuple[str, ...], paths: list[str]) -> tuple[tuple[str, int], ...]:
    """The `--sim-bind` values, each shown valid for every kernel of *paths* that has the size; a usage
    error naming why one is not (not `NAME=INTEGER`, a name no kernel has, outside its bounds, not a
    multiple the kernel's tiling needs)."""
    binds: dict[str, int] = {}
    for text in values:
        name, sep, digits = text.partition("=")
        try:
            number = int(digits)
        except ValueError:
            number = None
        if not sep or not name.strip() or number is None:
            raise click.BadParameter(f"`{text}` is not NAME=INTEGER", param_hint="--sim-bind")
        binds[name.strip()] = number
    if not binds:
        return ()  # a warm check imports no IR
    from pypto_verify.callees import block_launched
    from pypto_verify.run.chain import read_stage
    from pypto_verify.run.inputs import collect_files
    from pypto_verify.sizes import BLOCKS, check_binding, dynamic_names

    kernels = [k.read for p in collect_files(paths) for k in read_stage(str(p)).kernels if k.read is not None]

    def sizes_of(fn):
        # `blocks`: the launch of a kernel whose block index its launcher gives (not its callees': the file's
        # calls are resolved only when it is simulated)
        return [*dynamic_names(fn), *([BLOCKS] if block_launched(fn) and BLOCKS not in dynamic_names(fn) else [])]

    for name, bound in binds.items():
        having = [fn for fn in kernels if name in sizes_of(fn)]
        if not having:
            known = sorted({n for fn in kernels for n in sizes_of(fn)})
            raise click.BadParameter(f"`{name}` is not a `pl.dynamic` size of any kernel checked "
                                     f"(their sizes: {', '.join(known) or 'none'})", param_hint="--sim-bind")
        for fn in having:
            why = check_binding(fn, name, bound) if name != BLOCKS or name in dynamic_names(fn) else \
                (f"`{BLOCKS}={bound}`: a launch has at least 1 block" if bound < 1 else None)
            if why is not None:
                raise click.BadParameter(f"{why} (kernel `{fn.name}`)", param_hint="--sim-bind")
    return tuple(binds.items())
