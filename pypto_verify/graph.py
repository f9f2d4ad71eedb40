"""The accumulator chains of a lowered kernel as a picture: `chains_of` builds the frozen `Chains` record
from the kernel's Datalog facts and its findings; `to_dot` writes it as Graphviz DOT; `to_svg` runs `dot`.

Input: one kernel's `FactSet` (`facts.py`: every relation, ids and the side table's names, lines and
window text — after lowering, or of a Form 3 dump as given) and the findings of that kernel. Output:

- a node per Acc value (its source name and line, the op that defines it), per value a finding names (a
  bias tile, a value read after a clobber), and per drain target (the GM tensor a FIXPIPE store writes);
- an edge per flow of the chain: `matmul_acc` in place (`inplace`), if-phi arms (`then` / `else` →
  the phi), loop carries (`init` → iter_arg, the yield → iter_arg on the next iteration and → the loop's
  result), identity copies, and every other read of an Acc value (a FIXPIPE drain: store, assemble,
  move; or an illegal reader, PV006);
- every node filled with the colour of its L0C window, and a legend giving each window's base, offset
  and size in bytes;
- each node a finding names (by its display name, on one of the finding's windows when it names any)
  drawn red with the rule ids, each edge between two nodes of one finding red with its rule id, and for
  PV009 the edges of the chain where it changes window;
- the live range of each Acc window over the kernel's program points (a value on the window is live
  into the point or defined at it: `liveness.dl`'s `acc_base_live`, computed here by the same backward
  analysis over `succ` without the edges a literal condition never takes) with the co-live bytes of the
  buffer roots per point against the target's capacity — what PV008 talks about.

Why hand-written DOT and no library: the `graphviz` PyPI package only builds the same source text and
shells out to the same `dot` binary (it adds no layout of its own), and `pydot` adds pyparsing to parse
DOT we never read back; neither quotes HTML-like labels for us. Writing the text ourselves keeps it
deterministic (the golden tests pin it byte for byte), dependency-free, and the SVG comes from `dot -Tsvg`
when Graphviz is installed (`to_svg` returns None when it is not: the caller says so and keeps the DOT).
"""

from __future__ import annotations

import html
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pypto_verify.facts import FactSet
from pypto_verify.findings import Finding
from pypto_verify.ir import Function, Program
from pypto_verify.span import display_name

if TYPE_CHECKING:  # the chain is imported when a picture is drawn from files (`pictures`)
    from pypto_verify.run.records import Options, RunResult

# Fill colours of the windows, in the order windows first appear (ColorBrewer Pastel1/Set3: no red, so
# a finding's red stays the one signal).
PALETTE = ("#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#ffffb3", "#80b1d3", "#bebada", "#ccebc5",
           "#d9d9d9", "#bc80bd", "#8dd3c7", "#fccde5")
RED = "#d62728"
DRAINS = frozenset({"tile.store", "tile.assemble", "tile.move"})
"""The FIXPIPE drains (TARGET_FACTS.md): the ops that read an accumulator out of L0C."""


@dataclass(frozen=True)
class Node:
    """A value of the picture."""

    key: str
    """Unique within the kernel: `v<id>` for a value, `p<point>` for a statement that defines none."""
    name: str
    """As the user wrote it (SSA suffixes stripped)."""
    line: int
    op: str
    """What defines it: the op, `iter_arg`, `phi`, `loop result`, `parameter`."""
    space: str
    window: str | None
    rules: tuple[str, ...] = ()
    """The rules of the findings that name it (drawn red)."""


@dataclass(frozen=True)
class Edge:
    """A flow of the chain, or a read of an accumulator."""

    src: str
    dst: str
    kind: str
    """`inplace`, `then`, `else`, `init`, `next`, `result`, `copy`, `drain` or `read`."""
    label: str
    line: int = 0
    """The source line of the statement the flow or read happens at."""
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class WindowRow:
    """One Acc window: its legend entry and its live range."""

    text: str
    """`base[lo:hi]`, as findings name it."""
    base: str
    offset: int
    size: int
    colour: str
    live: tuple[bool, ...]
    """Per timeline column: is a value on this window live into that point or defined there."""


