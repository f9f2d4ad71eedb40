"""Text report: one line per finding (`path:line:col: PV004 clobbered-read: ...`), notes indented,
then a summary line."""

from __future__ import annotations

from typing import TextIO

from pypto_verify.run.records import RunResult


def write(report: RunResult, stream: TextIO, *, show_kernels: bool = False, summary: bool = True) -> None:
    for finding in report.findings:
        stream.write(finding.render() + "\n")
    if show_kernels:
        for file in report.files:
            for k in file.kernels:
                stream.write(f"{file.path}: {k.name}: {k.statement}\n")
    if not summary:
        return  # check -q: the findings only
    kernels = [k for f in report.files for k in f.kernels]
    verified = sum(1 for k in kernels if k.verdict == "verified")
    errors = sum(1 for f in report.findings if f.severity.value == "error")
    matched = sum(1 for k in kernels if k.verdict == "verified" and k.sim == "match")
    unsimulated = verified - matched
    conditional = sum(1 for k in kernels if k.verdict == "conditional")
    also = f", {conditional} conditional on run-time inputs" if conditional else ""
    stream.write(f"{len(report.files)} files, {len(kernels)} kernels ({verified} verified: {matched} simulated "
                 f"and matched, {unsimulated} not simulated{also}), {report.sites} idiom sites "
                 f"({report.verified_sites} verified), {errors} error findings\n")
