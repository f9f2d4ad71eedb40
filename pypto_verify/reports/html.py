"""HTML report: one self-contained page (`check --format html -o report.html`, `graph -o OUT.html`).

Owns the page: the run's summary, the findings grouped by rule and then by kernel (each with its
location, message, notes, counterexample and an excerpt of its source lines), and the accumulator-chain
picture of every kernel with findings (`pypto_verify.graph`): the SVG Graphviz drew, inline, or — when
`dot` is not installed — the DOT text; in both cases the L0C windows' legend and their live ranges as
HTML tables drawn here. Nothing is fetched: the CSS is inline, there is no script, no font or image
from the network (the SVG's `xmlns` attributes are names, not requests).

Input: the frozen `RunResult` and the `Picture`s the command drew (`graph.drawings`);
the only files read are the findings' source files, for the excerpts.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TextIO

from pypto_verify import __version__
from pypto_verify.findings import Finding
from pypto_verify.graph import RED, Chains, Picture, segments, span_text, title_of
from pypto_verify.run.records import RunResult
from pypto_verify.source import source_lines

CONTEXT = 2
"""Source lines shown before and after a finding's line."""


_CSS = """
body { font-family: Helvetica, Arial, sans-serif; margin: 2em; color: #222; max-width: 1200px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; }
.summary { background: #f5f5f5; padding: .8em 1em; border-radius: 4px; }
.summary td { padding: 0 1.5em 0 0; }
.finding { border-left: 4px solid #d62728; padding: .3em .8em; margin: .6em 0; background: #fff8f8; }
.finding.warning { border-color: #ff7f0e; background: #fffaf3; } .finding.info { border-color: #1f77b4; background: #f5f9ff; }
.where { font-family: monospace; color: #555; } .rule { font-weight: bold; color: #d62728; }
.notes { margin: .3em 0 .3em 1.2em; padding: 0; font-size: .92em; } .notes li { list-style: square; }
pre { background: #272822; color: #f8f8f2; padding: .5em; overflow-x: auto; font-size: .85em; }
pre .hit { background: #6b2222; display: block; }
pre .ln { color: #90908a; user-select: none; }
table.tl, table.legend { border-collapse: collapse; font-size: .8em; margin: .5em 0; }
table.tl td, table.tl th, table.legend td { border: 1px solid #999; padding: 2px 4px; }
table.tl td.on { min-width: 1.5em; } td.over { color: #d62728; font-weight: bold; }
figure { margin: 1em 0; padding: 1em; border: 1px solid #ddd; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
.clean { color: #2ca02c; font-weight: bold; }
"""


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def _summary(report: RunResult) -> str:
    kernels = report.kernels
    verified = sum(1 for k in kernels if k.verdict == "verified")
    errors = sum(1 for f in report.findings if f.severity.value == "error")
    rows = [("files", len(report.files)), ("kernels", len(kernels)), ("verified kernels", verified),
            ("idiom sites", f"{report.sites} ({report.verified_sites} verified, {report.conditional_sites} conditional)"),
            ("findings", f'<span id="finding-count">{len(report.findings)}</span> ({errors} errors)')]
    cells = "".join(f"<tr><td>{name}</td><td>{value}</td></tr>" for name, value in rows)
    return f'<div class="summary" id="summary"><table>{cells}</table></div>'


def _excerpt(finding: Finding) -> str:
    lines = source_lines(finding.span.path)
    line = finding.span.line
    if not lines or not 1 <= line <= len(lines):
        return ""
    lo, hi = max(1, line - CONTEXT), min(len(lines), line + CONTEXT)
    body = "".join(
        f'<span class="{"hit" if n == line else "src"}"><span class="ln">{n:>5} </span>{_h(lines[n - 1])}</span>'
        + ("" if n == line else "\n") for n in range(lo, hi + 1))
    return f"<pre>{body}</pre>"


def _finding(finding: Finding) -> str:
    notes = "".join(f'<li><span class="where">{_h(n.span)}</span>: {_h(n.message)}</li>' for n in finding.notes)
    cex = ""
    if finding.counterexample:
        cex = "<div>counterexample: <code>" + _h(", ".join(f"{k} = {v}" for k, v in finding.counterexample.items())) \
              + "</code></div>"
    return (f'<div class="finding {finding.severity.value}" data-rule="{finding.rule.id}">'
            f'<div><span class="where">{_h(finding.span)}</span> <span class="rule">{finding.rule.id} '
            f'{_h(finding.rule.name)}</span>: <span class="message">{_h(finding.message)}</span></div>'
            + (f'<ul class="notes">{notes}</ul>' if notes else "") + cex + _excerpt(finding) + "</div>")