@dataclass(frozen=True)
class Chains:
    """The picture of one kernel's accumulator chains."""

    kernel: str
    path: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    windows: tuple[WindowRow, ...]
    columns: tuple[int, ...]
    """The source line of each timeline column (program points that read or write an Acc value, in order)."""
    pressure: tuple[int, ...]
    """Co-live bytes of the Acc buffer roots at each column."""
    capacity: int
    findings: tuple[str, ...]
    """`PV004 line 38: <message>` for every finding of the kernel (the caption)."""
    stage: str = ""
    """Empty after the whole pipeline; for a kernel the pipeline rejected, the dump it is drawn from."""


# ---------------------------------------------------------------------------------------------- building


def chains_of(facts: FactSet, k: int, kernel: str, findings: Iterable[Finding]) -> Chains:
    """The picture of kernel *k* of *facts*, with *findings* (the kernel's) drawn red."""
    rows = {name: sorted(r[1:] for r in facts.rows[name] if r[0] == k) for name in facts.rows}
    table = facts.kernels[k]
    found = sorted(findings, key=Finding.sort_key)
    space = {v: s for v, s, _, _ in rows["tile"]}
    window = {v: table.windows.get(w, f"w{w}") for v, w in rows["window"]}
    line_of = {p: line for p, line, _ in rows["span"]}
    op_at = {p: (table.ops.get(p) or o) for p, o in rows["op"]}
    kind_at = {p: kind for p, kind in rows["node"]}
    defined_at: dict[int, int] = {}
    for p, v in rows["defines"]:
        defined_at.setdefault(v, p)
    acc = {v for v, s in space.items() if s == "Acc"}
    value_line = {v: line_of.get(p, 0) for v, p in defined_at.items()}

    wanted = set(acc)
    named: dict[int, list[str]] = {}  # value -> rules of the findings that name it
    for f in found:
        for v in _named_values(f, table.values, window, value_line):
            wanted.add(v)
            named.setdefault(v, []).append(f.rule.id)

    edges, carried, more = _flow_edges(rows, acc, op_at, line_of)
    wanted |= more
    reads, sinks = _read_edges(rows, acc, op_at, kind_at, line_of, defined_at)
    edges += reads
    wanted |= {int(e.dst[1:]) for e in reads if e.dst.startswith("v")}

    nodes = [Node(f"v{v}", display_name(table.value_name(v)), line_of.get(defined_at.get(v, -1), 0),
                  _definer(defined_at.get(v), kind_at, op_at, v in carried), space.get(v, "scalar"),
                  window.get(v), tuple(dict.fromkeys(named.get(v, ()))))
             for v in sorted(wanted)]
    nodes += [sinks[key] for key in sorted(sinks)]
    edges = _red_edges(sorted(set(edges), key=_edge_key), {n.key: n for n in nodes}, found)

    columns, live, pressure = _timeline(rows, acc, kind_at, line_of, table.windows)
    order = list(dict.fromkeys(window[v] for v in sorted(acc) if v in window))
    ranges = {table.windows.get(w, f"w{w}"): (table.bases.get(b, f"b{b}"), lo, hi)
              for w, b, lo, hi in rows["window_range"]}
    windows = tuple(_row(text, ranges.get(text, ("?", 0, 0)), PALETTE[i % len(PALETTE)],
                         tuple(text in here for here in live)) for i, text in enumerate(order))
    capacity = next((size for s, size in rows["capacity"] if s == "Acc"), 0)
    captions = tuple(f"{f.rule.id} {f.rule.name} line {f.span.line}: {f.message}" for f in found)
    return Chains(kernel, table.path, tuple(nodes), tuple(edges), windows, columns, pressure, capacity, captions)


