"""`pypto-verify parse FILE...`: read kernel files and print their IR.

Text: each kernel's IR on stdout (Form 2, or Form 3 when the input carries MemRefs), input errors on
stderr as `path:line:col: PV000 input-error: ...`. `--format json`: one JSON document with the IR of
every file (a generic dataclass walk: `{"node": "Assign", "target": ..., "span": [line, col]}`) and
its errors and warnings. Directories are searched recursively for `*.py`. Exit 2 when any input
error was reported, else 0.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from pathlib import Path
from typing import Any

import click

from pypto_verify import ir, rules
from pypto_verify.findings import Finding, Note
from pypto_verify.frontend import kernels
from pypto_verify.printer import print_module
from pypto_verify.run import Options, Stage, run_work
from pypto_verify.run.chain import FileWork


@click.command("parse")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: the IR as kernel-language source; json: a machine-readable dump plus the errors.")
@click.option("--all-functions", is_flag=True, help="Print every function, not only the kernels.")
@click.option("--warnings/--no-warnings", "show_warnings", default=False, show_default=True,
              help="Also print warnings (opaque ops, symbolic values) on stderr.")
def command(paths: tuple[Path, ...], output_format: str, all_functions: bool, show_warnings: bool) -> None:
    """Read kernel files (or directories of them) and print their IR."""
    works = run_work([str(p) for p in paths], Options(), (Stage.READ,))
    any_error = any(work.findings for work in works)
    if output_format == "json":
        document = {"files": [_file_json(work) for work in works]}
        click.echo(json.dumps(document, indent=1))
    else:
        for work in works:
            module = work.module if all_functions else _kernels_only(work.module)
            if module.programs:
                click.echo(print_module(module), nl=False)
            for error in work.findings:
                click.echo(error.render(), err=True)
            if show_warnings:
                for warning in work.warnings:
                    click.echo(_warning_text(warning), err=True)
    sys.exit(2 if any_error else 0)


def _kernels_only(module: ir.Module) -> ir.Module:
    keep = {id(fn) for _, fn in kernels(module)}
    programs = []
    for program in module.programs:
        functions = tuple(fn for fn in program.functions if id(fn) in keep)
        if functions:
            programs.append(dataclasses.replace(program, functions=functions))
    return ir.Module(module.path, tuple(programs))


def _warning_text(warning: Note) -> str:
    return f"{warning.span}: warning: {warning.message}"


def _file_json(work: FileWork) -> dict[str, Any]:
    return {
        "path": work.path,
        "status": work.status,
        "kernels": [k.function for k in work.kernels],
        "module": to_json(work.module),
        "errors": [_diagnostic_json(e, "error") for e in work.findings],
        "warnings": [_diagnostic_json(w, "warning") for w in work.warnings],
    }


def _diagnostic_json(error: Note | Finding, severity: str) -> dict[str, Any]:
    return {"rule": rules.INPUT_ERROR.id, "name": rules.INPUT_ERROR.name, "severity": severity, "path": error.span.path,
            "line": error.span.line, "col": error.span.col, "message": error.message}


def to_json(node: Any) -> Any:
    """A generic dataclass → JSON walk: `{"node": "Assign", "target": ..., "span": [line, col]}`."""
    if isinstance(node, ir.Span):
        return [node.line, node.col]
    if isinstance(node, enum.Enum):
        return node.value
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        out: dict[str, Any] = {"node": type(node).__name__}
        for f in dataclasses.fields(node):
            out[f.name] = to_json(getattr(node, f.name))
        return out
    if isinstance(node, (tuple, list)):
        return [to_json(item) for item in node]
    if isinstance(node, float) and node != node:
        return "nan"
    if isinstance(node, float) and node in (float("inf"), float("-inf")):
        return "inf" if node > 0 else "-inf"
    return node
