"""`pypto-verify graph FILE [--kernel K] [-o OUT.{dot,svg,html}]`: the accumulator chains as a picture.

The kernels after lowering (a Form 3 dump as given), their values, flows and L0C windows, the findings of
the rules drawn red, each window's live range (`pypto_verify.graph`). DOT on stdout by default; `.svg`
through Graphviz's `dot` (when it is not installed, the DOT is written beside and the command says so);
`.html` one self-contained page with the picture (`pypto_verify.reports.html`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pypto_verify.cli import engine_option, pipeline_option, target_option


@click.command()
@click.argument("path", type=click.Path(exists=True))
@click.option("--kernel", help="Only this kernel (`Program.function` or the function name).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write OUT.dot, OUT.svg (needs Graphviz `dot`) or OUT.html instead of DOT on stdout.")
@pipeline_option("mode")
@target_option()
@engine_option()
def command(path, kernel, output, mode, target, engine) -> None:
    """Draw the accumulator chains of each kernel of PATH: values, in-place steps, phi arms, loop carries,
    drains, L0C windows and their live ranges; the findings' values and flows in red.

    Exit codes: 0 drawn (findings or not), 2 nothing to draw (no such kernel, nothing lowered).
    """
    from pypto_verify import graph
    from pypto_verify.run.records import Options

    options = Options(mode=mode, target=target, engine=engine, sim=False, smt=False, cache=False, jobs=1)
    drawn, missing = graph.pictures([path], options, kernel)
    for why in missing:
        sys.stderr.write(f"{path}: {why}\n")
    if not drawn:
        sys.stderr.write(f"{path}: no kernel to draw" + (f" named {kernel}" if kernel else "") + "\n")
        sys.exit(2)
    dot = graph.to_dot(drawn, f"accumulator chains of {path}")
    if output is None:
        sys.stdout.write(dot)
        return
    out = Path(output)
    if out.suffix == ".html":
        from pypto_verify.reports import html

        out.write_text(html.graph_page(path, drawn, dot), encoding="utf-8")
    elif out.suffix == ".svg":
        svg = graph.to_svg(dot)
        if svg is None:
            beside = out.with_suffix(".dot")
            beside.write_text(dot, encoding="utf-8")
            sys.stderr.write(f"Graphviz `dot` is not installed: wrote the DOT to {beside} instead of {out} "
                             "(install graphviz, or render it with `dot -Tsvg`)\n")
            return
        out.write_text(svg, encoding="utf-8")
    else:
        out.write_text(dot, encoding="utf-8")