def _flow_edges(rows: dict[str, list[tuple]], acc: set[int], op_at: dict[int, str],
                line_of: dict[int, int]) -> tuple[list[Edge], set[int], set[int]]:
    """The chain's flows (flow.dl's `flows`): in place, phi arms, loop carries, copies; the iter_args
    carried, and the values the carries bring in."""
    edges: list[Edge] = []
    for p, src, dst in rows["inplace"]:
        if src in acc or dst in acc:
            edges.append(Edge(f"v{src}", f"v{dst}", "inplace", _short(op_at.get(p, "in place")), line_of.get(p, 0)))
    phis = {(s, i): rv for s, i, rv in rows["phi"]}
    for s, arm, i, v in rows["phi_arm"]:
        rv = phis.get((s, i))
        if rv is not None and (rv in acc or v in acc):
            name = "then" if arm == 1 else "else"
            edges.append(Edge(f"v{v}", f"v{rv}", name, name, line_of.get(s, 0)))
    carried: set[int] = set()
    members: set[int] = set()
    for s, _i, init, ia, y, rv in rows["carry"]:
        if {init, ia, y, rv} & acc:
            carried.add(ia)
            members.update((init, ia, y, rv))
            at = line_of.get(s, 0)
            edges.append(Edge(f"v{init}", f"v{ia}", "init", "init", at))
            edges.append(Edge(f"v{y}", f"v{ia}", "next", "next iteration", at))
            edges.append(Edge(f"v{y}", f"v{rv}", "result", "loop result", at))
    for p, src, dst in rows["copy"]:
        if src in acc or dst in acc:
            edges.append(Edge(f"v{src}", f"v{dst}", "copy", "copy", line_of.get(p, 0)))
    return edges, carried, members


def _read_edges(rows: dict[str, list[tuple]], acc: set[int], op_at: dict[int, str], kind_at: dict[int, str],
                line_of: dict[int, int], defined_at: dict[int, int]) -> tuple[list[Edge], dict[str, Node]]:
    """Every other read of an Acc value: a FIXPIPE drain, or a reader PV006 is about; and a node for each
    statement that reads one but defines no value."""
    inplace_src = {(p, src) for p, src, _ in rows["inplace"]}
    defined_by = {p: v for v, p in defined_at.items()}
    edges: list[Edge] = []
    sinks: dict[str, Node] = {}
    for p, v, _pos in rows["uses"]:
        if v not in acc or (p, v) in inplace_src or kind_at.get(p) in ("yield", "for_entry", "return", "if"):
            continue
        op = op_at.get(p, kind_at.get(p, "read"))
        target = defined_by.get(p)
        key = f"p{p}" if target is None else f"v{target}"
        if target is None:
            sinks.setdefault(key, Node(key, _short(op), line_of.get(p, 0), op, "", None))
        kind = "drain" if op in DRAINS else "read"
        edges.append(Edge(f"v{v}", key, kind, ("FIXPIPE " if kind == "drain" else "") + _short(op), line_of.get(p, 0)))
    return edges, sinks


def _row(text: str, where: tuple[str, int, int], colour: str, live: tuple[bool, ...]) -> WindowRow:
    base, lo, hi = where
    return WindowRow(text, base, lo, hi - lo, colour, live)


def _short(op: str) -> str:
    return op.removeprefix("tile.")


def _definer(p: int | None, kind_at: dict[int, str], op_at: dict[int, str], carried: bool) -> str:
    if p is None:
        return "?"
    kind = kind_at.get(p, "")
    if kind == "for_header":
        return "iter_arg" if carried else "loop variable"
    return {"if_join": "phi", "for_exit": "loop result", "entry": "parameter"}.get(kind, op_at.get(p, kind))


def _named_values(f: Finding, names: dict[int, str], window: dict[int, str], line_of_value: dict[int, int]) -> list[int]:
    """The values finding *f* names. A name can stand for several SSA values (`acc`, `acc__rv_v2`): those
    on one of its windows (when it names any), and of those the ones defined on its line or a note's line
    (where the message says the value is written), else all of them."""
    lines = {f.span.line, *(n.span.line for n in f.notes)}
    out: list[int] = []
    for name in dict.fromkeys(display_name(v) for v in f.values):  # a lowering error may give the SSA name
        mine = [v for v, n in names.items() if display_name(n) == name]
        if f.windows:
            mine = [v for v in mine if window.get(v) in f.windows or v not in window] or mine
        mine = [v for v in mine if line_of_value.get(v) in lines] or mine
        out += mine
    return sorted(set(out))


