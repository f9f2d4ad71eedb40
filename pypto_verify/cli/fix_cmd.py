"""`pypto-verify fix FILE... [--diff | --write]`: hand-written peels into `matmul_acc(..., init_cond=...)`.

Each rewrite is made only when it is proved (`pypto_verify.fix`: the rewritten kernel checked with no
findings, PV101 / PV105 against the original, both simulations matching); every peel that is not
rewritten is printed with its reason.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, target_option


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--diff", "mode", flag_value="diff", default=True, help="Print a unified diff (the default).")
@click.option("--write", "mode", flag_value="write", help="Rewrite the files in place.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the Z3 result cache.")
@pipeline_option("pipeline")
@target_option()
@engine_option()
def command(paths, mode, no_cache, pipeline, target, engine) -> None:
    """Rewrite each `if <cond>: acc = pl.matmul(a, b) else: acc = pl.matmul_acc(acc, a, b)` peel (either
    arm order; not `elif` chains, not `matmul_bias` seeds) into
    `acc = pl.matmul_acc(acc, a, b, init_cond=<cond>)`, where that is proved.

    Reports go to stderr (`path:line:col: rewritten` with what was proved, or `not rewritten: <reason>`);
    the diff to stdout. Exit codes: 0 every peel rewritten (an `if` that is no peel — an `elif` chain, a
    `matmul_bias` seed, other statements in an arm — is reported and left), 1 a peel whose rewrite did not
    prove, 2 a file that cannot be read.
    """
    from pypto_verify.fix import fix_file
    from pypto_verify.run.inputs import collect_files
    from pypto_verify.run.records import Options

    options = Options(mode=pipeline, target=target, engine=engine, sim=True, smt=True, cache=not no_cache, jobs=1)
    code = 0
    for path in (str(p) for p in collect_files(list(paths))):
        try:
            result = fix_file(path, options)
        except (ValueError, OSError, UnicodeDecodeError) as error:
            sys.stderr.write(f"{path}: {error}\n")
            code = 2
            continue
        for rewrite in result.rewrites:
            peel = rewrite.peel
            where = f"{path}:{peel.line}:{peel.col + 1}"
            names = ", ".join(f"`{t}`" for t in peel.targets)
            if rewrite.made:
                sys.stderr.write(f"{where}: rewritten {names} into init_cond form; {'; '.join(rewrite.proved)}\n")
            else:
                sys.stderr.write(f"{where}: not rewritten ({names}): {rewrite.reason}\n")
                if peel.rewritable:  # a peel whose rewrite did not prove (not an `elif` chain, a bias seed ...)
                    code = max(code, 1)
        if not result.changed:
            continue
        if mode == "write":
            Path(path).write_text(result.text, encoding="utf-8")
        else:
            sys.stdout.writelines(difflib.unified_diff(result.original.splitlines(True), result.text.splitlines(True),
                                                       fromfile=f"a/{path}", tofile=f"b/{path}"))
    sys.exit(code)