def _findings(report: RunResult, drawn: dict[tuple[str, str], int]) -> str:
    by_rule: dict[str, dict[str, list[Finding]]] = {}
    for f in report.findings:
        by_rule.setdefault(f.rule.id, {}).setdefault(f.kernel or f.span.path, []).append(f)
    if not by_rule:
        return '<p class="clean">No findings.</p>'
    parts = []
    for rule_id in sorted(by_rule):
        kernels = by_rule[rule_id]
        first = next(iter(kernels.values()))[0].rule
        count = sum(len(v) for v in kernels.values())
        parts.append(f'<section class="rule-group" id="rule-{rule_id}"><h2>{rule_id} {_h(first.name)} '
                     f'({count})</h2><p>{_h(first.summary)}</p>')
        for kernel in sorted(kernels):
            mine = kernels[kernel]
            index = drawn.get((mine[0].span.path, kernel))
            link = f' <a class="to-chains" href="#chains-{index}">chains</a>' if index is not None else ""
            parts.append(f'<h3>{_h(kernel)}{link}</h3>' + "".join(_finding(f) for f in mine))
        parts.append("</section>")
    return "".join(parts)


def _legend(chains: Chains) -> str:
    rows = "".join(f'<tr><td style="background:{w.colour}">&nbsp;&nbsp;</td><td>{_h(w.text)}</td>'
                   f"<td>base {_h(w.base)}, offset {w.offset} B, size {w.size} B</td></tr>" for w in chains.windows)
    return f'<table class="legend">{rows}</table>' if rows else "<p>no Acc window</p>"


def timeline_table(chains: Chains) -> str:
    """Each window's live range over the program points (by source line), and the co-live bytes."""
    runs = segments(chains)
    head = "".join(f"<th>{span_text(s)}</th>" for s in runs)
    rows = [f"<tr><th>line</th>{head}</tr>"]
    for i, w in enumerate(chains.windows):
        cells = "".join(f'<td class="on" style="background:{w.colour}"></td>' if s.live[i] else "<td></td>"
                        for s in runs)
        rows.append(f'<tr><td style="background:{w.colour}">{_h(w.text)}</td>{cells}</tr>')
    cap = chains.capacity
    cells = "".join(f'<td class="{"over" if cap and s.pressure > cap else ""}">{s.pressure}</td>' for s in runs)
    rows.append(f"<tr><td>co-live bytes (L0C {cap})</td>{cells}</tr>")
    return f'<table class="tl">{"".join(rows)}</table>'


_PROLOG = re.compile(r"^\s*<\?xml[^>]*\?>\s*(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)


def inline_svg(svg: str) -> str:
    """Graphviz's SVG document as an element to inline (its XML prolog and doctype dropped)."""
    return _PROLOG.sub("", svg, count=1)


def _picture(picture: Picture, index: int) -> str:
    chains = picture.chains
    if picture.svg is not None:
        drawing = f'<div class="svg">{inline_svg(picture.svg)}</div>'
    else:
        drawing = ("<p>Graphviz <code>dot</code> is not installed, so the chains are given as DOT "
                   "(render them with <code>dot -Tsvg</code>):</p>" f'<pre class="dot">{_h(picture.dot)}</pre>')
    red = sum(1 for n in chains.nodes if n.rules)
    return (f'<figure class="chains" id="chains-{index}"><figcaption><b>{_h(title_of(chains))}</b>: '
            f'{len(chains.nodes)} values, {len(chains.edges)} flows, <span style="color:{RED}">{red} in '
            f"findings</span></figcaption>{drawing}<h4>L0C windows</h4>{_legend(chains)}"
            f"<h4>live ranges</h4>{timeline_table(chains)}</figure>")


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_h(title)}</title>'
            f"<style>{_CSS}</style></head><body><h1>{_h(title)}</h1>{body}"
            f"<footer><p>pypto-verify {_h(__version__)}</p></footer></body></html>\n")


def render(report: RunResult, pictures: Iterable[Picture]) -> str:
    """The whole report page."""
    drawn = list(pictures)
    index = {(p.chains.path, p.chains.kernel): i for i, p in enumerate(drawn)}
    body = _summary(report) + _findings(report, index)
    if drawn:
        body += "<h2>Accumulator chains of the kernels with findings</h2>"
        body += "".join(_picture(p, i) for i, p in enumerate(drawn))
    return _page("pypto-verify report", body)


def write(report: RunResult, stream: TextIO, pictures: Iterable[Picture] = ()) -> None:
    stream.write(render(report, pictures))


def graph_page(path: str, drawn: list[Chains], dot: str) -> str:
    """`graph -o OUT.html`: the pictures of one file's kernels (one SVG for all, or the DOT)."""
    from pypto_verify.graph import to_svg

    svg = to_svg(dot)
    if svg is not None:
        drawing = f'<figure class="chains">{inline_svg(svg)}</figure>'
    else:
        drawing = ("<p>Graphviz <code>dot</code> is not installed, so the chains are given as DOT:</p>"
                   f'<pre class="dot">{_h(dot)}</pre>')
    tables = "".join(f"<h3>{_h(title_of(c))}</h3><h4>L0C windows</h4>{_legend(c)}<h4>live ranges</h4>"
                     f"{timeline_table(c)}" for c in drawn)
    return _page(f"accumulator chains of {path}", drawing + tables)