RULE_EDGES: dict[str, frozenset[str]] = {
    "PV001": frozenset({"then", "else"}), "PV002": frozenset({"init", "next", "result"}),
    "PV003": frozenset({"inplace"}), "PV005": frozenset({"drain", "read", "copy"}),
}
"""The kinds of edge a rule is about (an if-phi's arms, a loop's carry, an in-place step, a move); a rule
not listed marks any edge between two of its values."""


def _edge_key(e: Edge) -> tuple:
    return (int(e.src[1:]), e.src[0], int(e.dst[1:]), e.dst[0], e.kind)


def _red_edges(edges: list[Edge], nodes: dict[str, Node], found: list[Finding]) -> list[Edge]:
    """Each edge with the rules of the findings that name both its ends, or that report the read it is (a
    read of a value the finding names, at the finding's line: PV004's clobbered read, PV006's reader);
    PV009 also marks the edges of its chain that change window."""
    out = []
    for e in edges:
        src, dst = nodes.get(e.src), nodes.get(e.dst)
        if src is None or dst is None:
            continue
        mine = []
        for f in found:
            values = {display_name(v) for v in f.values}
            kinds = RULE_EDGES.get(f.rule.id)
            if kinds is not None and e.kind not in kinds:
                pass
            elif src.name in values and dst.name in values and src.name != dst.name and src.rules and dst.rules:
                mine.append(f.rule.id)
            elif e.kind in ("drain", "read") and src.rules and src.name in values and e.line == f.span.line:
                mine.append(f.rule.id)
            elif (f.rule.id == "PV009" and src.window and dst.window and src.window != dst.window
                  and src.window in f.windows and dst.window in f.windows):
                mine.append(f.rule.id)
        out.append(Edge(e.src, e.dst, e.kind, e.label, e.line, tuple(dict.fromkeys(mine))))
    return out


def _timeline(rows: dict[str, list[tuple]], acc: set[int], kind_at: dict[int, str], line_of: dict[int, int],
              text_of: dict[int, str]) -> tuple[tuple[int, ...], list[set[str]], tuple[int, ...]]:
    """Columns (points that define or read an Acc value, in program order), the Acc windows live at each,
    and the co-live bytes of their buffer roots (`acc_base_live`, `acc_pressure` of liveness.dl)."""
    windows = {v: w for v, w in rows["window"]}
    uses: dict[int, set[int]] = {}
    for p, v, _ in rows["uses"]:
        if v in acc:
            uses.setdefault(p, set()).add(v)
    defs: dict[int, set[int]] = {}
    for p, v in rows["defines"]:
        defs.setdefault(p, set()).add(v)
    literal = dict(rows["cond_literal"])  # if point -> the arm its literal condition always takes
    infeasible = {(s, t) for s, t, arm in rows["branch"] if s in literal and literal[s] != arm}
    succ: dict[int, list[int]] = {}
    preds: dict[int, list[int]] = {}
    for a, b in rows["succ"]:
        if (a, b) not in infeasible:
            succ.setdefault(a, []).append(b)
            preds.setdefault(b, []).append(a)
    points = sorted(kind_at)
    live_in: dict[int, set[int]] = {p: set(uses.get(p, ())) for p in points}
    work = list(points)
    while work:  # backward may-liveness to a fixpoint
        p = work.pop()
        out: set[int] = set().union(*(live_in.get(q, set()) for q in succ.get(p, ())))
        new = uses.get(p, set()) | (out - defs.get(p, set()))
        if new != live_in.get(p):
            live_in[p] = new
            work.extend(preds.get(p, ()))
    columns = [p for p in points if uses.get(p) or (defs.get(p, set()) & acc)]
    ranges = {w: (b, hi - lo) for w, b, lo, hi in rows["window_range"]}
    sizes = {b: size for b, s, size in rows["alloc"] if s == "Acc"}
    live: list[set[str]] = []
    pressure = []
    for p in columns:
        here = {v for v in live_in.get(p, set()) | defs.get(p, set()) if v in acc and v in windows}
        live.append({text_of.get(windows[v], f"w{windows[v]}") for v in here})
        bases = {ranges[windows[v]][0] for v in here if windows[v] in ranges}
        pressure.append(sum(sizes.get(b, 0) for b in bases))
    return tuple(line_of.get(p, 0) for p in columns), live, tuple(pressure)



