"""Text report: one line per finding (`path:line:col: PV004 clobbered-read: ...`), the source line with a
caret under it (the construct's extent when the source gives it), notes indented, then a summary line
(L0C_RULES.md, "Output contract"). With `--statistics` the per-rule counts replace the findings; with
colour (`--color`) the location, the rule and the caret are highlighted with ANSI codes."""

from __future__ import annotations

import re
from collections import Counter
from typing import TextIO

from pypto_verify.findings import Finding
from pypto_verify.reports import statistics
from pypto_verify.reports.settings import ReportSettings
from pypto_verify.run.records import KernelResult, RunResult
from pypto_verify.source import code_of, extent, source_line
from pypto_verify.span import Span

_RESET = "\033[0m"
_BOLD, _RED, _YELLOW, _CYAN, _BLUE = "\033[1m", "\033[31m", "\033[33m", "\033[36m", "\033[34m"
_SEVERITY_COLOUR = {"error": _RED, "warning": _YELLOW, "info": _CYAN}


def _paint(text: str, code: str, on: bool) -> str:
    return f"{code}{text}{_RESET}" if on and text else text


def frame(span: Span, *, color: bool = False) -> list[str]:
    """The source line at *span* and a caret line under it: `^` from the column to the construct's end on
    that line (one `^` when the extent is unknown). Empty when the line cannot be read."""
    text = source_line(span.path, span.line)
    if text is None or span.col < 1:
        return []
    text = text.rstrip()
    end = extent(span)
    if end is None:
        width = 1
    elif end[0] == span.line:
        width = end[1] - span.col
    else:  # the construct goes on below: underline the rest of this line's code
        width = len(code_of(text)) + 1 - span.col
    width = max(1, min(width, len(text) + 1 - span.col))
    gutter = f"{span.line:>5} | "
    caret = " " * (span.col - 1) + "^" * width
    return [_paint(gutter, _BLUE, color) + text, _paint(" " * 6 + "| ", _BLUE, color) + _paint(caret, _RED, color)]


def render_finding(finding: Finding, *, color: bool = False, frames: bool = True) -> str:
    """The finding's line, its code frame and its notes."""
    severity = finding.severity.value
    head = (f"{_paint(str(finding.span), _BOLD, color)}: "
            f"{_paint(f'{finding.rule.id} {finding.rule.name}', _BOLD + _SEVERITY_COLOUR[severity], color)}: "
            f"{finding.message}")
    lines = [head, *(frame(finding.span, color=color) if frames else [])]
    lines += [f"  {_paint(str(n.span), _BOLD, color)}: {_paint('note', _CYAN, color)}: {n.message}"
              for n in finding.notes]
    return "\n".join(lines)


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 file`, `2 files`."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


_SAMPLES = re.compile(r"(^|; )at \w+=\d+[^:]*: ")
"""The `at T=32; T=40: ` a kernel with `pl.dynamic` sizes leads each reason with (`dynamic.simulate_kernel`)."""

_COUNT = re.compile(r" \(\d+\)(?=$|; )")
"""The kernel's own count a reason (or each sample's reason) ends with (`... the simulation's limit of 268435456
(778958850)`)."""


_SHRUNK = re.compile(r"^with (\w+=\d+ \(real \d+: trip counts only\)(, )?)+: |; not shrunk: .*$")
"""The shrunk sizes a reason is led by, and why a kernel's constants were not shrunk (`run/shrink.py`)."""


def _reason_key(reason: str) -> str:
    """*reason* without its samples, its shrunk sizes and counts, each part once (two samples skipped for one
    reason)."""
    parts = _COUNT.sub("", _SAMPLES.sub(r"\1", _SHRUNK.sub("", reason))).split("; ")
    return "; ".join(dict.fromkeys(parts))


def _unsimulated_reasons(kernels: list[KernelResult]) -> str:
    """Why verified kernels were not simulated: `: Form 3 input: no source to compare with` (the most
    common reason first, each with its count when there are several; the samples a kernel with
    `pl.dynamic` sizes was tried at, and a count of the kernel's own a reason ends with, are left out, so its
    reason counts with the others')."""
    reasons = Counter(_reason_key(k.sim_reason) or "simulation was not run (--no-sim)" for k in kernels)
    if not reasons:
        return ""
    if len(reasons) == 1:
        return f": {next(iter(reasons))}"
    return ": " + "; ".join(f"{n} {reason}" for reason, n in sorted(reasons.items(), key=lambda r: (-r[1], r[0])))


def summary(report: RunResult) -> str:
    """`1 file, 1 kernel (1 verified: 0 simulated and matched, 1 not simulated: <why>), ...`."""
    kernels = report.kernels
    verified = [k for k in kernels if k.verdict == "verified"]
    matched = sum(1 for k in verified if k.sim == "match")
    unsimulated = [k for k in verified if k.sim != "match"]
    errors = sum(1 for f in report.findings if f.severity.value == "error")
    conditional = sum(1 for k in kernels if k.verdict == "conditional")
    also = f", {conditional} conditional on run-time inputs" if conditional else ""
    return (f"{_count(len(report.files), 'file')}, {_count(len(kernels), 'kernel')} ({len(verified)} verified: "
            f"{matched} simulated and matched, {len(unsimulated)} not simulated{_unsimulated_reasons(unsimulated)}"
            f"{also}), {_count(report.sites, 'idiom site')} ({_sites(report)}), "
            f"{_count(errors, 'error finding')}")


def _sites(report: RunResult) -> str:
    """`35 verified` or `35 verified, 120 conditional on run-time inputs`."""
    conditional = report.conditional_sites
    return f"{report.verified_sites} verified" + (f", {conditional} conditional on run-time inputs" if conditional else "")


def write(report: RunResult, stream: TextIO, settings: ReportSettings = ReportSettings()) -> None:
    if settings.statistics:
        statistics.write(report, stream)
    else:
        for finding in report.findings:
            stream.write(render_finding(finding, color=settings.color, frames=settings.frames) + "\n")
    if settings.show_kernels:
        for file in report.files:
            for k in file.kernels:
                stream.write(f"{file.path}: {k.name}: {k.statement}\n")
    if settings.show_summary:
        stream.write(summary(report) + "\n")