# ---------------------------------------------------------------------------------------------- timeline runs


@dataclass(frozen=True)
class Segment:
    """Consecutive timeline columns with the same live windows and pressure, drawn as one."""

    first: int
    last: int
    """Source lines of the first and the last column."""
    live: tuple[bool, ...]
    """Per window of `Chains.windows`."""
    pressure: int


def segments(chains: Chains) -> tuple[Segment, ...]:
    """The timeline with runs of identical columns merged (an unrolled kernel has hundreds of points)."""
    out: list[Segment] = []
    for c, line in enumerate(chains.columns):
        live = tuple(w.live[c] for w in chains.windows)
        if out and out[-1].live == live and out[-1].pressure == chains.pressure[c]:
            out[-1] = Segment(out[-1].first, line, live, out[-1].pressure)
        else:
            out.append(Segment(line, line, live, chains.pressure[c]))
    return tuple(out)


def span_text(s: Segment) -> str:
    return str(s.first) if s.first == s.last else f"{s.first}-{s.last}"


# ---------------------------------------------------------------------------------------------- DOT


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def _node_dot(prefix: str, n: Node, colour: dict[str, str]) -> str:
    label = f"{n.name}\nline {n.line}: {_short(n.op)}" if n.line else f"{n.name}\n{_short(n.op)}"
    attrs = {"id": f"{prefix}{n.key}", "label": label}
    if n.window is None or n.space not in ("Acc",):
        attrs["shape"] = "box" if n.key.startswith("p") or n.space in ("DDR", "scalar", "") else "ellipse"
        attrs["style"] = "filled"
        attrs["fillcolor"] = colour.get(n.window or "", "#ffffff")
    else:
        attrs["fillcolor"] = colour[n.window]
    if n.rules:
        attrs["label"] += "\n" + " ".join(dict.fromkeys(n.rules))
        attrs.update(color=RED, fontcolor=RED, penwidth="3", **{"class": "finding"})
    attrs["tooltip"] = f"{n.name}: {n.window}" if n.window else n.name
    return f"    {prefix}{n.key} [{', '.join(f'{k}={_quote(v)}' for k, v in attrs.items())}];"


_EDGE_STYLE = {"inplace": "solid", "then": "solid", "else": "solid", "init": "dashed", "next": "dashed",
               "result": "solid", "copy": "dotted", "drain": "bold", "read": "bold"}


def _edge_dot(prefix: str, e: Edge) -> str:
    attrs = {"label": e.label, "style": _EDGE_STYLE[e.kind]}
    if e.kind == "next":
        attrs["constraint"] = "false"  # the back edge: keep the chain top to bottom
    if e.rules:
        attrs.update(label=f"{e.label} {' '.join(e.rules)}", color=RED, fontcolor=RED, penwidth="2.5",
                     **{"class": "finding"})
    return f"  {prefix}{e.src} -> {prefix}{e.dst} [{', '.join(f'{k}={_quote(v)}' for k, v in attrs.items())}];"


def _legend_html(chains: Chains) -> str:
    rows = ["<TR><TD COLSPAN=\"3\"><B>L0C windows</B></TD></TR>"]
    for w in chains.windows:
        rows.append(f"<TR><TD BGCOLOR=\"{w.colour}\" WIDTH=\"16\"> </TD><TD ALIGN=\"LEFT\">{_h(w.text)}</TD>"
                    f"<TD ALIGN=\"LEFT\">base {_h(w.base)}, offset {w.offset} B, size {w.size} B</TD></TR>")
    if not chains.windows:
        rows.append("<TR><TD COLSPAN=\"3\">no Acc window</TD></TR>")
    return "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">" + "".join(rows) + "</TABLE>"


def _timeline_html(chains: Chains) -> str:
    runs = segments(chains)
    head = "".join(f"<TD><FONT POINT-SIZE=\"8\">{span_text(s)}</FONT></TD>" for s in runs)
    rows = [f"<TR><TD COLSPAN=\"{len(runs) + 1}\"><B>live ranges (by source line)</B></TD></TR>",
            f"<TR><TD ALIGN=\"LEFT\">line</TD>{head}</TR>"]
    for i, w in enumerate(chains.windows):
        cells = "".join(f"<TD BGCOLOR=\"{w.colour if s.live[i] else '#ffffff'}\"> </TD>" for s in runs)
        rows.append(f"<TR><TD ALIGN=\"LEFT\" BGCOLOR=\"{w.colour}\">{_h(w.text)}</TD>{cells}</TR>")
    over = chains.capacity
    cells = "".join(f"<TD><FONT POINT-SIZE=\"8\" COLOR=\"{RED if over and s.pressure > over else '#000000'}\">"
                    f"{s.pressure}</FONT></TD>" for s in runs)
    rows.append(f"<TR><TD ALIGN=\"LEFT\">co-live bytes (L0C {over})</TD>{cells}</TR>")
    return "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\">" + "".join(rows) + "</TABLE>"


def _findings_html(chains: Chains) -> str:
    rows = "".join(f"<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"{RED}\">{_h(text)}</FONT></TD></TR>"
                   for text in chains.findings)
    return "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\">" + rows + "</TABLE>"


def title_of(chains: Chains) -> str:
    """`Program.fn (path)`, and the dump it is drawn from when the pipeline rejected it."""
    stage = f", as {chains.stage} left it (the next pass rejected it)" if chains.stage else ""
    return f"{chains.kernel} ({chains.path}){stage}"


def kernel_dot(chains: Chains, index: int) -> list[str]:
    """The lines of one kernel's cluster (its nodes, legend, timeline, findings) and of its edges."""
    prefix = f"k{index}_"
    colour = {w.text: w.colour for w in chains.windows}
    lines = [f"  subgraph cluster_{index} {{",
             f"    label={_quote(title_of(chains))};",
             f"    id={_quote(f'kernel_{index}')};",
             f"    subgraph cluster_{index}_chains {{",
             "      label=\"accumulator chains\";", "      style=\"dashed\";"]
    lines += ["  " + _node_dot(prefix, n, colour) for n in chains.nodes]
    lines += ["    }",
              f"    {prefix}legend [shape=plaintext, style=\"\", label=<{_legend_html(chains)}>];",
              f"    subgraph cluster_{index}_timeline {{",
              "      label=\"live ranges\";", "      style=\"dashed\";",
              f"      {prefix}timeline [shape=plaintext, style=\"\", label=<{_timeline_html(chains)}>];",
              "    }"]
    if chains.findings:
        lines.append(f"    {prefix}findings [shape=plaintext, style=\"\", label=<{_findings_html(chains)}>];")
    lines.append("  }")
    lines += [_edge_dot(prefix, e) for e in chains.edges]
    if chains.nodes:  # the legend and the timeline below the chains
        last = chains.nodes[-1].key
        lines.append(f"  {prefix}{last} -> {prefix}legend [style=invis];")
        lines.append(f"  {prefix}legend -> {prefix}timeline [style=invis];")
        if chains.findings:
            lines.append(f"  {prefix}timeline -> {prefix}findings [style=invis];")
    return lines


def to_dot(pictures: Iterable[Chains], title: str) -> str:
    """One DOT graph with a cluster per kernel."""
    lines = ["digraph chains {",
             f"  graph [label={_quote(title)}, labelloc=\"t\", fontname=\"Helvetica\", fontsize=12, "
             "rankdir=\"TB\", newrank=true];",
             "  node [fontname=\"Helvetica\", fontsize=10, shape=\"box\", style=\"rounded,filled\"];",
             "  edge [fontname=\"Helvetica\", fontsize=9];"]
    for index, chains in enumerate(pictures):
        lines += kernel_dot(chains, index)
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_binary() -> str | None:
    """Graphviz's `dot` on PATH, or None."""
    return shutil.which("dot")


def to_svg(dot: str, timeout: float = 60.0) -> str | None:
    """The SVG `dot -Tsvg` draws of *dot*; None when Graphviz is not installed."""
    binary = dot_binary()
    if binary is None:
        return None
    done = subprocess.run([binary, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.strip()}")
    return done.stdout


# ---------------------------------------------------------------------------------------------- from files


def pictures(paths: list[str], options: Options, kernel: str | None = None,
             findings: Iterable[Finding] | None = None) -> tuple[list[Chains], list[str]]:
    """The pictures of the kernels under *paths* (only *kernel*, by name or function, when given) after
    the chain's read, lower, facts and Datalog stages, and what could not be drawn (`kernel: why`).
    *findings* (default: the ones those stages find) are drawn red on the kernel they name."""
    from pypto_verify.run.chain import run_work
    from pypto_verify.run.records import Stage

    works = run_work(paths, options, (Stage.READ, Stage.LOWER, Stage.FACTS, Stage.DATALOG))
    given = list(findings) if findings is not None else None
    out: list[Chains] = []
    missing: list[str] = []
    for work in works:
        found = given if given is not None else list(work.findings)
        ids = {k.name: i for i, k in enumerate(work.lowered(), start=1)}
        for k in work.kernels:
            if kernel is not None and kernel not in (k.name, k.function):
                continue
            mine = [f for f in found if f.kernel == k.name and f.span.path == work.path]
            if k.name in ids and work.facts is not None:
                out.append(chains_of(work.facts, ids[k.name], k.name, mine))
                continue
            partial = _before_rejection(work.path, k.program, k.read, options)
            if partial is None:
                missing.append(f"{k.name}: not lowered (see `pypto-verify check {work.path}`)")
                continue
            facts, stage = partial
            chains = chains_of(facts, 1, k.name, mine)
            out.append(replace(chains, stage=stage))
    return out, missing


def _before_rejection(path: str, program: Program, fn: Function, options: Options) -> tuple[FactSet, str] | None:
    """A kernel the pipeline dropped (a lowering finding: PV001, PV008 ...) drawn as the last pass that
    kept it left it: the facts of that IR and the pass's dump name; None when the frontend's IR is all
    there is or nothing could be exported."""
    from pypto_verify.facts import export_facts
    from pypto_verify.ir import Module
    from pypto_verify.lowering.pass_base import LowerOptions
    from pypto_verify.lowering.pipeline import lower
    from pypto_verify.target import get_target

    single = Module(path, (replace(program, functions=(fn,)),))
    try:
        result = lower(single, LowerOptions(mode=options.mode, target=get_target(options.target)), keep_dumps=True)
    except Exception:  # the chain already reported it (PV999): nothing more to draw
        return None
    kept = [(name, g) for name, module in result.dumps for _, g in module.functions() if g.name == fn.name]
    if len(kept) < 2:
        return None
    name, last = kept[-1]
    try:
        return export_facts([(path, last)], get_target(options.target)), name
    except Exception:
        return None


@dataclass(frozen=True)
class Picture:
    """The chains of one kernel, drawn: the SVG Graphviz made of them (None without Graphviz) and the DOT."""

    chains: Chains
    svg: str | None
    dot: str


def drawings(report: RunResult, options: Options) -> list[Picture]:
    """The picture of every kernel with a finding in *report* (a `RunResult`), its findings red (the
    report's, after suppressions and filters), for the HTML report. Re-runs read, lower, facts and Datalog
    on those files only; a file whose picture cannot be made is left without one (the report still has
    its findings)."""
    kernels = {(f.span.path, f.kernel) for f in report.findings if f.kernel}
    paths = list(dict.fromkeys(path for path, _ in kernels))
    if not paths:
        return []
    try:
        drawn, _ = pictures(paths, options, findings=report.findings)
    except Exception:  # noqa: BLE001 - our bug in drawing; retried file by file so one file costs only itself
        drawn = []
        for path in paths:
            try:
                drawn += pictures([path], options, findings=report.findings)[0]
            except Exception:  # noqa: BLE001
                continue
    out = []
    for chains in drawn:
        if (chains.path, chains.kernel) in kernels:
            dot = to_dot([chains], "")  # the figure and the cluster already name the kernel
            try:
                svg = to_svg(dot)
            except (RuntimeError, OSError, subprocess.TimeoutExpired):
                svg = None  # the page shows the DOT instead
            out.append(Picture(chains, svg, dot))
    return out
